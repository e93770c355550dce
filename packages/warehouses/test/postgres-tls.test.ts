import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, type DriverTarget } from '@studio/warehouses';
import { rowFetcher } from './helpers';
import { sshKeyPair, startBastion } from './servers/ssh';

/**
 * TLS (sslmode disable / require / verify-full with the connection's CA certificate) and SSH tunnels, on
 * the test warehouse server (TLS on, signed by a CA of the run for 127.0.0.1) and a bastion on a
 * loopback port. What the session really is, is asked of PostgreSQL itself (pg_stat_ssl).
 */
const driver = driverFor('postgres');
let dir: string;
let bastion: Awaited<ReturnType<typeof startBastion>>;
const fetchRows = rowFetcher(driver, () => dir);
/** Loopback only; `localhost` is 127.0.0.1 too (a name the certificate does not carry). */
const reach = { check: async (host: string) => (host === '127.0.0.1' || host === 'localhost' ? '127.0.0.1' : Promise.reject(new Error(`not allowed: ${host}`))) };

const target = (config: Record<string, unknown>, credentials: DriverTarget['credentials'] = null): DriverTarget => {
  const { host, port, user } = inject('warehouseServer');
  return { type: 'postgres', config: { host, port, database: 'postgres', user, ...config }, credentials, reach, settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 5000 } };
};
/** Whether the session the driver opened is encrypted, as the server sees it. */
const encrypted = async (t: DriverTarget) => Object.values((await fetchRows(t, 'select ssl::text as ssl from pg_stat_ssl where pid = pg_backend_pid()')).rows[0] ?? {})[0];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pg-tls-'));
  bastion = await startBastion({ user: 'tunnel', password: 'bastion-pw', names: { 'warehouse.internal': '127.0.0.1' } });
});
afterAll(async () => {
  await bastion.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('PostgreSQL TLS', () => {
  const ca = () => inject('warehouseServer').caCertificate;
  it.each([
    ['disable: a plain session', () => ({ sslmode: 'disable' }), 'false'],
    ['require: encrypted, the certificate not checked', () => ({ sslmode: 'require' }), 'true'],
    ['verify-full with the CA that signed the certificate', () => ({ sslmode: 'verify-full', caCertificate: ca() }), 'true'],
  ])('%s', async (_name, config, ssl) => {
    const t = target(config());
    expect((await driver.test(t)).ok).toBe(true);
    expect(await encrypted(t)).toBe(ssl);
  });

  it.each([
    ['verify-full without the CA (the system authorities do not know it)', () => ({ sslmode: 'verify-full' }), /Could not connect: unable to verify the first certificate/],
    ['verify-full to a name the certificate does not carry', () => ({ sslmode: 'verify-full', caCertificate: ca(), host: 'localhost' }), /Could not connect: Hostname\/IP does not match certificate's altnames: Host: localhost\./],
  ])('refuses %s, with the TLS message', async (_name, config, message) => {
    await expect(driver.test(target(config()))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(message) });
  });
});

describe('SSH tunnels', () => {
  const via = (extra: Record<string, unknown> = {}) => ({ sshHost: '127.0.0.1', sshPort: bastion.port, sshUser: 'tunnel', sslmode: 'disable', ...extra });

  it('connects through the bastion with a private key: the bastion forwards to the warehouse', async () => {
    const before = bastion.forwarded.length;
    const t = target(via(), { sshPrivateKey: bastion.privateKey });
    expect((await driver.test(t)).ok).toBe(true);
    const { host, port } = inject('warehouseServer');
    expect(bastion.forwarded.slice(before)).toEqual([`${host}:${port}`]);
    // A query runs through it too, and TLS still holds inside the tunnel (the name checked is the warehouse's).
    const tls = target(via({ sslmode: 'verify-full', caCertificate: inject('warehouseServer').caCertificate }), { sshPrivateKey: bastion.privateKey });
    expect(await encrypted(tls)).toBe('true');
  });

  it('streams rows straight to Arrow over TLS inside a tunnel (the COPY is read off the encrypted channel)', async () => {
    const t = target(via({ sslmode: 'verify-full', caCertificate: inject('warehouseServer').caCertificate }), { sshPrivateKey: bastion.privateKey });
    const parts: Uint8Array[] = [];
    const sql = "select g as id, repeat('x', g % 300) as pad, ssl from generate_series(1, 20000) g, pg_stat_ssl where pid = pg_backend_pid()";
    expect(await driver.fetchArrow!(t, sql, {}, async (b) => void parts.push(b))).toEqual({ rowCount: 20000 });
    const table = tableFromIPC(Buffer.concat(parts));
    expect([table.numRows, table.get(19999)?.toJSON()]).toEqual([20000, { id: 20000, pad: 'x'.repeat(20000 % 300), ssl: true }]);
  });

  it('reaches a warehouse by a name only the bastion resolves (the studio never connects to it itself)', async () => {
    const before = bastion.forwarded.length;
    const t = target(via({ host: 'warehouse.internal', sslmode: 'require' }), { sshPassword: 'bastion-pw' });
    expect(await encrypted(t)).toBe('true');
    expect(bastion.forwarded.slice(before)).toEqual([`warehouse.internal:${inject('warehouseServer').port}`]);
    // Without the tunnel the same name is refused by the network rule.
    await expect(driver.test(target({ host: 'warehouse.internal', sslmode: 'require' }))).rejects.toThrow(/not allowed: warehouse.internal/);
  });

  it.each([
    ['a password', () => ({}), () => ({ sshPassword: 'bastion-pw' }), null],
    ['the host key it expects', () => ({ sshHostKey: bastion.fingerprint }), () => ({ sshPrivateKey: bastion.privateKey }), null],
    ['another host key', () => ({ sshHostKey: `SHA256:${'A'.repeat(43)}` }), () => ({ sshPrivateKey: bastion.privateKey }), /presented the key SHA256:.*not the SHA256:A{43} this connection expects/],
    ['a key the bastion does not accept', () => ({}), () => ({ sshPrivateKey: sshKeyPair().private }), /Could not connect through the SSH host 127\.0\.0\.1: All configured authentication methods failed/],
    ['a wrong password', () => ({}), () => ({ sshPassword: 'nope' }), /All configured authentication methods failed/],
    ['no key or password', () => ({}), () => ({ password: 'db only' }), /An SSH private key or password is needed/],
    ['no SSH user', () => ({ sshUser: undefined }), () => ({ sshPassword: 'bastion-pw' }), /SSH user is required/],
  ])('with %s', async (_name, config, credentials, refused) => {
    const t = target(via(config()), credentials());
    if (!refused) expect((await driver.test(t)).ok).toBe(true);
    else await expect(driver.test(t)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(refused) });
  });

  it('reaches the bastion only where the network rule allows it', async () => {
    const t = { ...target(via(), { sshPassword: 'bastion-pw' }), reach: { check: async (h: string) => Promise.reject(new Error(`Connections to ${h} are not allowed`)) } };
    await expect(driver.test(t)).rejects.toThrow(/not allowed/);
  });
});
