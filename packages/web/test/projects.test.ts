import { describe, expect, it } from 'vitest';
import type { Folder, ProjectResource } from '@studio/schema';
import { flatten, folderPath, folderTree, resourceHref, resourcesIn, subtreeIds } from '../src/projects/folders';

const at = '2026-11-27T06:00:00.000Z';
const folder = (id: string, name: string, parentId: string | null = null): Folder => ({ id, name, parentId, createdAt: at, updatedAt: at });
const FOLDERS = [folder('b', 'Zeta'), folder('a', 'alpha'), folder('c', 'Child', 'a'), folder('d', 'Grandchild', 'c'), folder('e', 'Orphan', 'gone')];
const entry = (id: string, type: ProjectResource['resource']['type'], name: string, folderId: string | null): ProjectResource => ({ id, folderId, resource: { type, id: `r-${id}`, name }, createdAt: at });

describe('project folders', () => {
  it('draws the tree by name, each folder under its parent, a folder whose parent is gone at the root', () => {
    expect(flatten(folderTree(FOLDERS)).map((n) => [n.folder.name, n.depth])).toEqual([
      ['alpha', 0],
      ['Child', 1],
      ['Grandchild', 2],
      ['Orphan', 0],
      ['Zeta', 0],
    ]);
  });

  it.each([
    ['a', ['a', 'c', 'd']],
    ['c', ['c', 'd']],
    ['b', ['b']],
  ])('keeps folder %s from moving under itself or its subfolders', (id, blocked) => {
    expect([...subtreeIds(FOLDERS, id)].sort()).toEqual(blocked);
  });

  it('names a folder by its path', () => {
    expect(folderPath(FOLDERS, 'd')).toBe('alpha / Child / Grandchild');
    expect(folderPath(FOLDERS, 'b')).toBe('Zeta');
  });

  it('lists the resources of one folder, maps first, then by name', () => {
    const entries = [entry('1', 'dataset', 'Stores', 'a'), entry('2', 'map', 'b map', 'a'), entry('3', 'map', 'A map', 'a'), entry('4', 'map', 'Root map', null)];
    expect(resourcesIn(entries, 'a').map((e) => e.resource.name)).toEqual(['A map', 'b map', 'Stores']);
    expect(resourcesIn(entries, null).map((e) => e.resource.name)).toEqual(['Root map']);
  });

  it.each([
    ['map', '/x'],
    ['insight', '/dashboard/x'],
    ['workbook', '/workbook/x'],
    ['dataset', '/workspace/datasets/x'],
    ['map-style', '/workspace/basemaps/x'],
    ['color-palette', '/workspace/colors/x'],
  ] as const)('opens a %s at %s', (type, href) => {
    expect(resourceHref({ type, id: 'x', name: 'n' })).toBe(href);
  });
});
