import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioClient, historyCalls, versionConflictOf } from '../src';

const MAP = '11111111-1111-4111-8111-111111111111';
const CHANGE = { area: 'layer', id: 'stops', label: 'Stops', kind: 'changed', property: 'color', before: [230, 30, 30], after: [30, 30, 230] };
const SUMMARY = { n: 2, createdAt: '2026-12-02T04:00:00.000Z', createdBy: null, message: 'Blue stops', source: 'builder', schemaVersion: 1, restoredFrom: null, pins: [] };

/** A real HTTP server answering the history calls of one map the way the contract says. */
const ANSWERS: Record<string, [number, unknown]> = {
  [`GET /v1/maps/${MAP}/versions`]: [200, { items: [SUMMARY] }],
  [`GET /v1/maps/${MAP}/versions/1/diff/2`]: [200, { from: 1, to: 2, changes: [CHANGE] }],
  [`PUT /v1/maps/${MAP}`]: [409, { appStatusCode: 409, message: 'Someone saved this map meanwhile', error: 'Someone saved this map meanwhile', latest: 3, changes: [CHANGE] }],
  [`POST /v1/maps/${MAP}/versions/9/restore`]: [404, { appStatusCode: 404, message: 'No version 9' }],
};

let server: http.Server;
let client: StudioClient;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [status, body] = ANSWERS[`${req.method} ${req.url!.split('?')[0]}`] ?? [404, { appStatusCode: 404, message: 'nope' }];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new StudioClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the history calls (#51)', () => {
  it('lists versions and reads a diff, checked against the contract', async () => {
    const maps = historyCalls(client, 'maps');
    expect(await maps.list(MAP)).toEqual([SUMMARY]);
    expect((await maps.diff(MAP, 1, 2)).changes).toEqual([CHANGE]);
  });

  it('hands a refused save its conflict (the latest version and the changes made meanwhile), and nothing for other errors', async () => {
    const maps = historyCalls(client, 'maps');
    const refused = await maps.save(MAP, { latestState: {}, baseVersion: 1 }).catch((e: unknown) => e);
    expect(versionConflictOf(refused)).toEqual({ error: 'Someone saved this map meanwhile', latest: 3, changes: [CHANGE] });
    expect((refused as Error).message).toBe('Someone saved this map meanwhile');
    const missing = await maps.restore(MAP, 9).catch((e: unknown) => e);
    expect(versionConflictOf(missing)).toBeNull();
  });
});
