import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL and Redshift connections name their TLS as libpq does (`sslmode`: disable, require,
 * verify-full) instead of a yes/no `ssl`: a saved `ssl: true` (a verified certificate, as it always
 * meant) becomes `verify-full`, `ssl: false` becomes `disable`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update resources
    set attrs = jsonb_set(
      attrs #- '{config,ssl}',
      '{config,sslmode}',
      to_jsonb(case when (attrs -> 'config' ->> 'ssl')::boolean then 'verify-full' else 'disable' end)
    )
    where type = 'data-connection' and attrs ->> 'type' in ('postgres', 'redshift') and attrs -> 'config' ? 'ssl'
  `.execute(db);
}
