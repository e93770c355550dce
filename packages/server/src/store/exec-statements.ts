import { sql, type Kysely } from 'kysely';

/**
 * Runs a migration script statement by statement: PGlite's query() takes one statement at a time.
 * Only for the catalog's own constant DDL, never for text that came from a request.
 */
export async function execStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script
    .split(/;\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const statement of statements) await sql.raw(statement).execute(db);
}
