import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createUser } from '../src/services/users';
import { DEFAULT_RATE_LIMITS, backoffWait } from '../src/services/rate-limits';
import { PASSWORD, STORES, seedCast, startStudio, type Cast, type TestStudio } from './harness';

/**
 * Security issue #11, item 4: throttling of sign-ins, published-map passwords, invitations and
 * test-connection, with the production limits (DEFAULT_RATE_LIMITS), on in-process counters and on
 * Redis shared by two studios. Time is the studios' injected clock: nothing sleeps.
 */
const REDIS_URL = 'redis://127.0.0.1:6379';
const ATTACKER = '203.0.113.7';
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\n';

const cases = STORES.flatMap((kind) => (['in-process', 'Redis'] as const).map((counters) => [kind, counters] as const));

describe.each(cases)('rate limits on %s with %s counters', (kind, counters) => {
  const prefix = `studio-test:${randomBytes(6).toString('hex')}:`;
  const overrides = counters === 'Redis' ? { redisUrl: REDIS_URL, redisPrefix: prefix } : {};
  /** Node `a`, and `b`: a second studio on the same Redis (with in-process counters, `a` itself). */
  let a: TestStudio;
  let b: TestStudio;
  let cast: Cast;
  let now = Date.now();
  const advance = (ms: number) => (now += ms);

  beforeAll(async () => {
    a = await startStudio(kind, overrides);
    cast = await seedCast(a); // every cast member signs in once from 127.0.0.1
    b = counters === 'Redis' ? await startStudio(kind, overrides) : a;
    if (b !== a) await seedCast(b);
    for (const node of new Set([a, b])) node.services.limits.clock.now = () => now;
  });
  afterAll(async () => {
    if (counters === 'Redis') {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
    if (b !== a) await b?.dispose();
    await a?.dispose();
  });

  const signIn = (node: TestStudio, password: string, address: string, email = 'admin@acme.test') =>
    node.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email, password }, remoteAddress: address });

  it('backs off after 5 wrong sign-ins: the right password from a new address waits, from an address that signed in recently it works', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await signIn(a, `guess ${i}`, ATTACKER)).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    // The right password, from an address that never signed in to this account (on the other node).
    const blocked = await signIn(b, PASSWORD, '198.51.100.9');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1');
    expect(blocked.json()).toMatchObject({ appStatusCode: 429, message: 'Too many failed sign-ins for this account; try again in 1 s' });
    expect((await signIn(b, PASSWORD, ATTACKER)).statusCode).toBe(429);
    // The administrator's own address signed in a moment ago: not locked out.
    expect((await signIn(b, PASSWORD, '127.0.0.1')).statusCode).toBe(200);

    // The wait grows with each failure (1 s, then 2 s) and ends: a back-off, not a lock.
    advance(1000);
    expect((await signIn(a, 'another guess', '198.51.100.10')).statusCode).toBe(401);
    const longer = await signIn(a, PASSWORD, '198.51.100.11');
    expect([longer.statusCode, longer.headers['retry-after']]).toEqual([429, '2']);
    advance(2000);
    expect((await signIn(a, PASSWORD, '198.51.100.11')).statusCode).toBe(200);
    // Another account is not affected.
    expect((await signIn(a, PASSWORD, ATTACKER, 'owner@acme.test')).statusCode).toBe(200);
  });

  it('caps the back-off at 15 minutes', () => {
    const s = DEFAULT_RATE_LIMITS.signIn;
    expect([backoffWait(4, now, now, s), backoffWait(5, now, now, s), backoffWait(8, now, now, s), backoffWait(500, now, now, s)]).toEqual([0, 1000, 8000, 15 * 60_000]);
  });

  describe('published-map passwords', () => {
    let mapId: string;
    let datasetId: string;
    const anon = (method: 'GET' | 'POST', url: string, address: string, opts: { payload?: object; headers?: Record<string, string> } = {}) =>
      a.app.inject({ method, url, remoteAddress: address, ...opts });
    const unlock = (password: string, address: string) => anon('POST', `/v1/maps/${mapId}/published-map/password`, address, { payload: { password } });
    const data = (address: string, headers: Record<string, string>) => anon('GET', `/v1/maps/${mapId}/published-map/datasets/${datasetId}`, address, { headers });

    beforeAll(async () => {
      const owner = { authorization: cast.tokens.owner };
      const upload = await a.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Landmarks', payload: CSV, headers: { ...owner, 'content-type': 'text/csv' } });
      datasetId = upload.json().item.id;
      const map = await a.app.inject({ method: 'POST', url: '/v1/maps', payload: { name: 'Protected', latestState: STATE, datasets: [datasetId] }, headers: owner });
      mapId = map.json().item.id;
      expect((await a.app.inject({ method: 'POST', url: `/v1/maps/${mapId}/publish/map`, payload: { password: 'open sesame' }, headers: owner })).statusCode).toBe(201);
    });

    it('backs off wrong passwords, through the password route and the password header alike', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await unlock(`guess ${i}`, ATTACKER)).statusCode);
      expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429, 429]);
      const right = await unlock('open sesame', ATTACKER);
      expect([right.statusCode, right.headers['retry-after']]).toEqual([429, '1']);
      expect(right.json().message).toBe('Too many wrong passwords for this map; try again in 1 s');
      expect((await data(ATTACKER, { 'x-map-password': 'open sesame' })).statusCode).toBe(429);
      // A reader from elsewhere waits out the map-wide back-off, then gets in.
      expect((await unlock('open sesame', '198.51.100.20')).statusCode).toBe(429);
      advance(1000);
      expect((await unlock('open sesame', '198.51.100.20')).statusCode).toBe(200);
    });

    it('answers a grant that later fetches use instead of the password, until it expires', async () => {
      advance(60_000);
      const opened = await unlock('open sesame', '198.51.100.21');
      expect(opened.statusCode).toBe(200);
      const { token, expiresAt } = opened.json().grant;
      expect(Date.parse(expiresAt)).toBe(now + 15 * 60_000);
      // The grant needs no password check: it works even from an address in back-off.
      expect((await unlock('still guessing', ATTACKER)).statusCode).toBe(403);
      for (let i = 0; i < 3; i++) await unlock('still guessing', ATTACKER);
      expect((await data(ATTACKER, { 'x-map-password': 'open sesame' })).statusCode).toBe(429);
      const viaGrant = await data(ATTACKER, { 'x-map-grant': token });
      expect([viaGrant.statusCode, viaGrant.headers['content-type']]).toEqual([200, 'application/vnd.apache.arrow.stream']);
      expect((await anon('GET', `/v1/maps/${mapId}/published-map`, ATTACKER, { headers: { 'x-map-grant': token } })).json().item.latestState).toEqual(STATE);

      const [expiry, signature] = token.split('.');
      expect((await data('198.51.100.21', { 'x-map-grant': `${Number(expiry) + 3_600_000}.${signature}` })).statusCode).toBe(401);
      advance(15 * 60_000 - 1);
      expect((await data('198.51.100.21', { 'x-map-grant': token })).statusCode).toBe(200);
      advance(1);
      const expired = await data('198.51.100.21', { 'x-map-grant': token });
      expect([expired.statusCode, expired.json().details]).toEqual([401, 'passwordRequired']);

      // Setting the password again (even the same one: a new hash) ends every grant at once.
      const fresh = (await unlock('open sesame', '198.51.100.21')).json().grant.token;
      expect((await data('198.51.100.21', { 'x-map-grant': fresh })).statusCode).toBe(200);
      await a.app.inject({ method: 'POST', url: `/v1/maps/${mapId}/publish/map`, payload: { password: 'open sesame' }, headers: { authorization: cast.tokens.owner } });
      expect((await data('198.51.100.21', { 'x-map-grant': fresh })).statusCode).toBe(401);
    });

    it('limits password calls per caller even when they are right (10 a minute)', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await unlock('open sesame', '198.51.100.30')).statusCode);
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
      expect((await unlock('open sesame', '198.51.100.31')).statusCode).toBe(200);
    });
  });

  it('limits invitations per caller (30 a minute) with Retry-After', async () => {
    const invite = (token: string, i: number) =>
      a.app.inject({ method: 'POST', url: `/v1/organizations/${cast.org.id}/invitations/new${i}-${counters}@acme.test`, headers: { authorization: token } });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await invite(cast.tokens.admin, i)).statusCode);
    expect(statuses).toEqual([...Array(30).fill(201), 429]);
    const refused = await invite(cast.tokens.admin, 99);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().appStatusCode).toBe(429);
    // Another administrator is a different caller.
    await createUser(a.services.db, { email: 'second-admin@acme.test', password: PASSWORD, isAdmin: true, organizationId: cast.org.id });
    expect((await invite(await a.tokenOf('second-admin@acme.test'), 100)).statusCode).toBe(201);
  });

  it('limits test-connection per caller (10 a minute) with Retry-After', async () => {
    // 10.0.0.5 is refused before any packet leaves (STUDIO_CONNECTION_HOSTS): a cheap 422.
    const test = (who: 'owner' | 'colleague') =>
      a.app.inject({ method: 'POST', url: '/v1/test-connection', headers: { authorization: cast.tokens[who] }, payload: { type: 'postgres', host: '10.0.0.5', port: 5432, database: 'dw', user: 'u', sslmode: 'disable' } });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await test('owner')).statusCode);
    expect(statuses).toEqual([...Array(10).fill(422), 429]);
    expect(Number((await test('owner')).headers['retry-after'])).toBeGreaterThan(0);
    expect((await test('colleague')).statusCode).toBe(422);
    if (counters === 'Redis') {
      const redis = new Redis(REDIS_URL);
      expect((await redis.keys(`${prefix}limits:route:*test-connection*`)).length).toBeGreaterThan(0);
      await redis.quit();
    }
  });
});
