import { sql } from 'kysely';
import type { ResourceType } from '@studio/schema';
import type { Services } from '../services';
import type { Caller } from '../http/caller';

/**
 * A sample map, dashboard or workbook: built at start from the sample datasets' ids, kept under a stable
 * key (attrs.sampleKey) so a later start adds the samples an installation lacks and never doubles one.
 */
export interface SampleRecord {
  key: string;
  type: Extract<ResourceType, 'map' | 'insight' | 'workbook'>;
  name: string;
  description: string;
  datasets: string[];
  /** The saved state, as its editor saves it. */
  state: unknown;
}

/** The ready sample datasets by name: what the sample records are built over. */
export async function sampleDatasetIds(services: Services): Promise<Map<string, string>> {
  const rows = await services.db
    .selectFrom('resources')
    .select(['id', 'name'])
    .where('type', '=', 'dataset')
    .where('is_sample', '=', true)
    .where(sql<string>`attrs->>'status'`, '=', 'ready')
    .execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

/** The sample records' ids by key (of every kind). */
export async function sampleRecordIds(services: Services): Promise<Map<string, string>> {
  const rows = await services.db
    .selectFrom('resources')
    .select(['id', sql<string | null>`attrs->>'sampleKey'`.as('key')])
    .where('is_sample', '=', true)
    .where(sql<string | null>`attrs->>'sampleKey'`, 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.key!, r.id]));
}

/** Creates the samples whose key no record has yet, public to read; answers how many it made. */
export async function ensureSampleRecords(services: Services, owner: Caller, samples: SampleRecord[], log: (line: string) => void = () => {}): Promise<number> {
  const have = await sampleRecordIds(services);
  let created = 0;
  for (const s of samples) {
    if (have.has(s.key)) continue;
    const row = await services.records.create(owner, s.type, {
      name: s.name,
      description: s.description,
      visibility: 'public_read',
      isSample: true,
      datasets: s.datasets,
      latestState: s.state,
      attrs: { sampleKey: s.key },
    });
    have.set(s.key, row.id);
    created++;
    log(`  sample ${s.type === 'insight' ? 'dashboard' : s.type} ready: ${s.name}`);
  }
  return created;
}
