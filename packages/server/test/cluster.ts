import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SERVER_ENV, buildServer } from '../../../scripts/builds.mjs';
import { startS3Server, S3_KEYS, type S3Server } from '../../warehouses/test/servers/s3';

/**
 * API nodes as a deployment runs them, each its own process (the server bundle run by node, with the environment a
 * deployment sets), on one PostgreSQL catalog, one Redis and one S3-compatible object store (a local s3rver), each node with
 * its own data folder (temp files, DuckDB, the object cache) and running workers. Used by the two-node suite and its
 * chaos cases (cluster.test.ts), and by the load run (bench/load.bench.ts): nodes are killed with SIGKILL and started
 * again on the same folder. Free of Vitest, so that a bench run by tsx can use it.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PG_ADMIN_URL = process.env.STUDIO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUCKET = 'studio-cluster';

export interface ClusterNode {
  name: string;
  base: string;
  child: ChildProcess;
}

/**
 * The server bundle a deployment runs (`npm run build`'s esbuild bundle, run by node: no tsx at run time), built for
 * the caller into a folder of its own beside packages/server/dist (~1 s): `npm test` builds dist in its other lane
 * meanwhile, and a node must not lose its lazily loaded chunks to that rebuild. Answers the entry and its removal.
 * Started this way a node answers in about half the time of `tsx src/main.ts` (3.9-4.9 s against 7.2-9.6 s, loaded
 * machine, 2026-11-28), which the chaos cases pay at every restart.
 */
export async function serverBundle(label: string): Promise<{ main: string; remove: () => void }> {
  const outdir = path.join(repoRoot, 'packages', 'server', `dist-${label}-${process.pid}-${randomBytes(3).toString('hex')}`);
  await buildServer({ outdir });
  return { main: path.join(outdir, 'main.js'), remove: () => fs.rmSync(outdir, { recursive: true, force: true }) };
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export interface Cluster {
  admin: { email: string; password: string };
  databaseUrl: string;
  nodes: Map<string, ClusterNode>;
  /** Starts (or starts again, on its own folder) the node of that name; resolves when /v1/ready answers 200. */
  start(name: string): Promise<ClusterNode>;
  /** SIGKILL to the node's whole process group: no shutdown, no hand-over, as a crash or an OOM kill. */
  kill(name: string): Promise<void>;
  /** The end of each node's log, to read beside a failed assertion. */
  logs(): string;
  /** A query on the shared catalog (which node holds a job, its heartbeat). */
  catalog<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startCluster(label: string): Promise<Cluster> {
  const admin = { email: `${label}@studio.test`, password: `${label}-test-password` };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `studio-${label}-`));
  const dbName = `studio_${label}_${randomBytes(5).toString('hex')}`;
  const databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
  await adminQuery(`create database ${dbName}`);
  const bundle = await serverBundle(label);
  const s3: S3Server = await startS3Server(BUCKET, {});
  const catalogClient = new pg.Client({ connectionString: databaseUrl });
  const nodes = new Map<string, ClusterNode>();
  const logFile = (name: string) => path.join(root, `${name}.log`);

  const start = async (name: string): Promise<ClusterNode> => {
    const dataDir = path.join(root, name);
    fs.mkdirSync(dataDir, { recursive: true });
    const port = await freePort();
    const log = fs.openSync(logFile(name), 'a');
    const child = spawn(process.execPath, [bundle.main], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        ...SERVER_ENV,
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
        PORT: String(port), HOST: '127.0.0.1', STUDIO_DATA_DIR: dataDir, STUDIO_NODE_ID: name,
        DATABASE_URL: databaseUrl, REDIS_URL, STUDIO_REDIS_PREFIX: `${dbName}:`,
        STUDIO_OBJECT_STORE: `s3://${BUCKET}/${dbName}`, STUDIO_S3_ENDPOINT: s3.endpoint, STUDIO_S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: S3_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
        // One secret and one master key for every node, as a deployment hands them out; the key outside any node's folder.
        STUDIO_SECRET: `${label}-secret`, STUDIO_KEY_FILE: path.join(root, 'master.key'),
        STUDIO_SAMPLES: 'off', STUDIO_ADMIN_EMAIL: admin.email, STUDIO_ADMIN_PASSWORD: admin.password,
        STUDIO_WEB_DIR: path.join(dataDir, 'no-web'), LOG_LEVEL: 'warn',
      },
    });
    fs.closeSync(log);
    const node = { name, base: `http://127.0.0.1:${port}`, child };
    nodes.set(name, node);
    // Two nodes started on two loaded cores take a while; a node that exits stops the wait.
    for (const began = Date.now(); ; ) {
      if ((await fetch(`${node.base}/v1/ready`).then((r) => r.status, () => 0)) === 200) return node;
      if (child.exitCode !== null || Date.now() - began > 120_000) throw new Error(`Node ${name} did not start:\n${fs.readFileSync(logFile(name), 'utf8').slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  const kill = async (name: string) => {
    const { child } = nodes.get(name)!;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  };

  let connected = false;
  return {
    admin,
    databaseUrl,
    nodes,
    start,
    kill,
    logs: () => [...nodes.keys()].map((n) => `--- ${n}:\n${fs.readFileSync(logFile(n), 'utf8').slice(-3000)}`).join('\n'),
    catalog: async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
      if (!connected) {
        await catalogClient.connect();
        connected = true;
      }
      return (await catalogClient.query<T>(sql, params)).rows;
    },
    stop: async () => {
      for (const name of nodes.keys()) await kill(name).catch(() => undefined);
      if (connected) await catalogClient.end().catch(() => undefined);
      await s3.close().catch(() => undefined);
      await adminQuery(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
      fs.rmSync(root, { recursive: true, force: true });
      bundle.remove();
    },
  };
}
