import { sql } from 'kysely';
import { Id, StudioError, badInput } from '@studio/schema';
import { sanitizeTableName } from '@studio/pipeline';
import type { Engine } from '@studio/engine';
import type { Db } from '../store/db';
import type { Caller } from '../http/caller';
import type { AccessService } from './access';
import type { ResourceRow } from './records';
import { datasetAttrs } from './datasets';
import { TEMP_VIEW_NAME, type TempViews } from './temp-views';

/**
 * A table named in user SQL, resolved to the Parquet file of a dataset the caller can read: by id,
 * by an alias the caller supplied, or by the dataset's name as a table name (letters, digits, _).
 * Used by every path that runs user SQL over datasets, so they agree on what a name means.
 */
export async function datasetFileFor(
  deps: { db: Db; access: AccessService; engine: Engine },
  caller: Caller,
  name: string,
  aliases?: Map<string, ResourceRow>,
): Promise<string> {
  let row = aliases?.get(name.toLowerCase());
  if (!row && Id.safeParse(name).success) row = (await deps.access.guard(caller, 'dataset', name, 'read', false)).resource;
  if (!row) {
    const wanted = sanitizeTableName(name).toLowerCase();
    // `wanted` holds only [a-z0-9_], and `_` is LIKE's one-character wildcard: the index scan answers the
    // datasets whose name can sanitize to it (a superset), the exact check below keeps the right ones.
    const candidates = await deps.db
      .selectFrom('resources')
      .selectAll()
      .where('type', '=', 'dataset')
      .where(sql<boolean>`lower(name) like ${wanted}`)
      .execute();
    const readable: ResourceRow[] = [];
    for (const c of candidates) {
      if (sanitizeTableName(c.name).toLowerCase() === wanted && (await deps.access.accessOf(caller, c, false)) !== 'none') readable.push(c);
    }
    if (readable.length > 1) throw badInput(`Table name ${name} matches several datasets; use the dataset id`);
    row = readable[0];
    if (!row) throw badInput(`Unknown table ${name}: name a dataset you can read by its id or name`);
  }
  const a = datasetAttrs(row);
  if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${row.name} is not ready (status: ${a.status})`);
  return deps.engine.store.localPath(a.storageKey);
}

/**
 * A table named in a workbook's SQL: one of `cells` (a cell's name → the temporary view holding its
 * result), a temporary view of the caller named as it is, or else a dataset as in `datasetFileFor`.
 * Cell names shadow datasets of the same name: in a workbook, `filtered` means the cell above.
 */
export async function workbookTableFile(
  deps: { db: Db; access: AccessService; engine: Engine; tempViews: TempViews },
  caller: Caller,
  name: string,
  cells: ReadonlyMap<string, string>,
): Promise<string> {
  const view = cells.get(name.toLowerCase()) ?? (TEMP_VIEW_NAME.test(name) ? name : null);
  if (view) return deps.tempViews.fileOf(caller.user.id, view);
  return datasetFileFor(deps, caller, name);
}
