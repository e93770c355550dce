import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { onFirstUse } from '@studio/schema';

/**
 * A fresh server does not hold the libraries most studios never call — the warehouses' SDKs, the readers of
 * formats DuckDB cannot read, the mail transport, the font reader: together about 100 MB of its memory
 * (docs/decisions.md "Dataset data path performance", row "Libraries on first use"). Each is loaded on its first use.
 */

const serverDir = path.resolve(__dirname, '..');

/** The packages (from node_modules) a new process holds after importing `modules`, then running `after`. */
function packagesLoadedBy(modules: string[], after = ''): string[] {
  // Node's in-thread module hooks see every module loaded, ES modules and CommonJS alike.
  const script = `
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ load(url, context, next) { urls.add(url); return next(url, context); } });
    ${modules.map((m) => `await import(${JSON.stringify(m)});`).join('\n')}
    ${after}
    const names = [...urls].filter((u) => u.includes('node_modules/')).map((u) => {
      const parts = u.split('node_modules/').pop().split('/');
      return parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0];
    });
    console.log(JSON.stringify([...new Set(names)].sort()));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: serverDir, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

const ON_FIRST_USE = [
  'snowflake-sdk',
  '@google-cloud/bigquery',
  '@google-cloud/storage',
  '@aws-sdk/client-s3',
  '@aws-sdk/client-athena',
  '@aws-sdk/lib-storage',
  'trino-client',
  'ssh2',
  'exceljs',
  'shpjs',
  '@xmldom/xmldom',
  '@tmcw/togeojson',
  'flatgeobuf',
  'parquet-wasm',
  'nodemailer',
  'opentype.js',
];

describe('libraries loaded on first use', () => {
  it('are not loaded by the engine, the warehouse drivers, mail and the tiles (the basemap glyphs)', () => {
    const loaded = packagesLoadedBy(['@studio/engine', '@studio/warehouses', './src/services/mail.ts', '@studio/tiles']);
    // The imports did load what they always need.
    expect(loaded).toEqual(expect.arrayContaining(['@duckdb/node-api', 'apache-arrow', 'pg']));
    expect(loaded.filter((name) => ON_FIRST_USE.includes(name))).toEqual([]);
  }, 60_000);

  it('are loaded by the first call that needs them: an Excel workbook read loads exceljs', () => {
    const loaded = packagesLoadedBy(
      ['@studio/engine'],
      `const { convertUpload } = await import('./../engine/src/formats/index.ts');
       await convertUpload('xlsx', '/nonexistent.xlsx', '/tmp/never').catch(() => undefined);`,
    );
    expect(loaded).toContain('exceljs');
    expect(loaded).not.toContain('snowflake-sdk');
  }, 60_000);
});

describe('onFirstUse', () => {
  it('loads once for every caller, at the same time or later', async () => {
    let loads = 0;
    const load = onFirstUse(async () => ({ n: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    const c = await load();
    expect([a, b, c].map((x) => x.n)).toEqual([1, 1, 1]);
    expect(a).toBe(c);
  });

  it('tries again after a failed load', async () => {
    let tries = 0;
    const load = onFirstUse(async () => {
      tries += 1;
      if (tries === 1) throw new Error('busy disk');
      return tries;
    });
    await expect(load()).rejects.toThrow('busy disk');
    expect(await load()).toBe(2);
    expect(await load()).toBe(2);
  });
});
