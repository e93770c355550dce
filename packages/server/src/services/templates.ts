import type { ColumnType } from 'kysely';
import { StoredTemplate, badInput, type TemplateVersion } from '@studio/schema';
import type { Db } from '../store/db';
import type { ResourceRow } from './records';

/** The table of migration 002 that keeps earlier versions of query templates. */
interface QueryTemplateVersionsTable {
  template_id: string;
  version: number;
  name: string;
  description: string;
  query: string;
  connection_id: string | null;
  parameters: ColumnType<unknown, string, string>;
  saved_by: string | null;
  saved_at: ColumnType<Date, Date | undefined, Date>;
}

export const PARSE_TEMPLATE_FAILED = 'Could not parse query template';

/** The stored template of a row; one that does not parse is refused (catalog §8). */
export function storedTemplate(row: ResourceRow): StoredTemplate {
  const parsed = StoredTemplate.safeParse(row.attrs);
  if (!parsed.success) throw badInput(PARSE_TEMPLATE_FAILED);
  return parsed.data;
}

const versions = (db: Db) => db.withTables<{ query_template_versions: QueryTemplateVersionsTable }>();

/** Keeps `before` (the version a save replaced) in the history. */
export async function keepVersion(db: Db, before: ResourceRow, savedBy: string): Promise<void> {
  const t = storedTemplate(before);
  await versions(db)
    .insertInto('query_template_versions')
    .values({
      template_id: before.id,
      version: t.version,
      name: before.name,
      description: before.description,
      query: t.query,
      connection_id: t.connectionId ?? null,
      parameters: JSON.stringify(t.parameters),
      saved_by: savedBy,
    })
    .onConflict((oc) => oc.columns(['template_id', 'version']).doNothing())
    .execute();
}

/** Earlier versions, newest first. */
export async function historyOf(db: Db, templateId: string, page: { offset: number; limit: number }): Promise<{ items: TemplateVersion[]; total: number }> {
  const q = versions(db).selectFrom('query_template_versions').where('template_id', '=', templateId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('version', 'desc').offset(page.offset).limit(page.limit).execute(),
    q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map((r) => ({
      version: r.version,
      name: r.name,
      description: r.description,
      query: r.query,
      connectionId: r.connection_id,
      parameters: (r.parameters ?? []) as TemplateVersion['parameters'],
      savedAt: new Date(r.saved_at).toISOString(),
      savedBy: r.saved_by,
    })),
    total: Number(count.n),
  };
}
