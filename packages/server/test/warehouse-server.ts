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

export default async function setup(project: TestProject) {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-warehouse-'));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  runAsServerUser(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  runAsServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create role warehouse login password 'warehouse' nosuperuser nocreatedb nocreaterole`);
  await admin.end();
  project.provide('warehouseServer', { host: '127.0.0.1', port, adminUrl, user: 'warehouse' });
  return () => {
    runAsServerUser(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
