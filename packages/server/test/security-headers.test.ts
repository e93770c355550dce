import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStudio, type TestStudio } from './harness';

/**
 * Security headers as a browser reads them: every answer carries the content security policy and forbids
 * MIME sniffing and framing by other sites; a published map's page (/public/{id}) may be framed anywhere
 * (the publish dialog's embed code), and the API answers meant for other sites (published data, tiles,
 * basemaps) are readable across origins. The browser tests check that the web app passes the policy: each
 * of them fails on any violation the browser reports. The headers do not depend on the catalog: one store.
 */
let s: TestStudio;
let webDir: string;
beforeAll(async () => {
  webDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-web-'));
  await fs.writeFile(path.join(webDir, 'index.html'), '<!doctype html><div id="root"></div>');
  await fs.mkdir(path.join(webDir, 'assets'));
  await fs.writeFile(path.join(webDir, 'assets', 'index-abc.js'), 'console.log(1)');
  await fs.writeFile(path.join(webDir, 'assets', 'index-abc.js.map'), '{"version":3,"sources":["src/secret.ts"]}');
  s = await startStudio('pglite', { webDir });
});
afterAll(async () => {
  await s?.dispose();
  await fs.rm(webDir, { recursive: true, force: true });
});

const get = (url: string) => s.app.inject({ method: 'GET', url });
const policy = (header: unknown) => new Map(String(header).split(';').map((d) => { const [name, ...values] = d.trim().split(/\s+/); return [name!, values.join(' ')]; }));

describe('security headers', () => {
  it.each([
    ['an app page', '/workspace/maps'],
    ['an API answer', '/v1/health'],
    ['an API error', '/v1/maps'],
    ['the API docs', '/docs'],
  ])('%s: the policy, no sniffing, no framing by other sites', async (_label, url) => {
    const res = await get(url);
    const csp = policy(res.headers['content-security-policy']);
    expect(csp.get('default-src')).toBe("'self'");
    expect(csp.get('script-src')).toBe("'self' 'wasm-unsafe-eval'");
    expect(csp.get('object-src')).toBe("'none'");
    expect(csp.get('frame-ancestors')).toBe("'self'");
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('lets any site frame a published map page, with the same policy otherwise', async () => {
    const res = await get('/public/4b1f2c8e-0000-4000-8000-000000000000?embed=1');
    expect(res.statusCode).toBe(200);
    const csp = policy(res.headers['content-security-policy']);
    expect(csp.get('frame-ancestors')).toBe('*');
    expect(csp.get('script-src')).toBe("'self' 'wasm-unsafe-eval'");
    expect(res.headers['x-frame-options']).toBeUndefined();
  });

  it('lets other sites read the embeddable API answers (basemaps, published data) and nothing else', async () => {
    expect((await get('/v1/basemaps')).headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect((await get('/v1/health')).headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('serves the API docs without inline script: the page loads /docs/app.js', async () => {
    const page = (await get('/docs')).body;
    expect(page).toContain('<script src="/docs/app.js"></script>');
    expect(page).not.toMatch(/<script>/);
    const script = await get('/docs/app.js');
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).toContain("fetch('/v1/openapi.json')");
  });

  it("serves the web app's files but not its source maps", async () => {
    expect((await get('/assets/index-abc.js')).statusCode).toBe(200);
    const map = await get('/assets/index-abc.js.map');
    expect(map.statusCode).toBe(404);
    expect(map.body).not.toContain('secret.ts');
    // A malformed escape is the client's mistake (the router refuses it before the app's files are looked up).
    expect((await get('/%E0%A4%A')).statusCode).toBe(400);
  });
});
