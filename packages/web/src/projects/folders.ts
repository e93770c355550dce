import type { Folder, ProjectResource } from '@studio/schema';
import { RECORD_KINDS } from '../app/record-links';

/** A folder with its subfolders, sorted by name: what the project page draws as a tree. */
export interface FolderNode {
  folder: Folder;
  children: FolderNode[];
  depth: number;
}

const byName = (a: Folder, b: Folder) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.id.localeCompare(b.id);

/** The folders as a tree under the project's root (a folder whose parent is missing hangs at the root). */
export function folderTree(folders: Folder[]): FolderNode[] {
  const ids = new Set(folders.map((f) => f.id));
  const childrenOf = (parent: string | null, depth: number): FolderNode[] =>
    folders
      .filter((f) => (parent === null ? f.parentId === null || !ids.has(f.parentId) : f.parentId === parent))
      .sort(byName)
      .map((folder) => ({ folder, depth, children: childrenOf(folder.id, depth + 1) }));
  return childrenOf(null, 0);
}

/** The tree in drawing order, one row per folder. */
export function flatten(nodes: FolderNode[]): FolderNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

/** A folder and every folder under it: where it cannot be moved (the server refuses a cycle too). */
export function subtreeIds(folders: Folder[], id: string): Set<string> {
  const out = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const f of folders) {
      if (f.parentId && out.has(f.parentId) && !out.has(f.id)) {
        out.add(f.id);
        grew = true;
      }
    }
  }
  return out;
}

/** "Parent / Child" names of a folder, for pickers. */
export function folderPath(folders: Folder[], id: string): string {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const names: string[] = [];
  for (let f = byId.get(id); f && names.length <= folders.length; f = f.parentId ? byId.get(f.parentId) : undefined) names.unshift(f.name);
  return names.join(' / ');
}

/** The resources in one folder (null: the root), maps first, then by name. */
export function resourcesIn(entries: ProjectResource[], folderId: string | null): ProjectResource[] {
  const order = ['map', 'insight', 'workbook', 'dataset', 'map-style', 'color-palette'];
  return entries
    .filter((e) => e.folderId === folderId)
    .sort((a, b) => order.indexOf(a.resource.type) - order.indexOf(b.resource.type) || a.resource.name.localeCompare(b.resource.name, 'en', { sensitivity: 'base' }));
}

/** Where a project resource opens in the studio. */
export function resourceHref(r: ProjectResource['resource']): string {
  return RECORD_KINDS[r.type].href(r.id);
}

export const KIND_LABELS = Object.fromEntries(Object.entries(RECORD_KINDS).map(([k, v]) => [k, v.label])) as Record<ProjectResource['resource']['type'], string>;
