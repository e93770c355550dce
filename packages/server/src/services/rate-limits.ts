import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { normalizeIP } from '@fastify/rate-limit';
import { z } from 'zod';
import { StudioError } from '@studio/schema';
import type { Secrets } from '../auth/secrets';

/**
 * Throttling of guessable secrets (sign-in passwords, published-map passwords) and of costly calls
 * (docs/decisions.md, "Rate limits"). Counters live in Redis when REDIS_URL is set, so every API node
 * sees the same ones; otherwise in this process.
 */

/** Routes limited per caller (user id when signed in, else address) through @fastify/rate-limit. */
export type RouteLimitName = 'invitations' | 'acceptInvitation' | 'publishedPassword' | 'testConnection' | 'clientErrors' | 'passwordReset';

export interface WindowLimit {
  max: number;
  windowMs: number;
}

/** Growing back-off after failures: `free` failures, then wait base, 2·base, 4·base… up to `maxDelayMs`. */
export interface BackoffSettings {
  free: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Counters are dropped this long after the last failure. */
  forgetAfterMs: number;
  /** An address that got in is exempt from the subject-wide back-off for this long. */
  rememberMs: number;
}

export interface RateLimitSettings {
  signIn: BackoffSettings;
  mapPassword: BackoffSettings;
  routes: Record<RouteLimitName, WindowLimit>;
  /** Lifetime of the grant a verified published-map password yields. */
  mapGrantMs: number;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  signIn: { free: 5, baseDelayMs: 1000, maxDelayMs: 15 * MINUTE, forgetAfterMs: DAY, rememberMs: 30 * DAY },
  mapPassword: { free: 5, baseDelayMs: 1000, maxDelayMs: 15 * MINUTE, forgetAfterMs: DAY, rememberMs: 30 * DAY },
  routes: {
    invitations: { max: 30, windowMs: MINUTE },
    // Invitation tokens are random and single-use; the limit only stops floods, and a whole office behind one
    // address may accept its invitations in the same minute.
    acceptInvitation: { max: 60, windowMs: MINUTE },
    publishedPassword: { max: 10, windowMs: MINUTE },
    testConnection: { max: 10, windowMs: MINUTE },
    // A page stuck in a loop of errors must not flood the log or the Sentry project.
    clientErrors: { max: 30, windowMs: MINUTE },
    // Each request may mail someone: a few a minute from an address is what a person forgetting needs.
    passwordReset: { max: 5, windowMs: MINUTE },
  },
  mapGrantMs: 15 * MINUTE,
};

/** A 429 whose Retry-After header http/route.ts sets from `retryAfterSeconds`. */
export class TooManyRequests extends StudioError {
  readonly retryAfterSeconds: number;
  constructor(waitMs: number, what: string) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    super(429, `${what}; try again in ${seconds} s`);
    this.retryAfterSeconds = seconds;
  }
}

/** The wait before the next attempt after `count` counted failures, the last at `last`; 0 when free. */
export function backoffWait(count: number, last: number, now: number, s: BackoffSettings): number {
  if (count < s.free) return 0;
  const delay = Math.min(s.baseDelayMs * 2 ** (count - s.free), s.maxDelayMs);
  return Math.max(0, last + delay - now);
}

