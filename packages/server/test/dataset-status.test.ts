import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { arrowCopyKey } from '@studio/engine';
import { DEFAULT_TIMING, EMPTY_METADATA, INTERRUPTED, STALE_PENDING_MS, datasetAttrs } from '../src/services/datasets';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * What an ingestion leaves behind, as a user sees it on the dataset and in the store (#12, the
 * `dataset-status` mutation module): the metadata it records, the data a replacement frees, the
 * content encodings it takes or refuses.
 */
const CSV = 'name,visits\nFerry Building,10\nCoit Tower,4\n';

describe.each(STORES)('dataset ingestion on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const call = (method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: body, headers: { authorization: cast.tokens.owner, ...headers } });
  const storageKeyOf = async (id: string) =>
    ((await s.services.db.selectFrom('resources').select('attrs').where('id', '=', id).executeTakeFirstOrThrow()).attrs as { storageKey: string }).storageKey;

  const rowOf = (id: string) => s.services.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const exists = (key: string) => s.services.engine.store.exists(key);

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  /**
   * Holds the next Arrow copy written after an ingestion between reading the data and writing the copy,
   * until `open()`: the race of a copy with a replacement or a deletion of its data, made to happen.
   */
  let release: (() => void) | undefined;
  const holdArrowCopy = () => {
    const engine = s.services.engine;
    const stream = engine.arrowStream;
    let markRead!: () => void;
    const read = new Promise<void>((resolve) => (markRead = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    engine.arrowStream = async function* (...args: Parameters<typeof stream>) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of stream.apply(engine, args)) chunks.push(chunk);
      markRead();
      await gate;
      yield* chunks;
    };
    return {
      read,
      open: () => {
        engine.arrowStream = stream;
        release!();
      },
    };
  };
  afterEach(() => release?.());

  it('records the media type without its parameters, when the data came, and how many rows', async () => {
    const before = Date.now();
    const res = await call('POST', '/v1/datasets/data?name=Typed', CSV, { 'content-type': 'text/csv; charset=utf-8' });
    expect(res.statusCode).toBe(201);
    const { metadata, status } = res.json().item;
    expect([status, metadata.contentType, metadata.rowCount, metadata.errorMessage]).toEqual(['ready', 'text/csv', 2, null]);
    expect(new Date(metadata.ingestedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('keeps the data a replacement replaced as a snapshot (#51) and frees its Arrow copy, once the new data is ready', async () => {
    const made = (await call('POST', '/v1/datasets/data?name=Replaced', CSV, { 'content-type': 'text/csv' })).json().item;
    const first = await storageKeyOf(made.id);
    await expect.poll(() => s.services.engine.store.exists(arrowCopyKey(first)), { timeout: 15_000 }).toBe(true);
    const replaced = await call('PUT', `/v1/datasets/${made.id}/data`, 'name,visits\nAlcatraz,99\n', { 'content-type': 'text/csv' });
    expect([replaced.statusCode, replaced.json().item.metadata.rowCount]).toEqual([200, 1]);
    const second = await storageKeyOf(made.id);
    expect(second).not.toBe(first);
    expect([await s.services.engine.store.exists(first), await s.services.engine.store.exists(arrowCopyKey(first)), await s.services.engine.store.exists(second)]).toEqual([true, false, true]);
    expect((await call('GET', `/v1/datasets/${made.id}/data`)).body).toContain('Alcatraz');
  });

  it.each([
    ['identity', 201],
    ['IDENTITY', 201],
    ['br', 422],
  ])('takes content encoding %s as it should', async (encoding, status) => {
    const res = await call('POST', `/v1/datasets/data?name=${encoding}`, CSV, { 'content-type': 'text/csv', 'content-encoding': encoding });
    expect(res.statusCode).toBe(status);
    if (status === 422) expect(res.json().message).toBe(`Unsupported content encoding ${encoding}`);
  });

  it('lists each dataset with its own status, and a read path only for data that is ready', async () => {
    const ready = (await call('POST', '/v1/datasets/data?name=Listed%20ready', CSV, { 'content-type': 'text/csv' })).json().item;
    // Made first, then given a file it refuses: the record stays, in error (a one-step upload would leave none).
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Listed broken', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    const broken = await call('PUT', `/v1/datasets/${made.id}/data`, '<xml/>', { 'content-type': 'application/xml' });
    expect(broken.statusCode).toBe(422);
    const items = (await call('GET', '/v1/datasets?search=Listed&sortBy=name&sortOrder=asc')).json().items as { id: string; name: string; status: string; metadata: { storageReadPath: string | null } }[];
    expect(items.map((d) => [d.name, d.status, d.metadata.storageReadPath])).toEqual([
      ['Listed broken', 'error', null],
      ['Listed ready', 'ready', `/v1/datasets/${ready.id}/data`],
    ]);
  });

  it('writes the Arrow copy of new data once it is ready, and none when asked to skip it', async () => {
    const kept = (await call('POST', '/v1/datasets/data?name=Copied', CSV, { 'content-type': 'text/csv' })).json().item;
    await s.services.datasets.arrowCopySettled(kept.id);
    expect(await exists(arrowCopyKey(await storageKeyOf(kept.id)))).toBe(true);
    const skipped = (await call('POST', '/v1/datasets/data?name=Uncopied&skipArrow=true', CSV, { 'content-type': 'text/csv' })).json().item;
    await s.services.datasets.arrowCopySettled(skipped.id);
    expect(await exists(arrowCopyKey(await storageKeyOf(skipped.id)))).toBe(false);
  });

  it('is settled only once the Arrow copy is written', async () => {
    const held = holdArrowCopy();
    const made = (await call('POST', '/v1/datasets/data?name=Held%20copy', CSV, { 'content-type': 'text/csv' })).json().item;
    let settled = false;
    const waiting = s.services.datasets.arrowCopySettled(made.id).then(() => (settled = true));
    await held.read;
    await call('GET', `/v1/datasets/${made.id}`);
    expect(settled).toBe(false);
    held.open();
    await waiting;
    expect(await exists(arrowCopyKey(await storageKeyOf(made.id)))).toBe(true);
  });

  it.each([
    ['replaced', (id: string) => call('PUT', `/v1/datasets/${id}/data?skipArrow=true`, 'name,visits\nAlcatraz,99\n', { 'content-type': 'text/csv' })],
    ['deleted', (id: string) => call('DELETE', `/v1/datasets/${id}`)],
  ])('removes a copy that finishes after its data was %s', async (what, change) => {
    const held = holdArrowCopy();
    const made = (await call('POST', `/v1/datasets/data?name=${what}%20mid-copy`, CSV, { 'content-type': 'text/csv' })).json().item;
    const key = await storageKeyOf(made.id);
    await held.read;
    expect((await change(made.id)).statusCode).toBeLessThan(300);
    held.open();
    await s.services.datasets.arrowCopySettled(made.id);
    expect(await exists(arrowCopyKey(key))).toBe(false);
  });

  it('clears the last error when a new upload starts, and says why a second one must wait', async () => {
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Retried', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    expect((await call('PUT', `/v1/datasets/${made.id}/data`, '<xml/>', { 'content-type': 'application/xml' })).statusCode).toBe(422);
    expect(datasetAttrs(await rowOf(made.id)).metadata.errorMessage).toBe('Unsupported content type');
    let whilePending: unknown;
    let second: { statusCode: number; json: () => { message: string; details?: string } } | undefined;
    let racing: unknown;
    await s.services.datasets.ingestWith(await rowOf(made.id), { source: 'upload', pipelineType: 'managed', contentType: 'text/csv', query: null }, async (file) => {
      const attrs = datasetAttrs(await rowOf(made.id));
      whilePending = [attrs.status, attrs.metadata.errorMessage ?? null, attrs.metadata.errorDetails ?? null];
      second = await call('PUT', `/v1/datasets/${made.id}/data`, CSV, { 'content-type': 'text/csv' });
      racing = await s.services.datasets.ingestWith(await rowOf(made.id), { source: 'upload', pipelineType: 'managed', contentType: 'text/csv', query: null }, async () => ({ contentType: 'text/csv', contentEncoding: undefined })).catch((e: unknown) => e);
      await import('node:fs/promises').then((fs) => fs.writeFile(file, CSV));
      return { contentType: 'text/csv', contentEncoding: undefined };
    });
    expect(whilePending).toEqual(['pending', null, null]);
    expect([second!.statusCode, second!.json().message, second!.json().details]).toEqual([409, 'Record is not upload-ready', 'Data is being ingested; try again when it is done']);
    expect(racing).toMatchObject({ status: 409, message: 'Record is not upload-ready', details: 'Data is being ingested' });
    expect(datasetAttrs(await rowOf(made.id))).toMatchObject({ status: 'ready', metadata: { rowCount: 2, errorMessage: null } });
  });

  it('ends an ingestion that fails unexpectedly in error, saying so without the server paths', async () => {
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Crashing', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    const failing = s.services.datasets.ingestWith(await rowOf(made.id), { source: 'upload', pipelineType: 'managed', contentType: 'text/csv', query: null }, async () => {
      throw new Error(`disk full writing ${s.services.engine.tmpDir}/uploads/x.part`);
    });
    await expect(failing).rejects.toMatchObject({ status: 500, message: 'Ingestion failed', details: 'Error: disk full writing <upload>/uploads/x.part' });
    const shown = (await call('GET', `/v1/datasets/${made.id}`)).json().item;
    expect([shown.status, shown.metadata.errorMessage, shown.metadata.errorDetails, shown.metadata.source]).toEqual(['error', 'Ingestion failed', 'Error: disk full writing <upload>/uploads/x.part', 'upload']);
  });

  it('records how a dataset made from SQL was made', async () => {
    const res = await call('POST', '/v1/datasets/query', JSON.stringify({ name: 'From SQL', query: 'SELECT 1 AS one, 2 AS two' }), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(201);
    const { metadata } = res.json().item;
    expect([metadata.source, metadata.pipelineType, metadata.contentType, metadata.query, metadata.rowCount]).toEqual(['query', 'query', 'application/vnd.apache.parquet', 'SELECT 1 AS one, 2 AS two', 1]);
  });

  it('fails a pending dataset whose node stopped beating, with the message to upload again', async () => {
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Abandoned', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    const row = await rowOf(made.id);
    await s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, status: 'pending' }) }).where('id', '=', made.id).execute();
    const beatAt = (await rowOf(made.id)).updated_at.getTime();
    expect(await s.services.datasets.failStalePending(beatAt + STALE_PENDING_MS - 1)).toBe(0);
    expect(await s.services.datasets.failStalePending(beatAt + STALE_PENDING_MS + 1)).toBeGreaterThanOrEqual(1);
    expect([datasetAttrs(await rowOf(made.id)).status, datasetAttrs(await rowOf(made.id)).metadata.errorMessage]).toEqual(['error', INTERRUPTED]);
  });

  it('moves a dataset only along the status machine: a move it does not allow is refused naming both ends, and changes nothing', async () => {
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Machine', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    expect(made.status).toBe('new');
    const refused = await s.services.datasets.transition(made.id, 'ready', { storageKey: 'datasets/none.parquet' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 409, message: 'Dataset cannot go from new to ready' });
    expect(datasetAttrs(await rowOf(made.id))).toMatchObject({ status: 'new', storageKey: null });
    // A dataset that stays where it is takes the change (a metadata patch of a ready dataset).
    const up = (await call('PUT', `/v1/datasets/${made.id}/data`, CSV, { 'content-type': 'text/csv' })).json().item;
    expect(up.status).toBe('ready');
    await s.services.datasets.transition(made.id, 'ready', { metadata: { description: 'still ready' } as never }, { skipArrow: true });
    expect(datasetAttrs(await rowOf(made.id))).toMatchObject({ status: 'ready', metadata: { rowCount: 2 } });
    const gone = await s.services.datasets.transition('00000000-0000-4000-8000-000000000000', 'pending').catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 409, message: 'Record is not upload-ready' });
  });

  it('reads a dataset an earlier version wrote with the defaults, and keeps through every write the keys it does not know', async () => {
    const made = (await call('POST', '/v1/datasets', JSON.stringify({ name: 'Written long ago', contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
    // As an earlier version stored it: no type, storage key or connection; a metadata with one field, and keys of its own.
    await s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ status: 'new', note: 'kept', metadata: { source: 'upload', legacy: 1 } }) }).where('id', '=', made.id).execute();
    expect(datasetAttrs({ attrs: {} })).toEqual({ datasetType: 'managed', status: 'new', storageKey: null, dataConnectionId: null, metadata: EMPTY_METADATA });
    const read = (await call('GET', `/v1/datasets/${made.id}`)).json().item;
    expect(read).toMatchObject({ type: 'managed', status: 'new', dataConnectionId: null, metadata: { source: 'upload', columns: [], rowCount: null, detected: {}, storageReadPath: null } });
    const up = await call('PUT', `/v1/datasets/${made.id}/data`, CSV, { 'content-type': 'text/csv' });
    expect(up.statusCode).toBe(200);
    const stored = (await rowOf(made.id)).attrs as Record<string, unknown>;
    expect(stored).toMatchObject({ status: 'ready', note: 'kept', metadata: { legacy: 1, rowCount: 2 } });
  });

  it('leaves a dataset the catalog cannot read out of its lists, and answers it with a 500 that shows nothing of it', async () => {
    const make = async (name: string) => (await call('POST', '/v1/datasets', JSON.stringify({ name, contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item.id as string;
    const sound = await make('Sound');
    const broken = await make('Broken');
    const before = (await call('GET', '/v1/datasets?limit=100')).json();
    const row = await rowOf(broken);
    await s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, status: 'lost' }) }).where('id', '=', broken).execute();
    expect(() => datasetAttrs(row.attrs && { id: broken, attrs: { ...row.attrs, status: 'lost' } })).toThrow(`The catalog holds a dataset it cannot read (${broken}): status:`);
    const after = (await call('GET', '/v1/datasets?limit=100')).json();
    const ids = after.items.map((d: { id: string }) => d.id);
    expect(ids).toContain(sound);
    expect(ids).not.toContain(broken);
    expect(after.total).toBe(before.total - 1);
    const one = await call('GET', `/v1/datasets/${broken}`);
    expect(one.statusCode).toBe(500);
    expect(one.json()).toMatchObject({ message: 'Internal Server Error' });
    expect(one.body).not.toContain('lost');
  });

  it("fails at a node's start the ingestions it was running when it stopped, not another node's", async () => {
    const pendingOn = async (name: string, node: string) => {
      const made = (await call('POST', '/v1/datasets', JSON.stringify({ name, contentType: 'text/csv' }), { 'content-type': 'application/json' })).json().item;
      const row = await rowOf(made.id);
      await s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, status: 'pending', ingestNode: node }) }).where('id', '=', made.id).execute();
      return made.id as string;
    };
    // This node's id: STUDIO_NODE_ID, or the one it keeps in its data folder.
    const nodeId = s.services.config.nodeId ?? fs.readFileSync(path.join(s.dataDir, 'node-id'), 'utf8').trim();
    const mine = await pendingOn('Mine, interrupted', nodeId);
    const theirs = await pendingOn('Still arriving elsewhere', 'another-node');
    expect(await s.services.datasets.failOwnInterrupted()).toBe(1);
    expect([datasetAttrs(await rowOf(mine)).status, datasetAttrs(await rowOf(mine)).metadata.errorMessage]).toEqual(['error', INTERRUPTED]);
    expect(datasetAttrs(await rowOf(theirs)).status).toBe('pending');
  });
});

describe('the ingestion heartbeat', () => {
  it('beats at least twice within the time after which a pending dataset is taken for abandoned', () => {
    expect(DEFAULT_TIMING.heartbeatMs * 2).toBeLessThan(STALE_PENDING_MS);
    expect(DEFAULT_TIMING.heartbeatMs).toBeGreaterThanOrEqual(10_000);
  });
});
