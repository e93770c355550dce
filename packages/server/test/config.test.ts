import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv, printableConfig } from '../src/config';

/** One configuration schema for every variable: a bad value names the variable and what it expects. */
describe('configuration from the environment', () => {
  it('takes the defaults when variables are unset or empty', () => {
    const c = configFromEnv({ PORT: '', LOG_LEVEL: '' });
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', logLevel: 'info', authCacheMs: 2000, trustProxy: false, databaseUrl: null, redisUrl: null, sandboxInstances: 4 });
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it.each([
    ['STUDIO_TRUST_PROXY', 'true', { trustProxy: true }],
    ['STUDIO_TRUST_PROXY', '10.0.0.0/8,127.0.0.1', { trustProxy: '10.0.0.0/8,127.0.0.1' }],
    ['STUDIO_TRUST_PROXY', 'false', { trustProxy: false }],
    ['STUDIO_AUTH_CACHE_MS', '0', { authCacheMs: 0 }],
    ['PORT', '0', { port: 0 }],
    ['STUDIO_SAMPLES', 'off', { samples: false }],
    ['STUDIO_H3_WORKERS', '0', { h3Workers: 0 }],
    ['STUDIO_H3_WORKERS', '', { h3Workers: null }],
    ['STUDIO_SAMPLES', 'on', { samples: true }],
    ['STUDIO_SAMPLES', '', { samples: true }],
    ['STUDIO_DUCKDB_MEMORY', '2GB', { duckdbMemory: '2GB' }],
    ['DATABASE_URL', 'postgres://studio@127.0.0.1:5432/studio', { databaseUrl: 'postgres://studio@127.0.0.1:5432/studio' }],
    ['STUDIO_MAP_TILE_ROWS', '', { mapTileThreshold: { rows: 2_000_000, bytes: 250 * 2 ** 20 } }],
    ['STUDIO_MAP_TILE_ROWS', '500000', { mapTileThreshold: { rows: 500_000, bytes: 250 * 2 ** 20 } }],
    ['STUDIO_MAP_TILE_BYTES', '1GB', { mapTileThreshold: { rows: 2_000_000, bytes: 2 ** 30 } }],
  ] as const)('reads %s=%s', (name, value, expected) => {
    expect(configFromEnv({ [name]: value })).toMatchObject(expected);
  });

  it.each([
    ['PORT', '70000', 'PORT must be at most 65535, got "70000"'],
    ['PORT', '80.5', 'PORT must be a whole number from 0, got "80.5"'],
    ['STUDIO_AUTH_CACHE_MS', 'soon', 'STUDIO_AUTH_CACHE_MS must be a whole number from 0, got "soon"'],
    ['STUDIO_SANDBOX_INSTANCES', '0', 'STUDIO_SANDBOX_INSTANCES must be a whole number from 1, got "0"'],
    ['DATABASE_URL', 'mysql://db/x', 'DATABASE_URL must be a URL starting with postgres:// or postgresql://, got "mysql://db/x"'],
    ['REDIS_URL', '127.0.0.1:6379', 'REDIS_URL must be a URL starting with redis:// or rediss://, got "127.0.0.1:6379"'],
    ['STUDIO_DUCKDB_MEMORY', 'lots', 'STUDIO_DUCKDB_MEMORY must be a size such as 512MB or 2GB, got "lots"'],
    ['STUDIO_MAP_TILE_ROWS', '0', 'STUDIO_MAP_TILE_ROWS must be a whole number from 1, got "0"'],
    ['STUDIO_MAP_TILE_BYTES', '250', 'STUDIO_MAP_TILE_BYTES must be a size such as 512MB or 2GB, got "250"'],
    ['STUDIO_ADMIN_EMAIL', 'admin', 'STUDIO_ADMIN_EMAIL must be an email address, got "admin"'],
    ['STUDIO_SAMPLES', 'no', 'STUDIO_SAMPLES must be on or off, got "no"'],
    ['STUDIO_H3_WORKERS', '-1', 'STUDIO_H3_WORKERS must be a whole number from 0, got "-1"'],
    ['STUDIO_CONNECTION_HOSTS', 'db:port', 'STUDIO_CONNECTION_HOSTS: cannot read "db:port"'],
  ])('refuses %s=%s naming it', (name, value, message) => {
    const err = (() => {
      try {
        configFromEnv({ [name]: value });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain(message);
  });

  it('names every bad variable at once', () => {
    const err = (() => {
      try {
        configFromEnv({ PORT: 'x', LOG_LEVEL: 'loud' });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err?.problems).toHaveLength(2);
  });

  it('prints no secret', () => {
    const printed = JSON.stringify(
      printableConfig(configFromEnv({ STUDIO_SECRET: 's3cret', STUDIO_ADMIN_PASSWORD: 'pw-123', DATABASE_URL: 'postgres://u:dbpass@127.0.0.1/db', SMTP_URL: 'smtp://m:mailpass@127.0.0.1:25' })),
    );
    for (const secret of ['s3cret', 'pw-123', 'dbpass', 'mailpass']) expect(printed).not.toContain(secret);
    expect(printed).toContain('postgres://u:***@127.0.0.1/db');
  });
});
