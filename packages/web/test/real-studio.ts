import { afterAll, beforeAll, vi } from 'vitest';
import { seedCast, startStudio, type Cast, type TestStudio, type Who } from '../../server/test/harness';
import { configFromEnv } from '../../server/src/config';

/**
 * A real studio for the web app's unit tests (#12): the server of packages/server on a fresh embedded
 * catalog, listening on 127.0.0.1, with the permission tests' cast. `serve()` points the browser's
 * same-origin fetch (`/v1/...`) at it, so every answer the component sees is the server's own; only
 * failures a studio cannot be made to answer (an outage, the HTML fallback) stay stubbed elsewhere.
 */
export function useRealStudio() {
  const ctx = {} as { s: TestStudio; cast: Cast; address: string };
  beforeAll(async () => {
    // One user runs every workbook of a file within a temporary view's 60 s: more views than a user's 20 (#45).
    ctx.s = await startStudio('pglite', { userWork: { ...configFromEnv().userWork, tempViewsPerUser: 100 } });
    ctx.cast = await seedCast(ctx.s);
    ctx.address = await ctx.s.app.listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);
  afterAll(async () => ctx.s?.dispose());

  /** Same-origin requests go to the studio; answers the paths requested, in order. */
  const serve = () => {
    const calls: string[] = [];
    const real = globalThis.fetch;
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      calls.push(url);
      return real(new URL(url, ctx.address), init);
    });
    return calls;
  };
  /** The bearer token of a cast member, without its "Bearer " prefix (as the web app keeps it). */
  const tokenOf = (who: Who) => ctx.cast.tokens[who].replace(/^Bearer /, '');
  return { ctx, serve, tokenOf };
}
