import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { StudioError } from '@studio/schema';
import { INTERRUPTED, datasetAttrs, uploadMeta } from '../src/services/datasets';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * What a dataset leaves in the object store as its data changes (services/datasets.ts, the `dataset-status`
 * mutation module's survivors): the replaced files stay as a snapshot (#51), a refreshed dataset switches only from the data it
 * was refreshed from, and a failed ingestion says why without the server's paths.
 */
describe.each(STORES)('dataset files and data switches on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const owner = () => ({ authorization: cast.tokens.owner });
  const upload = async (csv: string, id?: string) => {
    const res = await s.app.inject({ method: id ? 'PUT' : 'POST', url: id ? `/v1/datasets/${id}/data` : '/v1/datasets/data?name=files', payload: csv, headers: { ...owner(), 'content-type': 'text/csv; charset=utf-8' } });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().item as { id: string };
  };
  const attrs = async (id: string) => datasetAttrs((await s.services.records.get(id))!);
  const stored = (key: string) => s.services.engine.store.exists(key);
  /** The dataset as an ingestion leaves it while it runs (the status machine allows an error only from pending). */
  const makePending = async (id: string) =>
    s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ ...(await s.services.records.get(id))!.attrs, status: 'pending', jobId: null }) }).where('id', '=', id).execute();
  /** A Parquet file put in the store under `key`, as a refresh's new data would be. */
  const putParquet = async (key: string, rows: number) => {
    const file = path.join(s.dataDir, `made-${rows}.parquet`);
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`COPY (SELECT range AS n FROM range(${rows})) TO '${file}' (FORMAT parquet)`);
    c.closeSync();
    db.closeSync();
    await s.services.engine.store.put(key, file);
    await fs.rm(file, { force: true });
  };

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('records the media type without its parameters, and the data as managed data from an upload', async () => {
    const { id } = await upload('a\n1\n');
    expect((await attrs(id)).metadata).toMatchObject({ contentType: 'text/csv', source: 'upload', pipelineType: 'managed', query: null });
    expect(uploadMeta('application/json ; charset=utf-8').contentType).toBe('application/json');
  });

  it('leaves no part of an upload in its work folder, whether the ingestion worked or was refused', async () => {
    const parts = async () => (await fs.readdir(path.join(s.services.engine.tmpDir, 'uploads')).catch(() => [] as string[])).filter((f) => f.endsWith('.part'));
    const { id } = await upload('a,b\n1,2\n');
    expect(await parts()).toEqual([]);
    const refused = await s.app.inject({ method: 'PUT', url: `/v1/datasets/${id}/data`, payload: 'a,b\n1,2\n3,"unterminated\n', headers: { ...owner(), 'content-type': 'text/csv' } });
    expect(refused.statusCode).toBe(422);
    expect(await parts()).toEqual([]);
  });

  it("keeps the replaced data as a snapshot (#51) when new data is uploaded, and removes every file when the dataset is deleted", async () => {
    const { id } = await upload('a\n1\n');
    const first = (await attrs(id)).storageKey!;
    expect(await stored(first)).toBe(true);
    await upload('a\n1\n2\n', id);
    const second = (await attrs(id)).storageKey!;
    expect(second).not.toBe(first);
    expect([await stored(first), await stored(second)]).toEqual([true, true]);
    const snapshot = await s.services.db.selectFrom('dataset_snapshots').select(['dataset_id', 'replaced_at']).where('storage_key', '=', first).executeTakeFirstOrThrow();
    expect(snapshot).toMatchObject({ dataset_id: id, replaced_at: expect.any(Date) });
    const del = await s.app.inject({ method: 'DELETE', url: `/v1/datasets/${id}`, headers: owner() });
    expect(del.statusCode).toBeLessThan(300);
    await expect.poll(() => stored(second)).toBe(false);
    expect(await stored(first)).toBe(false);
    expect(await s.services.db.selectFrom('dataset_snapshots').select('id').where('dataset_id', '=', id).execute()).toEqual([]);
  });

  it('switches a refreshed dataset to its new data only from the data it was refreshed from, and keeps the old as a snapshot', async () => {
    const { id } = await upload('a\n1\n');
    const from = (await attrs(id)).storageKey!;
    const next = `datasets/${id}/refresh-1.parquet`;
    await putParquet(next, 3);
    // Another change came first: nothing switches.
    expect(await s.services.datasets.replaceData(id, 'datasets/elsewhere.parquet', next, () => ({ rowCount: 3 }))).toBeNull();
    expect((await attrs(id)).storageKey).toBe(from);
    const switched = await s.services.datasets.replaceData(id, from, next, () => ({ rowCount: 3 }));
    expect(switched).not.toBeNull();
    expect(await attrs(id)).toMatchObject({ status: 'ready', storageKey: next, metadata: { rowCount: 3, errorMessage: null } });
    expect(await stored(from)).toBe(true);
    expect((await s.services.snapshots.list(id)).map((x) => x.rowCount)).toEqual([1]);
  });

  it('takes a dataset in error to ready through pending, and leaves one being ingested alone', async () => {
    const { id } = await upload('a\n1\n');
    const from = (await attrs(id)).storageKey!;
    await makePending(id);
    await s.services.datasets.failIngestion(id, uploadMeta('text/csv'), new StudioError(422, 'Bad rows'));
    expect((await attrs(id)).status).toBe('error');
    const next = `datasets/${id}/refresh-2.parquet`;
    await putParquet(next, 2);
    expect(await s.services.datasets.replaceData(id, from, next, () => ({ rowCount: 2 }))).not.toBeNull();
    expect(await attrs(id)).toMatchObject({ status: 'ready', storageKey: next, metadata: { errorMessage: null, errorDetails: null } });
    // Pending (an upload arriving): a refresh does not switch under it.
    await makePending(id);
    const later = `datasets/${id}/refresh-3.parquet`;
    await putParquet(later, 1);
    expect(await s.services.datasets.replaceData(id, next, later, () => ({ rowCount: 1 }))).toBeNull();
    expect(await attrs(id)).toMatchObject({ status: 'pending', storageKey: next });
  });

  it.each([
    ['its details, the temp folder named <upload>', (tmp: string) => new StudioError(422, 'Could not read CSV', `line 3 of ${tmp}/x.csv`), 'Could not read CSV', 'line 3 of <upload>/x.csv'],
    ['no details', () => new StudioError(422, 'Could not read CSV'), 'Could not read CSV', null],
    ['an unexpected error, as its text', (tmp: string) => new Error(`disk full at ${tmp}/y`), 'Ingestion failed', 'Error: disk full at <upload>/y'],
  ])('ends a failed ingestion in error with %s', async (_label, error, message, details) => {
    const { id } = await upload('a\n1\n');
    await makePending(id);
    await s.services.datasets.failIngestion(id, uploadMeta('text/csv'), error(s.services.engine.tmpDir));
    expect((await attrs(id)).metadata).toMatchObject({ errorMessage: message, errorDetails: details });
  });

  it('ends an ingestion left pending by a lost node with the interruption message', async () => {
    const { id } = await upload('a\n1\n');
    await makePending(id);
    expect(await s.services.datasets.failStalePending(Date.now() + 24 * 3_600_000)).toBeGreaterThanOrEqual(1);
    expect(await attrs(id)).toMatchObject({ status: 'error', metadata: { errorMessage: INTERRUPTED } });
  });
});
