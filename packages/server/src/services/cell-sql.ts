import { WAREHOUSE_DIALECTS } from '@studio/pipeline';
import type { Caller } from '../http/caller';
import type { CoreServices } from './index';
import { compileForCaller, type PushDown } from './pipelines';
import { storedConnection } from './connections';

/**
 * A workbook's SQL cell on a warehouse: when every cell it names is a pipeline that runs on one and the
 * same connection (live datasets of it, and steps the warehouse's dialect compiles), the user's SQL runs
 * there, in that warehouse's dialect, with each named cell as a CTE of its compiled pipeline. Answers
 * null when they do not all push down to one connection: the cell then runs on DuckDB over their results.
 *
 * The user's SQL is not parsed here: it runs on the user's own warehouse, through the same read-only
 * driver session as the SQL workspace on that connection, for a caller allowed to run queries there
 * (`compileForCaller` checks it for each live dataset). The compiled pipelines bind their values as
 * parameters, renamed per cell so they do not collide.
 */
export async function warehouseCellSql(services: CoreServices, caller: Caller, query: string, cells: Record<string, unknown>): Promise<PushDown | null> {
  const names = Object.keys(cells);
  if (!names.length) return null;
  const parts: { name: string; pushDown: PushDown }[] = [];
  for (const name of names) {
    const compiled = await compileForCaller(services, caller, cells[name], { pushDown: true });
    if (!compiled.pushDown) return null;
    parts.push({ name, pushDown: compiled.pushDown });
  }
  const connection = parts[0]!.pushDown.connection;
  if (parts.some((p) => p.pushDown.connection.id !== connection.id)) return null;
  const dialect = WAREHOUSE_DIALECTS[storedConnection(connection)?.type ?? ''];
  if (!dialect) return null;
  const values: Record<string, unknown> = {};
  const ctes = parts.map(({ name, pushDown }, i) => {
    // {{pN}} of each compiled pipeline become {{cI_pN}}: one namespace for the whole statement.
    const sql = pushDown.sql.replace(/\{\{p(\d+)\}\}/g, (_m, n: string) => `{{c${i}_p${n}}}`);
    for (const [k, v] of Object.entries(pushDown.values)) values[`c${i}_${k}`] = v;
    return `${dialect.quoteIdent(name)} AS (${sql})`;
  });
  // The user's query as a subquery: it may have its own WITH, which cannot follow ours.
  const statement = `WITH ${ctes.join(',\n')}\nSELECT * FROM (${query.replace(/[\s;]+$/, '')}) AS cell_result`;
  return { connection, sql: statement, values };
}
