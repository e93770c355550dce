import { sql, type Kysely } from 'kysely';

/**
 * API keys come in two kinds: `api` (a bearer token used as it is) and `sdk` (the Studio Data SDK's
 * refresh token, `v1.…`, exchanged at /sdk/oauth/token for short-lived signed access tokens). Both are
 * listed and revoked together; existing keys are `api`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table api_keys add column kind text not null default 'api'`.execute(db);
}
