import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { Kysely } from 'kysely';
import type { Database } from './tables';
import * as m001 from './migrations/001-spine';
import * as m002 from './migrations/002-catalog-kinds';
import * as m003 from './migrations/003-published-maps';
import * as m004 from './migrations/004-bi';
import * as m005 from './migrations/005-executions';
import * as m006 from './migrations/006-catalog-version';
import * as m007 from './migrations/007-publications';
import * as m008 from './migrations/008-pg-sslmode';
import * as m009 from './migrations/009-execution-heartbeats';
import * as m010 from './migrations/010-lock-holders';
import * as m011 from './migrations/011-jobs';
import * as m012 from './migrations/012-sdk-keys';
import * as m013 from './migrations/013-client-errors';
import * as m014 from './migrations/014-legal-versions';
import * as m015 from './migrations/015-password-resets';
import * as m016 from './migrations/016-invitation-per-person';
import * as m017 from './migrations/017-session-families';
import * as m018LockRequests from './migrations/018-lock-requests';
import * as m019RecordVersions from './migrations/019-record-versions';
import * as m020DatasetSnapshots from './migrations/020-dataset-snapshots';
import * as m021VersionPinsIndex from './migrations/021-version-pins-index';

/** Versioned migrations, in order; a new one is a new file and a new line here, never an edit. */
const MIGRATIONS: Record<string, Migration> = {
  '001-spine': m001,
  '002-catalog-kinds': m002,
  '003-published-maps': m003,
  '004-bi': m004,
  '005-executions': m005,
  '006-catalog-version': m006,
  '007-publications': m007,
  '008-pg-sslmode': m008,
  '009-execution-heartbeats': m009,
  '010-lock-holders': m010,
  '011-jobs': m011,
  '012-sdk-keys': m012,
  '013-client-errors': m013,
  '014-legal-versions': m014,
  '015-password-resets': m015,
  '016-invitation-per-person': m016,
  '017-session-families': m017,
  '018-lock-requests': m018LockRequests,
  '019-record-versions': m019RecordVersions,
  '020-dataset-snapshots': m020DatasetSnapshots,
  '021-version-pins-index': m021VersionPinsIndex,
};

class InCodeProvider implements MigrationProvider {
  async getMigrations() {
    return MIGRATIONS;
  }
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: new InCodeProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Catalog migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
