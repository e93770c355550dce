import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Engine } from '../src';

export interface Ctx {
  dir: string;
  engine: Engine;
  file(name: string, body: string | Buffer, gzip?: boolean): Promise<string>;
  cleanup(): Promise<void>;
}

export async function setup(): Promise<Ctx> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-test-'));
  const engine = await Engine.open({ dataDir: dir, threads: 1 });
  return {
    dir,
    engine,
    async file(name, body, gzip) {
      const f = path.join(dir, name);
      await writeFile(f, gzip ? gzipSync(body) : body);
      return f;
    },
    async cleanup() {
      engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function collect(it: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of it) parts.push(p);
  return Buffer.concat(parts);
}

/** Rows shared by every format test. */
export const ROWS = [
  { id: 1, name: 'alpha', price: 1.5, lat: 40.7, lng: -73.9 },
  { id: 2, name: 'beta', price: 2.25, lat: 51.5, lng: -0.12 },
  { id: 3, name: 'gamma', price: null, lat: 35.6, lng: 139.7 },
];

export const toCsv = (sep: string) =>
  ['id', 'name', 'price', 'lat', 'lng'].join(sep) +
  '\n' +
  ROWS.map((r) => [r.id, r.name, r.price ?? '', r.lat, r.lng].join(sep)).join('\n') +
  '\n';