/** Where counters live. `reserve` is atomic: concurrent attempts cannot all pass one free slot. */
export interface ThrottleStore {
  /**
   * When every key allows an attempt now, counts one on each (its time: now) and answers wait 0 with
   * each key's previous time; else the ms to wait, and nothing is counted.
   */
  reserve(keys: string[], now: number, s: BackoffSettings): Promise<{ wait: number; previous: number[] }>;
  /**
   * Takes back one counted attempt (the secret was right, or the check failed for another reason),
   * restoring the previous time unless another attempt came since: a success does not delay others.
   */
  release(keys: string[], at: number, previous: number[]): Promise<void>;
  clear(key: string): Promise<void>;
  remember(key: string, now: number, ms: number): Promise<void>;
  isRemembered(key: string, now: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One process's counters, bounded: past `maxEntries`, expired entries go, then the oldest. */
export class MemoryThrottleStore implements ThrottleStore {
  private readonly counters = new Map<string, { count: number; last: number; until: number }>();
  private readonly remembered = new Map<string, number>();
  constructor(private readonly maxEntries = 200_000) {}

  async reserve(keys: string[], now: number, s: BackoffSettings): Promise<{ wait: number; previous: number[] }> {
    const live = keys.map((k) => {
      const c = this.counters.get(k);
      return c && c.until > now ? c : { count: 0, last: 0, until: 0 };
    });
    const wait = Math.max(...live.map((c) => backoffWait(c.count, c.last, now, s)));
    if (wait > 0) return { wait, previous: [] };
    keys.forEach((k, i) => {
      this.counters.delete(k); // re-inserted last: the Map's order is then oldest activity first
      this.counters.set(k, { count: live[i]!.count + 1, last: now, until: now + s.forgetAfterMs });
    });
    this.bound(this.counters, now, (v) => v.until);
    return { wait: 0, previous: live.map((c) => c.last) };
  }

  async release(keys: string[], at: number, previous: number[]): Promise<void> {
    keys.forEach((k, i) => {
      const c = this.counters.get(k);
      if (!c) return;
      if (c.count <= 1) return this.counters.delete(k);
      c.count -= 1;
      if (c.last === at) c.last = previous[i] ?? 0;
    });
  }

  async clear(key: string): Promise<void> {
    this.counters.delete(key);
  }

  async remember(key: string, now: number, ms: number): Promise<void> {
    this.remembered.delete(key);
    this.remembered.set(key, now + ms);
    this.bound(this.remembered, now, (until) => until);
  }

  async isRemembered(key: string, now: number): Promise<boolean> {
    return (this.remembered.get(key) ?? 0) > now;
  }

  async close(): Promise<void> {}

  private bound<V>(map: Map<string, V>, now: number, until: (v: V) => number): void {
    if (map.size <= this.maxEntries) return;
    for (const [k, v] of map) if (until(v) <= now) map.delete(k);
    for (const k of map.keys()) {
      if (map.size <= this.maxEntries) break;
      map.delete(k);
    }
  }
}

/** Same logic as MemoryThrottleStore.reserve, in one script so that it is atomic across nodes. */
const RESERVE = `
local now, free, base, maxd, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local wait, previous = 0, {}
for i, k in ipairs(KEYS) do
  local v = redis.call('HMGET', k, 'n', 'last')
  local n, last = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  previous[i] = last
  if n >= free then
    local w = last + math.min(base * 2 ^ (n - free), maxd) - now
    if w > wait then wait = w end
  end
end
if wait > 0 then return {math.ceil(wait)} end
for i, k in ipairs(KEYS) do
  redis.call('HINCRBY', k, 'n', 1)
  redis.call('HSET', k, 'last', ARGV[1])
  redis.call('PEXPIRE', k, ttl)
end
return {0, unpack(previous)}`;

/** ARGV: the reservation's time, then each key's previous time. */
const RELEASE = `
for i, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then
    if redis.call('HINCRBY', k, 'n', -1) <= 0 then
      redis.call('DEL', k)
    elseif redis.call('HGET', k, 'last') == ARGV[1] then
      redis.call('HSET', k, 'last', ARGV[i + 1])
    end
  end
end
return 0`;

/** Counters shared by every API node. Times come from the nodes' clock (ARGV), not Redis's. */
export class RedisThrottleStore implements ThrottleStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async reserve(keys: string[], now: number, s: BackoffSettings): Promise<{ wait: number; previous: number[] }> {
    const args = [now, s.free, s.baseDelayMs, s.maxDelayMs, s.forgetAfterMs];
    const reply = z.array(z.number()).min(1).parse(await this.redis.eval(RESERVE, keys.length, ...keys.map((k) => this.prefix + k), ...args));
    return { wait: reply[0]!, previous: reply.slice(1) };
  }

  async release(keys: string[], at: number, previous: number[]): Promise<void> {
    await this.redis.eval(RELEASE, keys.length, ...keys.map((k) => this.prefix + k), at, ...previous);
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async remember(key: string, _now: number, ms: number): Promise<void> {
    await this.redis.set(this.prefix + key, '1', 'PX', Math.max(1, Math.round(ms)));
  }

  async isRemembered(key: string): Promise<boolean> {
    return (await this.redis.exists(this.prefix + key)) === 1;
  }

  async close(): Promise<void> {}
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

/** An attempt that was let through: settle it once the secret has been checked. */
export interface Attempt {
  /** The secret was right: the address's failures are cleared and it is remembered. */
  succeeded(): Promise<void>;
  /** The check did not happen (an unexpected error): the attempt is not counted. */
  release(): Promise<void>;
}

/**
 * Failed attempts at one kind of secret, counted per (subject, address) and per subject. The
 * per-subject counter stops guessing spread over many addresses; an address that got in recently
 * is exempt from it, so nobody can lock the owner (the only administrator included) out from
 * elsewhere. Its own per-(subject, address) counter still applies to it. A failure is counted
 * before the secret is checked (and taken back on success), so parallel guesses share one budget.
 */
export class FailureThrottle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly settings: BackoffSettings,
    private readonly scope: string,
    private readonly what: string,
    private readonly clock: { now(): number },
  ) {}

  /** Throws TooManyRequests while `address` must wait before trying a secret of `subject`. */
  async begin(subject: string, address: string): Promise<Attempt> {
    const s = digest(subject);
    const a = normalizeIP(address);
    const pair = `${this.scope}:p:${s}:${a}`;
    const rememberKey = `${this.scope}:r:${s}:${a}`;
    const now = this.clock.now();
    const keys = (await this.store.isRemembered(rememberKey, now)) ? [pair] : [`${this.scope}:s:${s}`, pair];
    const { wait, previous } = await this.store.reserve(keys, now, this.settings);
    if (wait > 0) throw new TooManyRequests(wait, this.what);
    return {
      succeeded: async () => {
        await this.store.clear(pair);
        await this.store.release(keys.slice(0, -1), now, previous.slice(0, -1));
        await this.store.remember(rememberKey, this.clock.now(), this.settings.rememberMs);
      },
      release: () => this.store.release(keys, now, previous),
    };
  }

  /** Runs `check` as one attempt: counted unless it answers true or throws. */
  async attempt(subject: string, address: string, check: () => Promise<boolean>): Promise<boolean> {
    const attempt = await this.begin(subject, address);
    let ok: boolean;
    try {
      ok = await check();
    } catch (e) {
      await attempt.release();
      throw e;
    }
    if (ok) await attempt.succeeded();
    return ok;
  }
}

/**
 * Short-lived signed grants to a password-protected publication: `expiry.signature` over the map id,
 * the expiry and the current password hash, so changing the password ends every grant at once.
 */
export class MapGrants {
  constructor(
    private readonly secrets: Secrets,
    private readonly ttlMs: number,
    private readonly clock: { now(): number },
  ) {}

