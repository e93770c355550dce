import { describe, expect, it, vi } from 'vitest';
import { STORES, useStudio } from './harness';

/** What an operator's probes and a user's error report rely on, on both catalogs. */
describe.each(STORES)('readiness and request ids on %s', (kind) => {
  const { ctx, as } = useStudio(kind);

  it('answers ready when the catalog, the engine and Redis (if configured) answer', async () => {
    const res = await ctx.s.app.inject({ method: 'GET', url: '/v1/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json().item).toMatchObject({ status: 'ready', checks: { catalog: 'ok', engine: 'ok' } });
    expect(['ok', 'not configured']).toContain(res.json().item.checks.redis);
  });

  it('answers 503 naming the part that does not answer, with every check', async () => {
    const down = vi.spyOn(ctx.s.services.engine, 'query').mockRejectedValueOnce(new Error('engine down'));
    try {
      const res = await ctx.s.app.inject({ method: 'GET', url: '/v1/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json().item).toMatchObject({ status: 'not ready', checks: { catalog: 'ok', engine: 'unreachable' } });
      expect(['ok', 'not configured']).toContain(res.json().item.checks.redis);
    } finally {
      down.mockRestore();
    }
  });

  it('answers health and the tiers to anyone, every field of each', async () => {
    const health = await ctx.s.app.inject({ method: 'GET', url: '/v1/health' });
    expect(health.json()).toEqual({ item: { status: 'ok', store: kind === 'postgres' ? 'postgres' : 'pglite', version: '0.1.0' } });
    const tiers = (await ctx.s.app.inject({ method: 'GET', url: '/v1/tiers' })).json().items;
    expect(tiers.map((t: { id: string }) => t.id)).toEqual(['self-hosted']);
    expect(Object.keys(tiers[0]).sort()).toEqual(['description', 'features', 'id', 'maxQuota', 'name']);
    expect(tiers[0].features.length).toBeGreaterThan(0);
  });

  it('names each request in X-Request-Id, and an error answer by the same id', async () => {
    const ok = await as('owner', 'GET', '/v1/health');
    const refused = await as('outsider', 'GET', '/v1/datasets/00000000-0000-4000-8000-000000000000');
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(refused.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().requestId).toBe(refused.headers['x-request-id']);
    const unknown = await as('owner', 'GET', '/v1/no-such-call');
    expect(unknown.json().requestId).toBe(unknown.headers['x-request-id']);
  });

  it("keeps a proxy's plain request id, and replaces one that is not", async () => {
    const kept = await ctx.s.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': 'edge-4f9c2a71' } });
    expect(kept.headers['x-request-id']).toBe('edge-4f9c2a71');
    const replaced = await ctx.s.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': 'bad id\r\nX-Evil: 1' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.each(STORES)('metrics on %s', (kind) => {
  const { ctx, as } = useStudio(kind);

  it('serves Prometheus metrics to administrators only: requests by route pattern, work waiting, DuckDB memory', async () => {
    await as('owner', 'GET', '/v1/datasets');
    await as('owner', 'GET', '/v1/datasets/00000000-0000-4000-8000-000000000000');
    expect((await ctx.s.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await as('outsider', 'GET', '/metrics')).statusCode).toBe(403);
    const res = await as('admin', 'GET', '/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/studio_http_requests_total\{method="GET",route="\/v1\/datasets",status="200"\} [1-9]/);
    // By pattern: the id is not a label value.
    expect(res.body).toMatch(/route="\/v1\/datasets\/:id",status="404"/);
    expect(res.body).not.toContain('00000000-0000-4000-8000-000000000000');
    expect(res.body).toMatch(/studio_work_waiting\{kind="ingestions"\} \d+/);
    expect(res.body).toMatch(/studio_duckdb_memory_bytes \d+/);
    expect(res.body).toContain('studio_http_request_duration_seconds_bucket');
  });
});

/** The installation's settings the web app shows (#50: the map's tile threshold, printed in the layer panel). */
describe('static configuration for the web app', () => {
  const { ctx, as } = useStudio(STORES[0]!, { mapTileThreshold: { rows: 1_234, bytes: 5 * 2 ** 20 } });

  it("answers this installation's tile threshold to a signed-in user, and nothing to anyone else", async () => {
    const res = await as('viewer', 'GET', '/v1/static-configs');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().item).toMatchObject({ mapTileThreshold: { rows: 1_234, bytes: 5 * 2 ** 20 }, h3ResolutionBounds: [0, 15] });
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/static-configs' })).statusCode).toBe(401);
  });
});
