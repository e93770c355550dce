import { Readable } from 'node:stream';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { itemOf, StudioRecord } from '@studio/schema';
import { checkAnswer } from '../src/http/route';
import { allRoutes } from '../src/routes';

/** What STUDIO_CHECK_ANSWERS=on does with an answer (http/route.ts): the declaration holds, or the call fails. */
const route = { method: 'GET' as const, url: '/v1/things/{id}', response: itemOf(z.object({ id: z.string(), count: z.number() })) };

describe('answers checked against their declared response', () => {
  it.each([
    ['an answer as declared', { item: { id: 'a', count: 1 } }],
    ['one with keys the declaration does not name (declarations are open)', { item: { id: 'a', count: 1, extra: { any: 'thing' } } }],
    ['a stream', Readable.from(['x'])],
    ['bytes', Buffer.from('x')],
  ])('lets %s through', (_label, answer) => {
    expect(() => checkAnswer(route, answer)).not.toThrow();
  });

  it.each([
    ['a field missing', { item: { id: 'a' } }, /GET \/v1\/things\/\{id\} answered outside its declared response[\s\S]*count/],
    ['a field of another type', { item: { id: 'a', count: '1' } }, /count/],
    ['no item at all', { items: [] }, /item/],
  ])('fails the call for %s, naming the route and the field', (_label, answer, message) => {
    expect(() => checkAnswer(route, answer)).toThrow(message);
  });

  it('is declared by every record collection and every call answering one record', () => {
    const undeclared = allRoutes.filter((r) => r.method === 'GET' && /^\/v1\/(maps|insights|workbooks|datasets|projects|map-assets|data-connections)(\/for-organization|\/shared-with-user)?$/.test(r.url) && !r.response).map((r) => r.url);
    expect(undeclared).toEqual([]);
    // A record answered one at a time declares the record, open to the kind's own fields.
    expect(() => checkAnswer({ method: 'GET', url: '/v1/maps/{id}', response: itemOf(StudioRecord) }, { item: { id: 'x' } })).toThrow(/answered outside/);
  });
});
