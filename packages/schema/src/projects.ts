import { z } from 'zod';
import { Id, IsoDate } from './common';

const Name = z.string().trim().min(1, 'Name must not be empty').max(500);

export const ProjectCreate = z.object({ name: Name.default('Untitled'), description: z.string().max(10_000).default('') });
export const ProjectUpdate = z.object({ name: Name.optional(), description: z.string().max(10_000).optional() });

export const FolderCreate = z.object({ name: Name, parentId: Id.nullable().optional() });
export const FolderUpdate = z.object({ name: Name.optional(), parentId: Id.nullable().optional() });
export const Folder = z.object({ id: Id, name: z.string(), parentId: Id.nullable(), createdAt: IsoDate, updatedAt: IsoDate });
export type Folder = z.infer<typeof Folder>;

/**
 * What a project may hold: the documents' maps, datasets, insights and map styles (catalog §3), and workbooks
 * and color palettes, which the workspace has too (docs/decisions.md "Projects").
 */
export const PROJECT_RESOURCE_KINDS = ['map', 'dataset', 'insight', 'map-style', 'workbook', 'color-palette'] as const;
export const ProjectResourceKind = z.enum(PROJECT_RESOURCE_KINDS);
export const ProjectResourceBody = z.object({
  resource: z.object({ type: ProjectResourceKind, id: Id }),
  folderId: Id.nullable().optional(),
});
export type ProjectResourceBody = z.infer<typeof ProjectResourceBody>;
export const ProjectResourceUpdate = z.object({ folderId: Id.nullable() });

export const ProjectResource = z.object({
  id: Id,
  folderId: Id.nullable(),
  resource: z.object({ type: ProjectResourceKind, id: Id, name: z.string() }),
  createdAt: IsoDate,
});
export type ProjectResource = z.infer<typeof ProjectResource>;
