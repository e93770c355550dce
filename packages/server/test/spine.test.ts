import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, startStudio, seedCast, type TestStudio } from './harness';

describe.each(STORES)('spine on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('answers health without a token', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().item.status).toBe('ok');
  });

  it('refuses the default token with the error body', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: 'Bearer not-signed-in' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ appStatusCode: 401, message: expect.any(String) });
  });

  it('signs in and answers /users/me', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/users/me?includeFlags=true', headers: { authorization: cast.tokens.owner } });
    expect(res.statusCode).toBe(200);
    expect(res.json().item).toMatchObject({ email: 'owner@acme.test', organization: { name: 'Acme' }, flags: expect.any(Object) });
  });

  it('refuses a wrong password', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'owner@acme.test', password: 'nope' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('Invalid email or password');
  });
});
