import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import { badInput, forbidden, notFound, type ResourceType, type Tag, TagCreate, TagUpdate } from '@studio/schema';
import type { Db } from '../store/db';
import type { TagsTable } from '../store/tables';
import { homeOrgId, type Caller } from '../http/caller';
import type { AccessService } from './access';

type TagRow = Selectable<TagsTable>;

/**
 * Tags and the resources they are applied to (catalog §tags). A tag is usable by its owner and by members of
 * its organization, changed by its owner or an administrator; applying one needs read access to the resource.
 * The routes (routes/tags.ts) call these and record the audit trail.
 */
export class TagService {
  constructor(
    private readonly db: Db,
    private readonly access: AccessService,
  ) {}

  /** The caller's own tags, by name. */
  async mine(caller: Caller): Promise<Tag[]> {
    const rows = await this.db.selectFrom('tags').selectAll().where('owner_id', '=', caller.user.id).orderBy('name').execute();
    return this.toWire(rows);
  }

  /** The tags of the caller's organizations, by name, with the links of one resource type when given. */
  async ofOrganizations(caller: Caller, resourceType?: ResourceType): Promise<Tag[]> {
    if (!caller.orgIds.length) return [];
    const rows = await this.db.selectFrom('tags').selectAll().where('organization_id', 'in', caller.orgIds).orderBy('name').execute();
    return this.toWire(rows, resourceType);
  }

  /** A new tag of the caller's home organization, applied to one resource when the body names it. */
  async create(caller: Caller, b: z.infer<typeof TagCreate>): Promise<Tag> {
    if ((b.resourceId === undefined) !== (b.resourceType === undefined)) throw badInput('resourceId and resourceType go together');
    if (b.resourceId && b.resourceType) await this.access.guard(caller, b.resourceType, b.resourceId, 'read', false);
    const tag = await this.db
      .insertInto('tags')
      .values({ id: randomUUID(), owner_id: caller.user.id, organization_id: homeOrgId(caller), name: b.name, color: b.color })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (b.resourceId && b.resourceType) await this.link(tag.id, b.resourceType, b.resourceId);
    return (await this.toWire([tag]))[0]!;
  }

  async update(caller: Caller, id: string, b: z.infer<typeof TagUpdate>): Promise<Tag> {
    await this.usable(caller, id, true);
    const tag = await this.db
      .updateTable('tags')
      .set({ ...(b.name && { name: b.name }), ...(b.color && { color: b.color }), updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return (await this.toWire([tag]))[0]!;
  }

  /** Deletes a tag and (by the catalog's cascade) its links. */
  async delete(caller: Caller, id: string): Promise<void> {
    await this.usable(caller, id, true);
    await this.db.deleteFrom('tags').where('id', '=', id).execute();
  }

  /** Applies a usable tag to a resource the caller can read (again: no change); answers the tag. */
  async apply(caller: Caller, tagId: string, type: ResourceType, resourceId: string): Promise<Tag> {
    const tag = await this.usable(caller, tagId);
    await this.access.guard(caller, type, resourceId, 'read', false);
    await this.link(tagId, type, resourceId);
    return (await this.toWire([tag]))[0]!;
  }

  /** Takes a tag off a resource; 404 when it was not on it. */
  async remove(caller: Caller, tagId: string, type: ResourceType, resourceId: string): Promise<void> {
    await this.usable(caller, tagId);
    await this.access.guard(caller, type, resourceId, 'read', false);
    const r = await this.db.deleteFrom('tag_links').where('tag_id', '=', tagId).where('resource_id', '=', resourceId).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw notFound('Tag is not applied to this resource');
  }

  private async usable(caller: Caller, id: string, change = false): Promise<TagRow> {
    const tag = await this.db.selectFrom('tags').selectAll().where('id', '=', id).executeTakeFirst();
    const visible = tag && (tag.owner_id === caller.user.id || caller.isAdmin || (tag.organization_id && caller.orgIds.includes(tag.organization_id)));
    if (!tag || !visible) throw notFound('Tag not found');
    if (change && tag.owner_id !== caller.user.id && !caller.isAdmin) throw forbidden('Only the owner of a tag can change it');
    return tag;
  }

  private async link(tagId: string, type: ResourceType, resourceId: string): Promise<void> {
    await this.db
      .insertInto('tag_links')
      .values({ tag_id: tagId, resource_type: type, resource_id: resourceId })
      .onConflict((oc) => oc.columns(['tag_id', 'resource_id']).doNothing())
      .execute();
  }

  private async toWire(rows: TagRow[], resourceType?: string): Promise<Tag[]> {
    if (!rows.length) return [];
    let q = this.db.selectFrom('tag_links').select(['tag_id', 'resource_type', 'resource_id']).where('tag_id', 'in', rows.map((r) => r.id));
    if (resourceType) q = q.where('resource_type', '=', resourceType);
    const links = await q.execute();
    return rows.map((t) => ({
      id: t.id,
      name: t.name,
      color: t.color,
      organizationId: t.organization_id,
      ownerId: t.owner_id,
      resources: links.filter((l) => l.tag_id === t.id).map((l) => ({ resourceType: l.resource_type as Tag['resources'][number]['resourceType'], resourceId: l.resource_id })),
      createdAt: new Date(t.created_at).toISOString(),
      updatedAt: new Date(t.updated_at).toISOString(),
    }));
  }
}
