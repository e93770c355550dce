import http from 'node:http';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { arrowCopyKey } from '@studio/engine';
import { useStudio } from './harness';

/**
 * GET /v1/datasets/{id}/data as Arrow over a real socket: batches are written straight to the socket and
 * their buffers reused once written, so an answer of many batches read slowly must still arrive intact.
 */
describe('dataset data as Arrow over HTTP', () => {
  const { ctx, as, rowOf } = useStudio('pglite');
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

  async function upload(): Promise<string> {
    const lines = ['id,label,value'];
    for (let i = 0; i < ROWS; i++) lines.push(`${i},${i % 3 === 0 ? '' : `label-${i % 97}`},${i % 5 === 0 ? '' : i * 0.25}`);
    const res = await as('owner', 'POST', '/v1/datasets/data?name=Stream', lines.join('\n'), { 'content-type': 'text/csv' });
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
    const oldKey = ((await rowOf(id)).attrs as { storageKey: string }).storageKey;
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(oldKey))).toBe(true);
    const put = await as('owner', 'PUT', `/v1/datasets/${id}/data`, 'id,label\n1,a\n2,b\n', { 'content-type': 'text/csv' });
    expect(put.statusCode).toBe(200);
    expect(tableFromIPC((await as('owner', 'GET', `/v1/datasets/${id}/data`, undefined, arrow)).rawPayload).numRows).toBe(2);
    expect(await ctx.s.services.engine.store.exists(arrowCopyKey(oldKey))).toBe(false);
  });

  it('answers 404 before any byte for a dataset the caller cannot see', async () => {
    const id = await upload();
    const res = await as('outsider', 'GET', `/v1/datasets/${id}/data`, undefined, { accept: 'application/vnd.apache.arrow.stream' });
    expect(res.statusCode).toBe(404);
  });
});
