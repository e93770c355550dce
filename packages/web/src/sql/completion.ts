import type { Completion } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';
import { SPATIAL_FUNCTION_SIGNATURES, type Dataset } from '@studio/schema';
import { sanitizeTableName } from '@studio/pipeline';

/** How many datasets' columns the editor loads for completion (one call each); past it, their names only. */
export const COMPLETION_DATASETS = 40;

/** The spatial functions as completions: name, the arguments and units as the detail. */
export const SPATIAL_COMPLETIONS: Completion[] = Object.entries(SPATIAL_FUNCTION_SIGNATURES).map(([label, detail]) => ({ label, detail, type: 'function', apply: `${label}(` }));

/** What user SQL names a dataset by: its name as a table name (letters, digits, _), as the server resolves it. */
export const tableNameOf = (d: { name: string }) => sanitizeTableName(d.name);

/**
 * Table → columns of the datasets the caller reads, for the editor's completion. Names two datasets share are left
 * out: the server answers 422 for them (the id names such a dataset, quoted).
 */
export async function datasetCompletion(
  list: () => Promise<{ id: string; name: string }[]>,
  get: (id: string) => Promise<Pick<Dataset, 'metadata'>>,
): Promise<SQLNamespace> {
  const items = await list();
  const counts = new Map<string, number>();
  for (const d of items) counts.set(tableNameOf(d), (counts.get(tableNameOf(d)) ?? 0) + 1);
  const out: Record<string, string[]> = {};
  let budget = COMPLETION_DATASETS;
  for (const d of items) {
    const table = tableNameOf(d);
    if (counts.get(table) !== 1) continue;
    out[table] = budget-- > 0 ? await get(d.id).then((m) => m.metadata.columns.map((c) => c.name), () => []) : [];
  }
  return out;
}
