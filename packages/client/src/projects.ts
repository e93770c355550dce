import { projectCalls, type BodyOf } from '@studio/schema';
import type { HttpClient } from './http';

type ResourceRef = BodyOf<typeof projectCalls.addResource>['resource'];

/** A project's folders and resources (catalog §7 Projects), typed by packages/schema/src/api/projects.ts. */
export function projectFoldersClient(c: HttpClient) {
  return {
    createFolder: (id: string, name: string, parentId: string | null = null) => c.call(projectCalls.createFolder, { params: { id }, body: { name, parentId } }).then((r) => r.item),
    /** Rename (name) or move (parentId: another folder, or null for the root). */
    updateFolder: (id: string, folderId: string, body: BodyOf<typeof projectCalls.updateFolder>) => c.call(projectCalls.updateFolder, { params: { id, folderId }, body }).then((r) => r.item),
    /** Deletes the folder and its subfolders; their resources move to the project's root. */
    deleteFolder: (id: string, folderId: string) => c.call(projectCalls.deleteFolder, { params: { id, folderId } }),
    /** Every resource of the project the caller can read, each with its folder. */
    resources: (id: string) => c.call(projectCalls.resources, { params: { id } }),
    addResource: (id: string, resource: ResourceRef, folderId: string | null = null) => c.call(projectCalls.addResource, { params: { id }, body: { resource, folderId } }).then((r) => r.item),
    moveResource: (id: string, entryId: string, folderId: string | null) => c.call(projectCalls.moveResource, { params: { id, resourceId: entryId }, body: { folderId } }).then((r) => r.item),
    removeResource: (id: string, entryId: string) => c.call(projectCalls.removeResource, { params: { id, resourceId: entryId } }),
  };
}
