import { z } from 'zod';
import { Id, itemOf, itemsOf } from '../common';
import { Folder, FolderCreate, FolderUpdate, ProjectResource, ProjectResourceBody, ProjectResourceUpdate } from '../projects';
import { contract } from './contract';

const tag = 'projects';
const AdminQuery = z.object({ isAdmin: z.string().optional() });
const params = <K extends string>(...names: K[]) => z.object({ id: Id, ...(Object.fromEntries(names.map((n) => [n, Id])) as Record<K, typeof Id>) });
const guard = (action: 'read' | 'write') => ({ type: 'project', param: 'id', action }) as const;
const FOLDER = itemOf(Folder);
const ENTRY = itemOf(ProjectResource);
const ENTRIES = itemsOf(ProjectResource);

/**
 * A project's folders and resources (catalog §7 Projects); the project record's own calls are the record kind's.
 * Bodies are refused with the project's own messages ('Invalid folder', 'Could not save project resource'):
 * the server parses them with these schemas in its handlers.
 */
export const projectCalls = {
  createFolder: contract({ spec: ['CAT-138'], method: 'POST', url: '/v1/projects/{id}/folders', summary: 'Create a folder', tag, auth: 'user', params: params(), query: AdminQuery, body: FolderCreate, resource: guard('write'), response: FOLDER }),
  updateFolder: contract({
    spec: ['CAT-139'],
    method: 'PUT',
    url: '/v1/projects/{id}/folders/{folderId}',
    summary: 'Rename or move a folder',
    tag,
    auth: 'user',
    params: params('folderId'),
    query: AdminQuery,
    body: FolderUpdate,
    resource: guard('write'),
    response: FOLDER,
  }),
  deleteFolder: contract({
    spec: ['CAT-140'],
    method: 'DELETE',
    url: '/v1/projects/{id}/folders/{folderId}',
    summary: 'Delete a folder and its subfolders; their resources move to the root',
    tag,
    auth: 'user',
    params: params('folderId'),
    query: AdminQuery,
    resource: guard('write'),
    status: 204,
  }),
  resources: contract({ spec: ['CAT-141'], method: 'GET', url: '/v1/projects/{id}/resources', summary: 'Every resource of the project the caller can read', tag, auth: 'user', params: params(), query: AdminQuery, resource: guard('read'), response: ENTRIES }),
  rootResources: contract({ spec: ['CAT-142'], method: 'GET', url: '/v1/projects/{id}/folders/root/resources', summary: 'Resources at the project root', tag, auth: 'user', params: params(), query: AdminQuery, resource: guard('read'), response: ENTRIES }),
  folderResources: contract({
    spec: ['CAT-143'],
    method: 'GET',
    url: '/v1/projects/{id}/folders/{folderId}/resources',
    summary: 'Resources of one folder',
    tag,
    auth: 'user',
    params: params('folderId'),
    query: AdminQuery,
    resource: guard('read'),
    response: ENTRIES,
  }),
  addResource: contract({
    spec: ['CAT-144'],
    method: 'POST',
    url: '/v1/projects/{id}/resources',
    summary: "Add a map, dataset, insight, workbook, map style or color palette; 'Could not save project resource' otherwise",
    tag,
    auth: 'user',
    params: params(),
    query: AdminQuery,
    body: ProjectResourceBody,
    resource: guard('write'),
    response: ENTRY,
  }),
  moveResource: contract({
    spec: ['CAT-145'],
    method: 'PUT',
    url: '/v1/projects/{id}/resources/{resourceId}',
    summary: 'Move a project resource to a folder (null: the root)',
    tag,
    auth: 'user',
    params: params('resourceId'),
    query: AdminQuery,
    body: ProjectResourceUpdate,
    resource: guard('write'),
    response: ENTRY,
  }),
  removeResource: contract({
    spec: ['CAT-146'],
    method: 'DELETE',
    url: '/v1/projects/{id}/resources/{resourceId}',
    summary: 'Remove a resource from the project (the resource itself stays)',
    tag,
    auth: 'user',
    params: params('resourceId'),
    query: AdminQuery,
    resource: guard('write'),
    status: 204,
  }),
};
