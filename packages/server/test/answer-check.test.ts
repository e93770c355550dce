import { Readable } from 'node:stream';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { itemOf, StudioRecord } from '@studio/schema';
import type { FastifyReply } from 'fastify';
import { checkAnswer, declaresAnswer } from '../src/http/route';
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

  it('is declared by every route: a JSON schema, the media types it sends, or nothing (204)', () => {
    const undeclared = allRoutes.filter((r) => !declaresAnswer(r)).map((r) => `${r.method} ${r.url}`);
    expect(undeclared).toEqual([]);
    const records = allRoutes.filter((r) => r.method === 'GET' && /^\/v1\/(maps|insights|workbooks|datasets|projects|map-assets|data-connections)(\/for-organization|\/shared-with-user)?$/.test(r.url));
    expect(records.filter((r) => !r.response).map((r) => r.url)).toEqual([]);
    // A record answered one at a time declares the record, open to the kind's own fields.
    expect(() => checkAnswer({ method: 'GET', url: '/v1/maps/{id}', response: itemOf(StudioRecord) }, { item: { id: 'x' } })).toThrow(/answered outside/);
  });
});

/** A reply as far as the check reads it: its status and content type. */
const replyOf = (statusCode: number, contentType?: string) => ({ statusCode, sent: true, getHeader: (name: string) => (name === 'content-type' ? contentType : undefined) }) as unknown as FastifyReply;

describe('answers other than JSON checked against their declared media types and 204s', () => {
  const tile = { method: 'GET' as const, url: '/v1/tiles/{z}', produces: ['application/x-protobuf'] };
  const download = { method: 'GET' as const, url: '/v1/data', produces: ['text/csv'], response: itemOf(z.object({ id: z.string() })) };
  const nothing = { method: 'DELETE' as const, url: '/v1/things/{id}', status: 204 };

  it.each([
    ['a declared type, parameters aside', tile, replyOf(200, 'application/x-protobuf; charset=binary')],
    ['an empty tile (204, no type)', tile, replyOf(204)],
    ['a 304 of a cached tile', tile, replyOf(304)],
    ['a route answering either a download or JSON, as a download', download, replyOf(200, 'text/csv; charset=utf-8')],
  ])('lets %s through', (_label, def, reply) => {
    expect(() => checkAnswer(def, reply, reply)).not.toThrow();
  });

  it('checks the JSON answer of a route that also sends downloads', () => {
    expect(() => checkAnswer(download, { item: { id: 'a' } }, replyOf(200))).not.toThrow();
    expect(() => checkAnswer(download, { item: {} }, replyOf(200))).toThrow(/answered outside its declared response/);
  });

  it.each([
    ['another media type', tile, replyOf(200, 'application/json'), /GET \/v1\/tiles\/\{z\} answered application\/json, not one of its declared application\/x-protobuf/],
    ['bytes sent without a type (octet-stream)', tile, replyOf(200), /answered application\/octet-stream/],
  ])('fails the call for %s', (_label, def, reply, message) => {
    expect(() => checkAnswer(def, reply, reply)).toThrow(message);
  });

  it('fails a JSON value from a route declared to send only bytes, and a value from a route declared to answer nothing', () => {
    expect(() => checkAnswer(tile, { item: 1 }, replyOf(200))).toThrow(/answered JSON, not one of its declared application\/x-protobuf/);
    expect(() => checkAnswer(nothing, { item: 1 }, { ...replyOf(200), sent: false } as FastifyReply)).toThrow(/declared to answer nothing \(204\)/);
    expect(() => checkAnswer(nothing, undefined, replyOf(200))).not.toThrow();
  });
});
