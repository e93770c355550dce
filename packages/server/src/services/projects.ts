import { randomUUID } from 'node:crypto';
import type { ColumnType } from 'kysely';
import { conflict, notFound, type Folder, type ProjectResource } from '@studio/schema';
import type { Db } from '../store/db';

/** Tables of migration 002: folders of a project and what it holds. */
interface ProjectFoldersTable {
  id: string;
  project_id: string;
  parent_id: string | null;
  name: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
interface ProjectResourcesTable {
  id: string;
  project_id: string;
  folder_id: string | null;
  resource_id: string;
  kind: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
}
type ProjectTables = { project_folders: ProjectFoldersTable; project_resources: ProjectResourcesTable };

const iso = (d: Date | string) => new Date(d).toISOString();

/** Folders and resources of projects; the project itself is a record of the generic machinery. */
export class ProjectStore {
  private readonly db;
  constructor(db: Db) {
    this.db = db.withTables<ProjectTables>();
  }

  async folders(projectId: string): Promise<Folder[]> {
    const rows = await this.db.selectFrom('project_folders').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, parentId: r.parent_id, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) }));
  }

  /** A folder of this project, or 404. */
  async assertFolder(projectId: string, folderId: string): Promise<void> {
    const row = await this.db.selectFrom('project_folders').select('id').where('id', '=', folderId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw notFound('Folder not found');
  }

  async createFolder(projectId: string, name: string, parentId: string | null): Promise<Folder> {
    if (parentId) await this.assertFolder(projectId, parentId);
    const id = randomUUID();
    await this.db.insertInto('project_folders').values({ id, project_id: projectId, parent_id: parentId, name }).execute();
    return (await this.folders(projectId)).find((f) => f.id === id)!;
  }

  async updateFolder(projectId: string, folderId: string, patch: { name?: string; parentId?: string | null }): Promise<Folder> {
    await this.assertFolder(projectId, folderId);
    if (patch.parentId) {
      await this.assertFolder(projectId, patch.parentId);
      // A folder cannot move below itself.
      for (let at: string | null = patch.parentId; at; ) {
        if (at === folderId) throw conflict('A folder cannot move into itself');
        const up: { parent_id: string | null } | undefined = await this.db.selectFrom('project_folders').select('parent_id').where('id', '=', at).executeTakeFirst();
        at = up?.parent_id ?? null;
      }
    }
    await this.db
      .updateTable('project_folders')
      .set({ ...(patch.name !== undefined && { name: patch.name }), ...(patch.parentId !== undefined && { parent_id: patch.parentId }), updated_at: new Date() })
      .where('id', '=', folderId)
      .execute();
    return (await this.folders(projectId)).find((f) => f.id === folderId)!;
  }

  /** Deletes a folder and its subfolders; what they held moves to the project root. */
  async deleteFolder(projectId: string, folderId: string): Promise<void> {
    await this.assertFolder(projectId, folderId);
    await this.db.deleteFrom('project_folders').where('id', '=', folderId).execute();
  }

  /** Entries of a project: all, the root (folderId null) or one folder. */
  async resources(projectId: string, folder?: string | null): Promise<ProjectResource[]> {
    let q = this.db
      .selectFrom('project_resources as p')
      .innerJoin('resources as r', 'r.id', 'p.resource_id')
      .select(['p.id', 'p.folder_id', 'p.kind', 'p.resource_id', 'p.created_at', 'r.name'])
      .where('p.project_id', '=', projectId);
    if (folder === null) q = q.where('p.folder_id', 'is', null);
    else if (folder !== undefined) q = q.where('p.folder_id', '=', folder);
    const rows = await q.orderBy('p.created_at').orderBy('p.id').execute();
    return rows.map((r) => ({
      id: r.id,
      folderId: r.folder_id,
      resource: { type: r.kind as ProjectResource['resource']['type'], id: r.resource_id, name: r.name },
      createdAt: iso(r.created_at),
    }));
  }

  async entry(projectId: string, entryId: string): Promise<ProjectResource> {
    const found = (await this.resources(projectId)).find((e) => e.id === entryId);
    if (!found) throw notFound('Project resource not found');
    return found;
  }

  async addResource(projectId: string, kind: string, resourceId: string, folderId: string | null): Promise<string> {
    if (folderId) await this.assertFolder(projectId, folderId);
    const id = randomUUID();
    const inserted = await this.db
      .insertInto('project_resources')
      .values({ id, project_id: projectId, kind, resource_id: resourceId, folder_id: folderId })
      .onConflict((oc) => oc.columns(['project_id', 'resource_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw conflict('The resource is already in this project');
    return id;
  }

  async assertEntry(projectId: string, entryId: string): Promise<void> {
    const row = await this.db.selectFrom('project_resources').select('id').where('id', '=', entryId).where('project_id', '=', projectId).executeTakeFirst();
    if (!row) throw notFound('Project resource not found');
  }

  async moveResource(projectId: string, entryId: string, folderId: string | null): Promise<void> {
    await this.assertEntry(projectId, entryId);
    if (folderId) await this.assertFolder(projectId, folderId);
    await this.db.updateTable('project_resources').set({ folder_id: folderId }).where('id', '=', entryId).execute();
  }

  async removeResource(projectId: string, entryId: string): Promise<void> {
    await this.assertEntry(projectId, entryId);
    await this.db.deleteFrom('project_resources').where('id', '=', entryId).execute();
  }
}
