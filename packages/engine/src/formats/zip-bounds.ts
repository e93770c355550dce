import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { badInput } from '@studio/schema';
import { expansionCap, expansionRefused } from '../decompression-bounds';

/**
 * Zip archives (zipped Shapefiles, KMZ, Excel workbooks) read with their central directory checked first: a zip
 * states each entry's sizes and where its data lies, and a bomb lies or repeats itself there (four directory
 * entries over one deflate stream took a 261 KB file to 2.5 GB of RSS). Entries are inflated by zlib off the
 * event loop, each stopped at the size its directory states, so even a lying directory cannot exceed the cap.
 */

/** The most entries an archive may list: a Shapefile is 3-8 files a layer, a workbook a few dozen parts. */
export const ZIP_MAX_ENTRIES = 1000;

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate: the two the studio reads. */
  method: number;
  compressedSize: number;
  /** The uncompressed size the directory states. */
  size: number;
  /** Where the entry's local header starts, and its data (after the local header's name and extra field). */
  headerStart: number;
  dataStart: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_SIZES = 0xffffffff;

/** Reads the archive's directory, refusing what no honest zip does. `label` names it in messages ("the KMZ"). */
export function zipDirectory(bytes: Uint8Array, label: string): ZipEntry[] {
  const damaged = () => badInput(`Could not read ${label}: the file is not a zip archive or it is damaged`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record: 22 bytes plus a comment of at most 65,535, at the end.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw damaged();
  const count = view.getUint16(eocd + 10, true);
  // 0xFFFF means a ZIP64 count of at least that many: past the limit either way.
  if (count > ZIP_MAX_ENTRIES) throw badInput(`Could not read ${label}: it holds more than ${ZIP_MAX_ENTRIES} files`);
  const directoryStart = view.getUint32(eocd + 16, true);
  if (directoryStart + view.getUint32(eocd + 12, true) > eocd) throw damaged();
  const entries: ZipEntry[] = [];
  let at = directoryStart;
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || view.getUint32(at, true) !== CENTRAL) throw damaged();
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    let headerStart = view.getUint32(at + 42, true);
    const name = Buffer.from(bytes.subarray(at + 46, at + 46 + nameLength)).toString(flags & 0x800 ? 'utf8' : 'latin1');
    // ZIP64 writers put a field's real value in the extra field (id 1) when the 32-bit one is all ones.
    if (compressedSize === ZIP64_SIZES || size === ZIP64_SIZES || headerStart === ZIP64_SIZES) {
      ({ size, compressedSize, headerStart } = zip64Fields(view, at + 46 + nameLength, extraLength, { size, compressedSize, headerStart }, damaged));
    }
    if (flags & 0x1) throw badInput(`Could not read ${label}: ${name} is encrypted`);
    if (method !== 0 && method !== 8) throw badInput(`Could not read ${label}: ${name} is compressed with a method the studio does not read (${method}); save it with deflate`);
    if (headerStart + 30 > directoryStart || view.getUint32(headerStart, true) !== LOCAL) throw damaged();
    const dataStart = headerStart + 30 + view.getUint16(headerStart + 26, true) + view.getUint16(headerStart + 28, true);
    if (dataStart + compressedSize > directoryStart) throw damaged();
    if (method === 0 && size !== compressedSize) throw damaged();
    entries.push({ name, method, compressedSize, size, headerStart, dataStart });
    at += 46 + nameLength + extraLength + view.getUint16(at + 32, true);
  }
  // Each entry's bytes (header and data) are its own: several entries over one deflate stream is a bomb's trick.
  const byPlace = [...entries].sort((a, b) => a.headerStart - b.headerStart);
  for (let i = 1; i < byPlace.length; i++) {
    const before = byPlace[i - 1]!;
    if (byPlace[i]!.headerStart < before.dataStart + before.compressedSize) {
      throw badInput(`Could not read ${label}: its entries overlap (${before.name} and ${byPlace[i]!.name} share their data), as zip bombs do`);
    }
  }
  return entries;
}

function zip64Fields(
  view: DataView,
  start: number,
  length: number,
  given: { size: number; compressedSize: number; headerStart: number },
  damaged: () => Error,
): { size: number; compressedSize: number; headerStart: number } {
  for (let at = start; at + 4 <= start + length; ) {
    const id = view.getUint16(at, true);
    const fieldLength = view.getUint16(at + 2, true);
    if (id === 1) {
      let p = at + 4;
      const next = () => {
        if (p + 8 > at + 4 + fieldLength) throw damaged();
        const v = Number(view.getBigUint64(p, true));
        p += 8;
        return v;
      };
      // The fields present are the ones set to all ones, in this order.
      const size = given.size === ZIP64_SIZES ? next() : given.size;
      const compressedSize = given.compressedSize === ZIP64_SIZES ? next() : given.compressedSize;
      const headerStart = given.headerStart === ZIP64_SIZES ? next() : given.headerStart;
      return { size, compressedSize, headerStart };
    }
    at += 4 + fieldLength;
  }
  throw damaged();
}

/**
 * Refuses entries whose stated sizes add up past the cap: `maxBytes` (413), or 200 times the archive's size
 * (422, a bomb) whichever is less.
 */
export function assertExpansion(entries: ZipEntry[], archiveBytes: number, maxBytes: number, label: string): void {
  const declared = entries.reduce((n, e) => n + e.size, 0);
  const cap = expansionCap(archiveBytes, maxBytes);
  if (declared > cap) throw expansionRefused(capitalized(label), cap, maxBytes);
}

const capitalized = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const inflate = promisify(inflateRaw);

/** One entry's bytes: inflated (by zlib, in its thread pool) to at most the size its directory states. */
export async function readEntry(bytes: Uint8Array, entry: ZipEntry, label: string): Promise<Uint8Array> {
  const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  if (entry.method === 0) return data;
  let out: Buffer;
  try {
    // Stops past the stated size instead of growing: a lying directory ends here, at the size it claimed.
    out = await inflate(data, { maxOutputLength: Math.max(1, entry.size) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw badInput(`Could not read ${label}: ${entry.name} holds more than its directory says, as zip bombs do`);
    }
    throw badInput(`Could not read ${label}: ${entry.name} is damaged`);
  }
  if (out.length !== entry.size) throw badInput(`Could not read ${label}: ${entry.name} holds more than its directory says, as zip bombs do`);
  return out;
}

/**
 * The entries `wanted` picks, checked (count, overlap, stated total against `maxBytes` and the ratio) and
 * inflated within their stated sizes; by name.
 */
export async function readZipEntries(bytes: Uint8Array, wanted: (name: string) => boolean, label: string, maxBytes: number): Promise<Map<string, Uint8Array>> {
  const entries = zipDirectory(bytes, label).filter((e) => wanted(e.name));
  assertExpansion(entries, bytes.length, maxBytes, label);
  const out = new Map<string, Uint8Array>();
  for (const entry of entries) out.set(entry.name, await readEntry(bytes, entry, label));
  return out;
}

/**
 * For readers that unzip by themselves (exceljs through JSZip, without a cap): the whole archive checked as
 * readZipEntries would, each entry inflated once within its stated size and dropped, so the reader then meets
 * only sizes that are true.
 */
export async function assertZipBounds(bytes: Uint8Array, label: string, maxBytes: number): Promise<void> {
  const entries = zipDirectory(bytes, label);
  assertExpansion(entries, bytes.length, maxBytes, label);
  for (const entry of entries) await readEntry(bytes, entry, label);
}
