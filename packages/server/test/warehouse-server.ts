import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup: a PostgreSQL server of its own for the tests that connect to a warehouse.
 *
 * The catalog's server (127.0.0.1:5432) is never reachable through a data connection (#11), so live
 * connection tests need a second server, as production has: initdb + pg_ctl on a free loopback port,
 * trust authentication, and a role `warehouse` that is neither a superuser nor a member of the
 * server-file roles (such sessions are refused). Test code creates databases as `postgres` and hands
 * them to `warehouse`; the studio only ever connects as `warehouse`.
 */

export interface WarehouseServer {
  host: string;
  port: number;
  /** Superuser URL of the server's `postgres` database, for test setup only. */
  adminUrl: string;
  /** The role data connections use. */
  user: string;
  /** The PEM of the authority that signed the server's certificate (for 127.0.0.1): TLS is on, not required. */
  caCertificate: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    warehouseServer: WarehouseServer;
  }
}

function binDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    const root = '/usr/lib/postgresql';
    const version = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
    if (!version) throw new Error('No PostgreSQL server binaries found (pg_config or /usr/lib/postgresql/<version>/bin)');
    return path.join(root, version, 'bin');
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses to run as root: as root, run the server binaries as the `postgres` system user. */
function runAsServerUser(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A certificate authority of the run and a server certificate it signs for 127.0.0.1 (openssl), so
 * connections can be tested with sslmode require and verify-full. The key files belong to the server's
 * user with mode 0600, as PostgreSQL demands.
 */
function makeCertificates(dir: string): { cert: string; key: string; ca: string } {
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Studio test CA', '-keyout', f('ca.key'), '-out', f('ca.crt'));
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', f('server.key'), '-out', f('server.csr'));
  fs.writeFileSync(f('san.ext'), 'subjectAltName = IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', f('san.ext'), '-out', f('server.crt'));
  fs.chmodSync(f('server.key'), 0o600);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', f('server.key'), f('server.crt')]);
  return { cert: f('server.crt'), key: f('server.key'), ca: fs.readFileSync(f('ca.crt'), 'utf8') };
}

export default async function setup(project: TestProject) {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-warehouse-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  runAsServerUser(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const tls = makeCertificates(dir);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c ssl=on -c ssl_cert_file=${tls.cert} -c ssl_key_file=${tls.key}`;
  runAsServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create role warehouse login password 'warehouse' nosuperuser nocreatedb nocreaterole`);
  await admin.end();
  project.provide('warehouseServer', { host: '127.0.0.1', port, adminUrl, user: 'warehouse', caCertificate: tls.ca });
  return () => {
    runAsServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
