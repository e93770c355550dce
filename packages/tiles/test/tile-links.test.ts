import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TILE_LINK_TTL_MS, signTileLink, verifyTileLink, type LinkSigner } from '../src/vector-tiles/links';

const HOUR = 3_600_000;
/** An HMAC as the server's Secrets signs (the studio's key is the server's business, not the links'). */
const hmac = (payload: string) => createHmac('sha256', 'tile-link-test').update(payload).digest('base64url');
const secrets: LinkSigner = { sign: hmac, verify: (payload, sig) => hmac(payload) === sig };
const at = (iso: string) => Date.parse(iso);

describe('signed tile links', () => {
  it.each([
    ['the start of an hour', '2026-11-26T10:00:00.000Z', '2026-11-26T22:00:00.000Z'],
    ['just after it', '2026-11-26T10:00:00.001Z', '2026-11-26T23:00:00.000Z'],
    ['late in the hour', '2026-11-26T10:59:59.999Z', '2026-11-26T23:00:00.000Z'],
  ])('signed at %s, expire on the hour 12 to 13 hours later', (_when, now, expires) => {
    const { exp } = signTileLink(secrets, 'd1', at(now));
    expect(new Date(exp).toISOString()).toBe(expires);
    expect(exp - at(now)).toBeGreaterThanOrEqual(TILE_LINK_TTL_MS);
    expect(exp - at(now)).toBeLessThanOrEqual(TILE_LINK_TTL_MS + HOUR);
  });

  it('hands out the same URL for links asked within one hour, so a map opened again reads its tiles from the browser cache', () => {
    const first = signTileLink(secrets, 'd1', at('2026-11-26T10:05:00Z'));
    expect(signTileLink(secrets, 'd1', at('2026-11-26T10:55:00Z')).query).toBe(first.query);
    expect(signTileLink(secrets, 'd1', at('2026-11-26T11:05:00Z')).query).not.toBe(first.query);
    expect(signTileLink(secrets, 'd2', at('2026-11-26T10:05:00Z')).query).not.toBe(first.query);
  });

  it('signs a published map’s link for that map only', () => {
    const { exp, sig, query } = signTileLink(secrets, 'd1', Date.now(), 'm1');
    expect(query).toContain('&map=m1&');
    expect(() => verifyTileLink(secrets, 'd1', exp, sig, 'm1')).not.toThrow();
    expect(() => verifyTileLink(secrets, 'd1', exp, sig)).toThrow('Invalid tile link signature');
    expect(() => verifyTileLink(secrets, 'd1', exp, sig, 'm2')).toThrow('Invalid tile link signature');
  });
});
