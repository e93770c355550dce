import http from 'node:http';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { arrowCopyKey } from '@studio/engine';
import { STORES, useStudio } from './harness';

/**
 * GET /v1/datasets/{id}/data as Arrow over a real socket: batches are written straight to the socket and
 * their buffers reused once written, so an answer of many batches read slowly must still arrive intact.
 */
describe.each(STORES)('dataset data as Arrow over HTTP on %s', (kind) => {
  const { ctx, as, rowOf } = useStudio(kind);
  const ROWS = 300_000; // 5 Arrow batches of 65,536 rows

  const get = (port: number, id: string, opts: { slow?: boolean; cutAfterBytes?: number } = {}) =>
    new Promise<{ status: number; type: string | undefined; body: Buffer; cut: boolean }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: `/v1/datasets/${id}/data`, headers: { authorization: ctx.cast.tokens.owner, accept: 'application/vnd.apache.arrow.stream' } }, (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          parts.push(c);
          size += c.length;
          if (opts.cutAfterBytes !== undefined && size >= opts.cutAfterBytes) {
            req.destroy();
            resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(parts), cut: true });
          } else if (opts.slow) {
            // A slow reader: the server's writes back up, so buffers wait in the socket before reuse.
            res.pause();
            setTimeout(() => res.resume(), 2);
          }
        });
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body: Buffer.concat(parts), cut: false }));
      });
      req.on('error', (e) => (opts.cutAfterBytes !== undefined ? undefined : reject(e)));
    });

  const csvOf = (rows: number) => {
    const lines = ['id,label,value'];
    for (let i = 0; i < rows; i++) lines.push(`${i},${i % 3 === 0 ? '' : `label-${i % 97}`},${i % 5 === 0 ? '' : i * 0.25}`);
    return lines.join('\n');
  };
  const CSV = csvOf(ROWS);

  async function upload(query = ''): Promise<string> {
    const res = await as('owner', 'POST', `/v1/datasets/data?name=Stream${query}`, CSV, { 'content-type': 'text/csv' });
    expect(res.statusCode).toBe(201);
    return res.json().item.id;
  }

  it('arrives complete and in order, read fast or slowly; a client leaving mid-answer leaves the server serving', async () => {
    const id = await upload();
    const address = await ctx.s.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    try {
      for (const slow of [false, true]) {
        const res = await get(port, id, { slow });
        expect(res.status).toBe(200);
        expect(res.type).toBe('application/vnd.apache.arrow.stream');
        const table = tableFromIPC(res.body);
        expect(table.numRows).toBe(ROWS);
        expect(table.batches.length).toBeGreaterThan(3);
        const ids = table.getChild('id')!;
        const labels = table.getChild('label')!;
        const values = table.getChild('value')!;
        for (let i = 0; i < ROWS; i += 997) {
          expect(Number(ids.get(i))).toBe(i);
          expect(labels.get(i)).toBe(i % 3 === 0 ? null : `label-${i % 97}`);
          expect(values.get(i)).toBe(i % 5 === 0 ? null : i * 0.25);
        }
      }
      const cut = await get(port, id, { cutAfterBytes: 1 << 20 });
      expect(cut.cut).toBe(true);
      const again = await get(port, id);
      expect(tableFromIPC(again.body).numRows).toBe(ROWS);
    } finally {
      await ctx.s.app.server.close();
    }
  }, 60_000);

  it('answers replaced data, not the Arrow copy of the data it replaced', async () => {
    const id = await upload();
    const arrow = { accept: 'application/vnd.apache.arrow.stream' };
    expect(tableFromIPC((await as('owner', 'GET', `/v1/datasets/${id}/data`, undefined, arrow)).rawPayload).numRows).toBe(ROWS);
    await ctx.s.services.datasets.arrowCopySettled(id);
    const oldKey = ((await rowOf(id)).attrs as { storageKey: string }).storageKey;
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(oldKey))).toBe(true);
    const put = await as('owner', 'PUT', `/v1/datasets/${id}/data`, 'id,label\n1,a\n2,b\n', { 'content-type': 'text/csv' });
    expect(put.statusCode).toBe(200);
    expect(tableFromIPC((await as('owner', 'GET', `/v1/datasets/${id}/data`, undefined, arrow)).rawPayload).numRows).toBe(2);
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(oldKey))).toBe(false);
  });

  const keyOf = async (id: string) => ((await rowOf(id)).attrs as { storageKey: string }).storageKey;
  const hasCopy = async (id: string) => ctx.s.services.engine.store.exists(arrowCopyKey(await keyOf(id)));
  /** The Arrow answer built from the dataset's Parquet, as a read without a copy answers it. */
  const fromParquet = async (id: string) => {
    const parts: Uint8Array[] = [];
    for await (const p of ctx.s.services.engine.arrowStream(await keyOf(id))) parts.push(Buffer.from(p));
    return Buffer.concat(parts);
  };
  const arrowOf = async (id: string) => {
    const res = await as('owner', 'GET', `/v1/datasets/${id}/data`, undefined, { accept: 'application/vnd.apache.arrow.stream' });
    expect(res.statusCode).toBe(200);
    return res.rawPayload;
  };

  it('writes the Arrow copy at ingestion, without a read, and serves the bytes the Parquet path answers', async () => {
    const id = await upload();
    await ctx.s.services.datasets.arrowCopySettled(id);
    expect(await hasCopy(id)).toBe(true);
    const served = await arrowOf(id);
    expect(Buffer.compare(served, await fromParquet(id))).toBe(0);
    // The same table uploaded with skipArrow: its first read is built from the Parquet, byte for byte the same.
    const skipped = await upload('&skipArrow=true');
    await ctx.s.services.datasets.arrowCopySettled(skipped);
    expect(await hasCopy(skipped)).toBe(false);
    expect(Buffer.compare(await arrowOf(skipped), served)).toBe(0);
    expect(await hasCopy(skipped)).toBe(true);
  });

  it("answers a published map's data from the dataset's Arrow copy: the same bytes, no DuckDB read per viewer", async () => {
    const id = await upload();
    await ctx.s.services.datasets.arrowCopySettled(id);
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Published data', latestState: { kepler: {} }, datasets: [id] })).json().item as { id: string };
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/publish/map`, {})).statusCode).toBeLessThan(300);
    const engine = ctx.s.services.engine;
    const stream = engine.arrowStream;
    let queries = 0;
    engine.arrowStream = (...args: Parameters<typeof stream>) => {
      queries++;
      return stream.apply(engine, args);
    };
    try {
      const res = await ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${map.id}/published-map/datasets/${id}` });
      expect([res.statusCode, res.headers['content-type'], res.headers['content-disposition']]).toEqual([200, 'application/vnd.apache.arrow.stream', undefined]);
      expect(queries).toBe(0);
      expect(Buffer.compare(res.rawPayload, await arrowOf(id))).toBe(0);
    } finally {
      engine.arrowStream = stream;
    }
    expect(tableFromIPC(await arrowOf(id)).numRows).toBe(ROWS);
  });

  it('PUT /{id}/data?skipArrow=true leaves the copy to the first read; without it the new data gets its copy', async () => {
    const id = await upload();
    await ctx.s.services.datasets.arrowCopySettled(id);
    const first = await keyOf(id);
    const put = await as('owner', 'PUT', `/v1/datasets/${id}/data?skipArrow=true`, 'id,label\n1,a\n2,b\n', { 'content-type': 'text/csv' });
    expect(put.statusCode).toBe(200);
    await ctx.s.services.datasets.arrowCopySettled(id);
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(first))).toBe(false);
    expect(await hasCopy(id)).toBe(false);
    expect(tableFromIPC(await arrowOf(id)).numRows).toBe(2);
    expect(await hasCopy(id)).toBe(true);
    const again = await as('owner', 'PUT', `/v1/datasets/${id}/data`, 'id,label\n1,a\n2,b\n3,c\n', { 'content-type': 'text/csv' });
    expect(again.statusCode).toBe(200);
    await ctx.s.services.datasets.arrowCopySettled(id);
    expect(await hasCopy(id)).toBe(true);
    expect(tableFromIPC(await arrowOf(id)).numRows).toBe(3);
  });

  it('data replaced while its copy is written leaves no copy of the replaced data', async () => {
    const id = await upload();
    const first = await keyOf(id);
    // No wait for the first copy: the replacement's ingestion runs while it is written.
    const put = await as('owner', 'PUT', `/v1/datasets/${id}/data`, 'id,label\n1,a\n', { 'content-type': 'text/csv' });
    expect(put.statusCode).toBe(200);
    await ctx.s.services.datasets.arrowCopySettled(id);
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(first))).toBe(false);
    expect(await hasCopy(id)).toBe(true);
    expect(tableFromIPC(await arrowOf(id)).numRows).toBe(1);
  });

  it('a clone gets a copy of its source\'s Arrow copy', async () => {
    const id = await upload();
    await ctx.s.services.datasets.arrowCopySettled(id);
    const clone = await as('owner', 'POST', `/v1/datasets/${id}/clone`);
    expect(clone.statusCode).toBe(201);
    const cloneId = clone.json().item.id as string;
    expect(await keyOf(cloneId)).not.toBe(await keyOf(id));
    expect(await hasCopy(cloneId)).toBe(true);
    expect(Buffer.compare(await arrowOf(cloneId), await fromParquet(id))).toBe(0);
  });

  it.each([
    ['a signed-policy upload', async () => {
      const created = await as('owner', 'POST', '/v1/datasets', { name: 'Via policy', contentType: 'text/csv' });
      const { id, signedPostPolicy: p } = created.json().item;
      const res = await ctx.s.app.inject({ method: 'POST', url: `/v1/uploads?policy=${p.fields.policy}&signature=${p.fields.signature}`, payload: 'a,b\n1,2\n', headers: { 'content-type': 'text/csv' } });
      expect(res.statusCode).toBe(200);
      return id as string;
    }],
    ['a query', async () => {
      const source = await upload();
      const res = await as('owner', 'POST', '/v1/datasets/query', { name: 'Q', query: `select id, value from "${source}" where id < 10` });
      expect(res.statusCode).toBe(201);
      return res.json().item.id as string;
    }],
    ['a workbench query', async () => {
      const source = await upload();
      const target = await upload();
      await ctx.s.services.datasets.arrowCopySettled(target);
      const res = await as('owner', 'POST', `/v1/datasets/${target}/workbench`, { workbenchDataSource: `select id from "${source}" where id < 5` });
      expect(res.statusCode).toBe(200);
      return target;
    }],
  ])('writes the copy after %s', async (_, make) => {
    const id = await make();
    await ctx.s.services.datasets.arrowCopySettled(id);
    expect(await hasCopy(id)).toBe(true);
    const served = await arrowOf(id);
    expect(Buffer.compare(served, await fromParquet(id))).toBe(0);
  });

  it('answers 404 before any byte for a dataset the caller cannot see', async () => {
    const id = await upload();
    const res = await as('outsider', 'GET', `/v1/datasets/${id}/data`, undefined, { accept: 'application/vnd.apache.arrow.stream' });
    expect(res.statusCode).toBe(404);
  });
});
