import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

interface Operation {
  parameters: { name: string; in: 'path' | 'query' }[];
  requestBody?: unknown;
}

/** Values that have broken servers before: wrong types, traversal, overlong, unicode, injection. */
/** encodeURIComponent refuses a lone surrogate; a client can still send its WTF-8 bytes. */
const pathSegment = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%BD';
  }
};

const nasty = fc.oneof(
  fc.uuid(),
  fc.string(),
  fc.constantFrom('', ' ', '..%2F..%2Fetc%2Fpasswd', "'; drop table users; --", '%00', 'null', 'true', '-1', '1e309', 'NaN', '😀', 'a'.repeat(5000), 'map', 'dataset', '0'),
  // Text the catalog cannot store (#11): NUL, lone surrogates, and over-long values.
  fc.constantFrom('\u0000', 'a\u0000b', '\ud83d\ud83d', 'x\udc00', '\udfff', 'a'.repeat(100_000)),
  fc.integer().map(String),
);

describe.each(STORES)('no 500 on malformed input (OpenAPI-driven) on %s', (kind) => {
  let s: TestStudio;
  let token: string;
  beforeAll(async () => {
    s = await startStudio(kind);
    token = (await seedCast(s)).tokens.admin;
  });
  afterAll(async () => s?.dispose());

  it('answers every documented operation with a status below 500', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
    expect(operations.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const { path, method, op } of operations) {
      const queryNames = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            pathValues: fc.array(nasty, { minLength: 6, maxLength: 6 }),
            query: fc.dictionary(fc.constantFrom(...queryNames, 'isAdmin', 'limit', 'offset'), nasty, { maxKeys: 4 }),
            body: fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.string(), fc.dictionary(fc.constantFrom('name', 'description', 'query', 'email', 'tags', 'latestState'), nasty, { maxKeys: 3 })),
            withToken: fc.boolean(),
          }),
          async ({ pathValues, query, body, withToken }) => {
            let i = 0;
            const url = path.replace(/\{\w+\}/g, () => pathSegment(pathValues[i++ % pathValues.length]!));
            const qs = new URLSearchParams(query).toString();
            const payload = method === 'GET' ? undefined : typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
            const res = await s.app.inject({
              method: method as 'GET',
              url: `${url}${qs ? `?${qs}` : ''}`,
              payload,
              headers: { ...(withToken && { authorization: token }), ...(payload !== undefined && { 'content-type': 'application/json' }) },
            });
            if (res.statusCode >= 500) failures.push(`${method} ${url}?${qs} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
            return true;
          },
        ),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 6), seed: 42 },
      );
    }
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
