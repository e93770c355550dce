import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type snowflakeSdk from 'snowflake-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, storageDriverFor, type DriverTarget } from '@studio/warehouses';
import { NetworkReach, parseHostPatterns } from '../src/services/network-reach';
import { pinnedLookups } from '../../warehouses/src/pinned';
import { S3_KEYS, startS3Server } from '../../warehouses/test/servers/s3';
import { startAthenaServer } from '../../warehouses/test/servers/athena';
import { startBigQueryServer } from '../../warehouses/test/servers/bigquery';
import { startGcsServer } from '../../warehouses/test/servers/gcs';
import { startSnowflakeServer } from '../../warehouses/test/servers/snowflake';
import { startDatabricksServer } from '../../warehouses/test/servers/databricks';
import { startKineticaServer } from '../../warehouses/test/servers/kinetica';
import { startPlanetServer } from '../../warehouses/test/servers/planet';

/**
 * #45 reproduction 8, the second half: every driver speaking HTTPS connects to the address the network
 * rule checked, never to the name again. The warehouse answers at https://localhost:P, served on 127.0.0.2
 * (a TLS front with a certificate for `localhost`, made here, in front of each kind's test server); the
 * rule's resolver answers 127.0.0.2 the first time and 127.0.0.1 after, and the system resolves localhost to
 * 127.0.0.1 and ::1, where decoys listen on the same port. A driver that resolves the name again lands on a
 * decoy; a pinned one lands on the front, with TLS SNI (and the certificate check) on the name.
 */

const SETUP = `CREATE SCHEMA geo; CREATE TABLE geo.places AS SELECT * FROM (VALUES (1, 'Ferry Building')) t(id, name);`;
const AWS_KEYS = { accessKeyId: 'AKIASTUDIOTEST', secretAccessKey: 'secret' };

/** A certificate for the name `localhost`, made with openssl for this run. */
async function localhostCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
  return { key: await fs.readFile(key, 'utf8'), cert: await fs.readFile(cert, 'utf8') };
}

interface Front {
  port: number;
  /** The TLS server name (SNI) of each connection the front took. */
  servernames: string[];
  /** Connections the decoys took (the name resolved again, by the system). */
  decoyConnections: () => number;
  close(): Promise<void>;
}

const listen = (server: net.Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });

/**
 * The TLS front on 127.0.0.2:P, handing its connections to the test server on `backendPort`, and decoys on
 * 127.0.0.1:P and [::1]:P (a port free on all three). One a case: clients pool sockets by host and port.
 */
async function startFront(pem: { key: string; cert: string }, backendPort: number): Promise<Front> {
  for (;;) {
    const servernames: string[] = [];
    let decoys = 0;
    const sockets = new Set<net.Socket>();
    const front: Front = { port: 0, servernames, decoyConnections: () => decoys, close: async () => undefined };
    const tlsServer = tls.createServer(pem, (socket) => {
      servernames.push((socket as tls.TLSSocket & { servername?: string | false }).servername || '');
      const backend = net.connect(backendPort, '127.0.0.1');
      sockets.add(socket).add(backend);
      socket.pipe(backend).pipe(socket);
      socket.on('error', () => backend.destroy());
      backend.on('error', () => socket.destroy());
    });
    const decoy = () => net.createServer((socket) => {
      decoys++;
      socket.destroy();
    });
    const servers: net.Server[] = [tlsServer, decoy(), decoy()];
    try {
      await listen(servers[0]!, 0, '127.0.0.2');
      front.port = (tlsServer.address() as net.AddressInfo).port;
      await listen(servers[1]!, front.port, '127.0.0.1');
      await listen(servers[2]!, front.port, '::1');
    } catch {
      for (const s of servers) if (s.listening) s.close();
      continue;
    }
    front.close = async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    };
    return front;
  }
}

type Started = { port: number; close(): Promise<void>; keyJson?: string };
interface Case {
  kind: string;
  storage?: boolean;
  start: () => Promise<Started>;
  config: (url: string, port: number) => Record<string, unknown>;
  credentials: (server: Started) => Record<string, unknown>;
}

