import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSampleDatasets, SAMPLE_DATASETS } from '../src/samples/datasets';
import { seedCast, startStudio, type TestStudio } from './harness';

describe('sample datasets (PGlite)', () => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  beforeAll(async () => {
    s = await startStudio('pglite');
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('builds every sample from npm-shipped public data, readable by everyone, once', async () => {
    const admin = await s.services.auth.callerOf(cast.users.admin.id, 'session', 'test');
    expect(await ensureSampleDatasets(s.services, admin)).toBe(SAMPLE_DATASETS.length);
    expect(await ensureSampleDatasets(s.services, admin)).toBe(0);
    const res = await s.app.inject({ method: 'GET', url: '/v1/datasets/sample', headers: { authorization: cast.tokens.outsider } });
    const byName = Object.fromEntries(res.json().items.map((d: { name: string }) => [d.name, d]));
    expect(Object.keys(byName).sort()).toEqual(SAMPLE_DATASETS.map((d) => d.name).sort());
    expect(byName['World countries']).toMatchObject({ status: 'ready', metadata: { rowCount: 177, detected: { geometry: '_geojson' } } });
    expect(byName['US counties'].metadata.rowCount).toBeGreaterThan(3000);
    expect(byName['World cities'].metadata.detected).toMatchObject({ latitude: 'latitude', longitude: 'longitude' });
    const preview = await s.app.inject({ method: 'GET', url: `/v1/datasets/${byName['World cities'].id}/preview?limit=3`, headers: { authorization: cast.tokens.outsider } });
    expect(preview.json().items).toHaveLength(3);
    expect(preview.json().items[0].population).toBeGreaterThan(10_000_000);
  });
});
