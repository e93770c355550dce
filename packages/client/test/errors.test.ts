import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StudioClient, StudioApiError, UNKNOWN_SERVER_ERROR } from '../src';

/** A real HTTP server answering each path with a fixed status, content type and body. */
const ANSWERS: Record<string, [number, string, string]> = {
  '/json-with-details': [422, 'application/json', JSON.stringify({ appStatusCode: 4221, message: 'Bad pipeline', details: 'at input[0] (filter)' })],
  '/json-no-details': [404, 'application/json', JSON.stringify({ appStatusCode: 404, message: 'Map not found' })],
  '/json-no-message': [500, 'application/json', JSON.stringify({ appStatusCode: 500 })],
  '/text': [502, 'text/plain', 'upstream exploded'],
  '/empty': [503, 'text/plain', ''],
  '/ok': [200, 'application/json', JSON.stringify({ item: { id: 1 } })],
};

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [status, type, body] = ANSWERS[req.url!.split('?')[0]!] ?? [404, 'text/plain', 'nope'];
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('client error handling (analytics-and-admin §8)', () => {
  it.each([
    ['/json-with-details', 422, 'Bad pipeline (at input[0] (filter))', 4221],
    ['/json-no-details', 404, 'Map not found', 404],
    ['/json-no-message', 500, UNKNOWN_SERVER_ERROR, 500],
    ['/text', 502, 'upstream exploded', undefined],
    ['/empty', 503, UNKNOWN_SERVER_ERROR, undefined],
  ])('%s raises status %i with message %j', async (path, status, message, appStatusCode) => {
    const client = new StudioClient({ baseUrl: base });
    const error = await client.request('GET', path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioApiError);
    const e = error as StudioApiError;
    expect(e.status).toBe(status);
    expect(e.message).toBe(message);
    expect(e.appStatusCode).toBe(appStatusCode);
    expect(e.debugMessage).toBe(`Server Error: ${message} when calling ${base}${path}`);
  });

  it('lets the app-level handler run first and stop the generic error', async () => {
    const seen: number[] = [];
    const client = new StudioClient({ baseUrl: base, onError: (res) => (seen.push(res.status), res.status === 404) });
    const handled = (await client.request('GET', '/json-no-details').catch((e: unknown) => e)) as StudioApiError;
    expect(handled.message).toBe('Handled by the application');
    const unhandled = (await client.request('GET', '/text').catch((e: unknown) => e)) as StudioApiError;
    expect(unhandled.message).toBe('upstream exploded');
    expect(seen).toEqual([404, 502]);
  });

  it('sends the default token and reads ok bodies', async () => {
    const client = new StudioClient({ baseUrl: base });
    expect(client.token).toBe('not-signed-in');
    await expect(client.request('GET', '/ok')).resolves.toEqual({ item: { id: 1 } });
  });
});
