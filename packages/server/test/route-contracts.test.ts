import Fastify from 'fastify';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Tag, itemsOf } from '@studio/schema';
import { answerSerializationSchema } from '../src/http/answer-schema';
import { allRoutes } from '../src/routes';

const tag = { id: '6f1c0e0a-5b7a-4f7e-9f3a-1a2b3c4d5e6f', name: 'Needs review', color: '#ff0000', organizationId: null, ownerId: '6f1c0e0a-5b7a-4f7e-9f3a-1a2b3c4d5e6f', resources: [{ resourceType: 'map', resourceId: '6f1c0e0a-5b7a-4f7e-9f3a-1a2b3c4d5e6f' }], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };

/** What Fastify writes for an answer under a contract's response schema, through its own serializer. */
async function written(response: z.ZodType, answer: unknown): Promise<unknown> {
  const app = Fastify();
  app.get('/x', { schema: { response: { 200: answerSerializationSchema(response) } } }, async () => answer);
  const res = await app.inject({ method: 'GET', url: '/x' });
  await app.close();
  return res.json();
}

describe('answers written from the route contracts (packages/schema/src/api)', () => {
  it('writes every declared field as it was and leaves out the fields a contract does not declare', async () => {
    const declared = Tag.parse(tag);
    const answer = { items: [{ ...declared, secret: 'hash' }], total: 1, debug: true };
    expect(await written(itemsOf(Tag), answer)).toEqual({ items: [declared], total: 1 });
  });

  it('keeps nulls, open values (unknown) and loose objects as they are', async () => {
    const response = z.object({ a: z.string().nullable(), state: z.unknown(), loose: z.looseObject({ id: z.string() }), n: z.number().int().nullable() });
    const answer = { a: null, state: { deep: [1, { x: null }] }, loose: { id: 'i', more: 2 }, n: 3 };
    expect(await written(response, answer)).toEqual(answer);
  });

  it("compiles a serializer for every contract's answer", async () => {
    const app = Fastify();
    const routes = allRoutes.filter((r) => r.serializeAnswer && r.response && r.status !== 204);
    expect(routes.length).toBeGreaterThan(0);
    for (const [i, r] of routes.entries()) app.get(`/r${i}`, { schema: { response: { [String(r.status ?? 200)]: answerSerializationSchema(r.response!) } } }, async () => ({}));
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });
});
