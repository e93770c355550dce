import { tagCalls, type BodyOf, type ResourceType } from '@studio/schema';
import type { HttpClient } from './http';

/** Tags (catalog §4): the caller's, their organizations', and links to resources. */
export function tagsClient(c: HttpClient) {
  const tags = {
    list: () => c.call(tagCalls.list, {}),
    forOrganization: (resourceType?: ResourceType) => c.call(tagCalls.forOrganization, { query: { resourceType } }),
    create: (body: BodyOf<typeof tagCalls.create>) => c.call(tagCalls.create, { body }).then((r) => r.item),
    update: (id: string, body: BodyOf<typeof tagCalls.update>) => c.call(tagCalls.update, { params: { id }, body }).then((r) => r.item),
    delete: (id: string) => c.call(tagCalls.delete, { params: { id } }),
    apply: (tagId: string, type: ResourceType, resourceId: string) => c.call(tagCalls.apply, { params: { tagId, type, resourceId } }),
    remove: (tagId: string, type: ResourceType, resourceId: string) => c.call(tagCalls.remove, { params: { tagId, type, resourceId } }),
    /**
     * Bulk application (catalog §4): the first item first, then the rest in parallel. The first call
     * surfaces a systematic failure (a bad tag) before a burst of identical failures.
     */
    applyBulk: async (tagId: string, items: { resourceType: ResourceType; resourceId: string }[]) => {
      const [first, ...rest] = items;
      if (!first) return [];
      const head = await tags.apply(tagId, first.resourceType, first.resourceId);
      const tail = await Promise.all(rest.map((i) => tags.apply(tagId, i.resourceType, i.resourceId)));
      return [head, ...tail];
    },
  };
  return tags;
}
