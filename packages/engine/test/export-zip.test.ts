import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeflatedBody, crc32Combine, zipStream, type ZipEntry } from '../src/export-zip';
import { writeDbfRecord, type DbfField } from '../src/export-dbf';

/**
 * The Shapefile download's zip writer (#48): members deflated while they are written, their head put in front at the
 * end, read back here by a reader of our own from APPNOTE's central directory (every member's CRC and sizes checked,
 * which the unzip libraries skip); and the .dbf's numbers written digit by digit read back as the same values.
 */

/** The members of a zip, from its central directory, each inflated and checked against its CRC and sizes. */
function readZip(zip: Buffer): Record<string, Buffer> {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const members: Record<string, Buffer> = {};
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [crc, compressed, size, nameLength] = [zip.readUInt32LE(at + 16), zip.readUInt32LE(at + 20), zip.readUInt32LE(at + 24), zip.readUInt16LE(at + 28)];
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    expect(zip.readUInt32LE(local)).toBe(0x04034b50);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zlib.inflateRawSync(zip.subarray(dataAt, dataAt + compressed));
    expect([name, data.length, zlib.crc32(data)]).toEqual([name, size, crc]);
    members[name] = data;
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return members;
}

describe('zipStream', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'export-zip-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['several pieces', [Buffer.from('first '.repeat(5000)), Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251)), Buffer.from('last')]],
    ['one byte', [Buffer.from('x')]],
    ['no body', []],
  ])('a member deflated as written, its head in front (%s), reads back whole beside stored-in-memory and file members', async (label, pieces) => {
    const body = new DeflatedBody(path.join(dir, `${label}.deflated`));
    for (const piece of pieces) await body.write(piece);
    await body.end();
    const head = Buffer.from('a head known only at the end: 12345');
    await writeFile(path.join(dir, 'file.txt'), 'from a file\n'.repeat(1000));
    const entries: ZipEntry[] = [
      { name: 'head-and-body.bin', deflated: { head, body } },
      { name: 'in-memory.txt', data: Buffer.from('in memory') },
      { name: 'file.txt', file: path.join(dir, 'file.txt') },
    ];
    const chunks: Uint8Array[] = [];
    for await (const chunk of zipStream(entries)) chunks.push(chunk);
    const members = readZip(Buffer.concat(chunks));
    expect(members['head-and-body.bin']!.equals(Buffer.concat([head, ...pieces]))).toBe(true);
    expect(members['in-memory.txt']!.toString()).toBe('in memory');
    expect(members['file.txt']!.toString()).toBe('from a file\n'.repeat(1000));
  });

  it.each([
    [0, 0],
    [0, 9],
    [9, 0],
    [100, 1 << 20],
    [33, 12_345],
  ])('crc32Combine of %i then %i bytes is the CRC of both', (a, b) => {
    const bytes = Buffer.from(Array.from({ length: a + b }, (_, i) => (i * 31 + 7) % 256));
    const [first, second] = [bytes.subarray(0, a), bytes.subarray(a)];
    expect(crc32Combine(zlib.crc32(first), zlib.crc32(second), b)).toBe(zlib.crc32(bytes));
  });
});

describe('writeDbfRecord numbers', () => {
  const field = (type: 'N', width: number, decimals: number): DbfField => ({ attribute: { name: 'v', kind: decimals ? 'real' : 'integer' }, name: 'v', type, width, decimals });
  /** The field's text of one value, and what the notes counted. */
  const written = (f: DbfField, v: number | bigint | null) => {
    const out = Buffer.alloc(1 + f.width, 0x20);
    const notes = { cut: [0], dropped: [0] };
    writeDbfRecord(out, 0, [f], [[v]], 0, notes);
    return { text: out.toString('latin1', 1), dropped: notes.dropped[0] };
  };

  it.each([0, -0, 1, -1, 0.1, 36.9, 40.12345, -73.98765, 0.005, -0.005, 1e-7, 123456789.123, 2 ** 53 - 1, 2 ** 53, 0.1 + 0.2, 1e21, -1.5e-10, Math.PI, -0.0000021686143678828925, -1.2345678901234567e-300])(
    'a Real %d: right-aligned, read back as the same double, as String() writes it when that has no exponent and fits',
    (v) => {
      const { text, dropped } = written(field('N', 24, 15), v);
      // -0 is written "0", as String(-0) is: `v + 0` is +0 for it, v otherwise.
      expect([text.length, dropped, Number(text.trim())]).toEqual([24, 0, v + 0]);
      expect(text.endsWith(text.trim())).toBe(true);
      if (!String(v).includes('e') && String(v).length <= 24) expect(text.trim()).toBe(String(v));
    },
  );

  it('random doubles read back exactly', () => {
    for (let i = 0; i < 20_000; i++) {
      const v = (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 12 - 4);
      const rounded = Math.round(v * 1e5) / 1e5;
      for (const x of [v, rounded]) expect(Number(written(field('N', 24, 15), x).text.trim())).toBe(x + 0);
    }
  });

  it.each([
    [12345n, 5, '12345', 0],
    [-42n, 5, '  -42', 0],
    [123456n, 5, '     ', 1],
    [2n ** 60n, 20, ' 1152921504606846976', 0],
  ] as const)('an Integer %s in a field of %i', (v, width, text, dropped) => {
    expect(written(field('N', width, 0), v)).toEqual({ text, dropped });
  });
});