const CASES: Case[] = [
  { kind: 's3', storage: true, start: () => startS3Server('city-lake', { 'exports/places.csv': 'id\n1\n' }), config: (url) => ({ bucket: 'city-lake', region: 'us-east-1', endpoint: url }), credentials: () => ({ ...S3_KEYS }) },
  {
    kind: 'athena',
    start: () => startAthenaServer({ accessKeyId: AWS_KEYS.accessKeyId, catalog: 'AwsDataCatalog', workgroup: 'primary', setup: SETUP }),
    config: (url) => ({ region: 'us-east-1', workgroup: 'primary', database: 'geo', outputLocation: 's3://results/', endpoint: url }),
    credentials: () => ({ ...AWS_KEYS }),
  },
  { kind: 'bigquery', start: () => startBigQueryServer({ projectId: 'city-project', setup: SETUP }), config: (url) => ({ projectId: 'city-project', dataset: 'geo', endpoint: url }), credentials: (s) => ({ privateKey: s.keyJson }) },
  { kind: 'gcs', storage: true, start: () => startGcsServer('city-bucket', { 'exports/places.csv': 'id\n1\n' }), config: (url) => ({ bucket: 'city-bucket', endpoint: url }), credentials: (s) => ({ privateKey: s.keyJson }) },
  {
    kind: 'snowflake',
    start: () => startSnowflakeServer({ user: 'ANALYST', password: 'sn0w', database: 'CITY', setup: SETUP }),
    config: (url) => ({ account: 'acme-xy12345', user: 'ANALYST', warehouse: 'COMPUTE_WH', database: 'CITY', schema: 'geo', endpoint: url }),
    credentials: () => ({ password: 'sn0w' }),
  },
  {
    kind: 'databricks',
    start: () => startDatabricksServer({ catalog: 'lake', warehouseId: 'wh1', token: 'dapi-token', setup: SETUP }),
    config: (_url, port) => ({ host: 'localhost', port, ssl: true, httpPath: '/sql/1.0/warehouses/wh1', catalog: 'lake', schema: 'geo' }),
    credentials: () => ({ token: 'dapi-token' }),
  },
  { kind: 'kinetica', start: () => startKineticaServer({ user: 'analyst', password: 'k1n3t1ca', setup: SETUP }), config: (url) => ({ url, user: 'analyst', schema: 'geo' }), credentials: () => ({ password: 'k1n3t1ca' }) },
  {
    kind: 'planet', storage: true,
    start: () => startPlanetServer({ apiKey: 'PLAK-key', scenes: 3, pageSize: 10, orderFiles: { 'manifest.json': '{}' } }),
    config: (url) => ({ apiUrl: url }),
    credentials: () => ({ token: 'PLAK-key' }),
  },
];

describe('HTTPS drivers connect to the checked address, TLS on the name', () => {
  let dir: string;
  let pem: { key: string; cert: string };
  let defaultCAs: string[];
  let snowflake: typeof snowflakeSdk | undefined;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-pinned-'));
    pem = await localhostCertificate(dir);
    // The clients verify the certificate as they would a warehouse's: against the trusted CAs, here with ours.
    defaultCAs = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...defaultCAs, pem.cert]);
    // Snowflake's agent asks the certificate's OCSP responder whether it was revoked; one made here has none.
    snowflake = (await import('snowflake-sdk')).default;
    snowflake.configure({ disableOCSPChecks: true });
  });
  afterAll(async () => {
    if (defaultCAs) tls.setDefaultCACertificates(defaultCAs);
    snowflake?.configure({ disableOCSPChecks: false });
    await fs.rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)('$kind', async ({ kind, storage, start, config, credentials }) => {
    const server = await start();
    const front = await startFront(pem, server.port);
    try {
      const answers: string[][] = [];
      // The first answer is the front; any later one a decoy (also refused: it is not listed).
      const resolve = async (host: string) => {
        answers.push([host]);
        return answers.length === 1 ? ['127.0.0.2'] : ['127.0.0.1'];
      };
      const reach = NetworkReach.fromConfig({ connectionHosts: parseHostPatterns(`127.0.0.2:${front.port}`), databaseUrl: null }, resolve, () => []);
      const target: DriverTarget = {
        type: kind as DriverTarget['type'],
        config: config(`https://localhost:${front.port}`, front.port),
        credentials: credentials(server) as DriverTarget['credentials'],
        reach,
        settings: DEFAULT_DRIVER_SETTINGS,
      };
      const answer = await (storage ? storageDriverFor(kind).test(target) : driverFor(kind).test(target)).catch((e: unknown) => e as Error);
      expect({ decoys: front.decoyConnections(), names: [...new Set(front.servernames)], lookups: answers.length }).toEqual({ decoys: 0, names: ['localhost'], lookups: 1 });
      expect(answer).toMatchObject({ ok: true });
    } finally {
      await front.close();
      await server.close();
    }
  });
});

describe('names a client goes on to (an S3 bucket\'s virtual host, a result chunk\'s storage host)', () => {
  it('checks each with the rule once and keeps its answer; a refused one fails the lookup with the rule\'s message', async () => {
    const asked: string[] = [];
    // A second DNS answer for the bucket's host would be loopback.
    const answers: Record<string, string[][]> = { 'city-lake.s3.example.com': [['93.184.215.14'], ['127.0.0.1']], 'dw.example.com': [['10.0.0.5']] };
    const reach = NetworkReach.fromConfig({ connectionHosts: [], databaseUrl: null }, async (host) => {
      asked.push(host);
      return answers[host]!.shift()!;
    }, () => []);
    const lookups = pinnedLookups(reach, { host: 's3.example.com', address: '93.184.215.10' });
    const look = (name: string) =>
      new Promise((resolve, reject) =>
        lookups(443)(name, { all: true }, ((e: Error | null, found: unknown) => (e ? reject(e) : resolve(found))) as never));
    expect(await look('s3.example.com')).toEqual([{ address: '93.184.215.10', family: 4 }]);
    expect(await look('city-lake.s3.example.com')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(await look('City-Lake.s3.example.com')).toEqual([{ address: '93.184.215.14', family: 4 }]);
    await expect(look('dw.example.com')).rejects.toMatchObject({
      status: 422,
      message: 'Connections to dw.example.com:443 are not allowed: private, loopback and link-local addresses must be listed in STUDIO_CONNECTION_HOSTS',
    });
    expect(asked).toEqual(['city-lake.s3.example.com', 'dw.example.com']);
  });
});