  private payload(mapId: string, expires: number, passwordHash: string): string {
    return `map-grant|${mapId}|${expires}|${digest(passwordHash)}`;
  }

  issue(mapId: string, passwordHash: string): { token: string; expiresAt: string } {
    const expires = this.clock.now() + this.ttlMs;
    return { token: `${expires}.${this.secrets.sign(this.payload(mapId, expires, passwordHash))}`, expiresAt: new Date(expires).toISOString() };
  }

  verify(mapId: string, passwordHash: string, token: string): boolean {
    const m = /^(\d{1,15})\.([\w-]{1,100})$/.exec(token);
    if (!m) return false;
    const expires = Number(m[1]);
    return expires > this.clock.now() && this.secrets.verify(this.payload(mapId, expires, passwordHash), m[2]!);
  }
}

/** Everything throttling needs, one per server (a `Services` field). */
export class RateLimits {
  /** The time limits are measured in; tests replace `now` instead of sleeping. */
  readonly clock = { now: () => Date.now() };
  readonly signIn: FailureThrottle;
  readonly mapPassword: FailureThrottle;
  readonly grants: MapGrants;

  private constructor(
    readonly settings: RateLimitSettings,
    readonly store: ThrottleStore,
    /** Shared with @fastify/rate-limit's Redis store; null for in-process counters. */
    readonly redis: Redis | null,
    /** Key prefix in Redis, for this installation. */
    readonly prefix: string,
    secrets: Secrets,
  ) {
    this.signIn = new FailureThrottle(store, settings.signIn, 'signin', 'Too many failed sign-ins for this account', this.clock);
    this.mapPassword = new FailureThrottle(store, settings.mapPassword, 'mappw', 'Too many wrong passwords for this map', this.clock);
    this.grants = new MapGrants(secrets, settings.mapGrantMs, this.clock);
  }

  static create(opts: { settings: RateLimitSettings; redisUrl: string | null; redisPrefix: string; secrets: Secrets }): RateLimits {
    const prefix = `${opts.redisPrefix}limits:`;
    if (!opts.redisUrl) return new RateLimits(opts.settings, new MemoryThrottleStore(), null, prefix, opts.secrets);
    // Few retries: a sign-in waits for Redis, so an outage answers 500 quickly instead of hanging.
    const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 2 });
    return new RateLimits(opts.settings, new RedisThrottleStore(redis, prefix), redis, prefix, opts.secrets);
  }

  async close(): Promise<void> {
    await this.store.close();
    if (this.redis) await this.redis.quit();
  }
}
