import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * Published maps are meant to be embedded in other sites: their answers (and their tiles and basemaps)
 * are readable from any origin, a protected one still only with its password or grant, and nothing else
 * of the API is.
 */
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\n';
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
const ORIGIN = 'http://127.0.0.2:5173';

describe.each(STORES)('embedding published maps on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const anonymous = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    ctx.s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { origin: ORIGIN, ...headers } });

  const publishedMap = async (password?: string) => {
    const dataset = (await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Landmarks', payload: CSV, headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } })).json().item.id as string;
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Embedded', latestState: STATE, datasets: [dataset] })).json().item.id as string;
    expect((await as('owner', 'POST', `/v1/maps/${map}/publish/map`, password ? { password } : {})).statusCode).toBe(201);
    return { map, dataset };
  };

  it('answers a public published map, its data and the basemaps to any origin', async () => {
    const { map, dataset } = await publishedMap();
    for (const url of [`/v1/maps/${map}/published-map`, `/v1/maps/${map}/published-map/datasets/${dataset}`, '/v1/basemaps']) {
      const res = await anonymous('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['access-control-allow-origin'], url).toBe('*');
      expect(String(res.headers['access-control-expose-headers'])).toContain('x-request-id');
    }
  });

  it('lets a page on another origin send the password and the grant (preflight), and still asks for them', async () => {
    const { map, dataset } = await publishedMap('open sesame');
    const preflight = await anonymous('OPTIONS', `/v1/maps/${map}/published-map/password`, undefined, { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('x-map-grant');
    const refused = await anonymous('GET', `/v1/maps/${map}/published-map`);
    expect([refused.statusCode, refused.headers['access-control-allow-origin']]).toEqual([401, '*']);
    const granted = await anonymous('POST', `/v1/maps/${map}/published-map/password`, { password: 'open sesame' });
    expect(granted.statusCode).toBe(200);
    const grant = granted.json().item.grant?.token ?? granted.json().grant?.token;
    expect(typeof grant).toBe('string');
    const data = await anonymous('GET', `/v1/maps/${map}/published-map/datasets/${dataset}`, undefined, { 'x-map-grant': grant });
    expect([data.statusCode, data.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });

  it('keeps every other call closed to other origins', async () => {
    for (const [method, url] of [['GET', '/v1/datasets'], ['GET', '/v1/maps'], ['POST', '/v1/auth/sign-in']] as const) {
      const res = await ctx.s.app.inject({ method, url, headers: { origin: ORIGIN, authorization: ctx.cast.tokens.owner } });
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
    }
    const preflight = await anonymous('OPTIONS', '/v1/datasets', undefined, { 'access-control-request-method': 'GET' });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});
