import { hilbert } from '@studio/spatial';
import { quoteSqliteIdent } from './formats/sqlite';
import type { SqliteWorker } from './sqlite-worker';

/**
 * A packed SQLite R-tree of 2-D boxes, bulk loaded: the boxes sorted along a Hilbert curve, cut into full leaves,
 * the levels above built the same way, and the nodes written straight into the R-tree's shadow tables
 * (`<name>_node`, `<name>_rowid`, `<name>_parent`), as GDAL's own bulk loader does (gdal_sqlite_rtree_bl.cpp).
 * Inserting row by row made SQLite split nodes all the time (1M points: 95 s of a 105 s GeoPackage download);
 * this takes a few tenths of a second. The result is an ordinary R-tree: SQLite queries, updates and checks it
 * (`rtreecheck`), and QGIS or GDAL may go on inserting into it.
 *
 * Layout (sqlite/ext/rtree/rtree.c): a node is a blob of the table's node size — 2 bytes of tree depth (read from
 * the root only), 2 bytes of cell count, then cells of an 8-byte id and the box as four 32-bit floats, all
 * big-endian. Leaf cells carry row ids, inner cells child node numbers; the root is node 1.
 */

// SQLite's own rounding of a double to the 32-bit float an R-tree keeps: down for a minimum, up for a maximum,
// so the stored box always holds the true one (rtreeValueDown / rtreeValueUp).
const RND_TOWARDS = 1 - 1 / 8388608;
const RND_AWAY = 1 + 1 / 8388608;
const floatDown = (d: number) => {
  const f = Math.fround(d);
  return f > d ? Math.fround(d * (d < 0 ? RND_AWAY : RND_TOWARDS)) : f;
};
const floatUp = (d: number) => {
  const f = Math.fround(d);
  return f < d ? Math.fround(d * (d < 0 ? RND_TOWARDS : RND_AWAY)) : f;
};

/**
 * Boxes gathered one at a time, kept as the R-tree will store them (minx, maxx, miny, maxy in 32-bit floats,
 * rounded outwards): 24 bytes a box with its id, where arrays of numbers took over 100.
 */
export class BoxList {
  ids = new Float64Array(1024);
  boxes = new Float32Array(4096);
  length = 0;

  push(id: number, minx: number, miny: number, maxx: number, maxy: number): void {
    if (this.length === this.ids.length) {
      const ids = new Float64Array(this.ids.length * 2);
      ids.set(this.ids);
      this.ids = ids;
      const boxes = new Float32Array(this.boxes.length * 2);
      boxes.set(this.boxes);
      this.boxes = boxes;
    }
    const at = this.length++;
    this.ids[at] = id;
    this.boxes[at * 4] = floatDown(minx);
    this.boxes[at * 4 + 1] = floatUp(maxx);
    this.boxes[at * 4 + 2] = floatDown(miny);
    this.boxes[at * 4 + 3] = floatUp(maxy);
  }
}

/** The positions of `list`'s boxes in the order of their centres along a Hilbert curve over their extent. */
function hilbertOrder(list: BoxList): Uint32Array {
  const n = list.length;
  const b = list.boxes;
  let [minx, miny, maxx, maxy] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    minx = Math.min(minx, b[i * 4]!);
    maxx = Math.max(maxx, b[i * 4 + 1]!);
    miny = Math.min(miny, b[i * 4 + 2]!);
    maxy = Math.max(maxy, b[i * 4 + 3]!);
  }
  const sx = maxx > minx ? 65535 / (maxx - minx) : 0;
  const sy = maxy > miny ? 65535 / (maxy - miny) : 0;
  const keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(((b[i * 4]! + b[i * 4 + 1]!) / 2 - minx) * sx);
    const cy = Math.floor(((b[i * 4 + 2]! + b[i * 4 + 3]!) / 2 - miny) * sy);
    keys[i] = hilbert(cx, cy);
  }
  return radixOrder(keys);
}

/** The positions of `keys` in ascending order of their values (a stable radix sort, 16 bits a pass). */
function radixOrder(keys: Uint32Array): Uint32Array {
  let order = new Uint32Array(keys.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  let next = new Uint32Array(keys.length);
  for (const shift of [0, 16]) {
    const counts = new Uint32Array(65537);
    for (let i = 0; i < keys.length; i++) counts[((keys[i]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 1; d <= 65536; d++) counts[d]! += counts[d - 1]!;
    for (let i = 0; i < order.length; i++) next[counts[(keys[order[i]!]! >>> shift) & 0xffff]!++] = order[i]!;
    [order, next] = [next, order];
  }
  return order;
}

/**
 * One level of the tree: each entry's id and its box as stored (minx, maxx, miny, maxy in 32-bit floats), taken in
 * the order of `order` (the entries' places) when there is one, else as they are.
 */
interface Level {
  ids: Float64Array;
  boxes: Float32Array;
  order?: Uint32Array;
}

/** Nodes sent to the writer at a time (51 boxes each at the usual node size). */
const NODES_A_BATCH = 512;
/** `_rowid` rows sent to the writer at a time. */
const ROWIDS_A_BATCH = 65_536;

/**
 * Creates the R-tree `name` (id, minx, maxx, miny, maxy) holding `list`'s boxes in the database `db` writes, inside
 * one transaction of its own; the nodes are made here while `db`'s thread still inserts what was sent before.
 * `db` must not run in SQLite's defensive mode (it forbids writing shadow tables; node:sqlite leaves it off).
 */
export async function writePackedRtree(db: SqliteWorker, name: string, list: BoxList): Promise<void> {
  const q = (suffix: string) => quoteSqliteIdent(`${name}${suffix}`);
  db.exec(`CREATE VIRTUAL TABLE ${q('')} USING rtree(id, minx, maxx, miny, maxy)`);
  if (!list.length) return;
  // The node size SQLite chose at creation (from the page size), read back from the empty root it wrote.
  const nodeSizeAnswer = db.get<{ size: number }>(`SELECT length(data) AS size FROM ${q('_node')} WHERE nodeno = 1`);
  const order = hilbertOrder(list);
  // The leaves read the list's boxes through the curve's order (a sorted copy held 24 more bytes a box).
  let level: Level = { ids: list.ids, boxes: list.boxes, order };
  const nodeSize = Number((await nodeSizeAnswer).size);
  const perNode = Math.floor((nodeSize - 4) / 24);
  // Nodes and parent links gathered a batch at a time, sent as columns (the root replaces the empty one).
  let nodes = { nodeno: new Float64Array(NODES_A_BATCH), bytes: new Uint8Array(NODES_A_BATCH * nodeSize), count: 0 };
  const sendNodes = () => {
    if (!nodes.count) return;
    const lengths = new Int32Array(nodes.count).fill(nodeSize);
    db.insert(`INSERT OR REPLACE INTO ${q('_node')} (nodeno, data)`, nodes.count, [{ f64: nodes.nodeno }, { bytes: nodes.bytes.slice(0, nodes.count * nodeSize), lengths }]);
    nodes = { nodeno: new Float64Array(NODES_A_BATCH), bytes: new Uint8Array(NODES_A_BATCH * nodeSize), count: 0 };
  };
  const parents: number[] = [];
  // Each box's leaf, by the box's place in `list`: `_rowid` is filled in the list's order, ascending ids as rows are
  // numbered, since inserting it in curve order (random ids) sent SQLite all over a B-tree past its page cache.
  const leafOf = new Float64Array(list.length);
  db.exec('BEGIN');
  let nextNode = 2;
  let depth = 0;
  let length = list.length;
  for (;;) {
    const count = Math.ceil(length / perNode);
    const root = count === 1;
    const up: Level = { ids: new Float64Array(count), boxes: new Float32Array(count * 4) };
    for (let k = 0; k < count; k++) {
      const nodeno = root ? 1 : nextNode++;
      const [start, end] = [k * perNode, Math.min(length, (k + 1) * perNode)];
      const view = new DataView(nodes.bytes.buffer, nodes.count * nodeSize, nodeSize);
      nodes.nodeno[nodes.count++] = nodeno;
      view.setUint16(0, root ? depth : 0);
      view.setUint16(2, end - start);
      let [minx, maxx, miny, maxy] = [Infinity, -Infinity, Infinity, -Infinity];
      for (let p = start; p < end; p++) {
        const at = 4 + (p - start) * 24;
        const i = level.order ? level.order[p]! : p;
        const id = level.ids[i]!;
        // A 64-bit id as two 32-bit halves (ids are positive and below 2^53).
        view.setUint32(at, Math.floor(id / 2 ** 32));
        view.setUint32(at + 4, id % 2 ** 32);
        const b = level.boxes;
        view.setFloat32(at + 8, b[i * 4]!);
        view.setFloat32(at + 12, b[i * 4 + 1]!);
        view.setFloat32(at + 16, b[i * 4 + 2]!);
        view.setFloat32(at + 20, b[i * 4 + 3]!);
        if (b[i * 4]! < minx) minx = b[i * 4]!;
        if (b[i * 4 + 1]! > maxx) maxx = b[i * 4 + 1]!;
        if (b[i * 4 + 2]! < miny) miny = b[i * 4 + 2]!;
        if (b[i * 4 + 3]! > maxy) maxy = b[i * 4 + 3]!;
        if (depth === 0) leafOf[i] = nodeno;
        else parents.push(id, nodeno);
      }
      if (nodes.count === NODES_A_BATCH) sendNodes();
      up.ids[k] = nodeno;
      up.boxes.set([minx, maxx, miny, maxy], k * 4);
    }
    if (root) break;
    level = up;
    length = count;
    depth++;
  }
  sendNodes();
  if (parents.length) db.insert(`INSERT INTO ${q('_parent')} (nodeno, parentnode)`, parents.length / 2, [{ f64: Float64Array.from(parents.filter((_, i) => i % 2 === 0)) }, { f64: Float64Array.from(parents.filter((_, i) => i % 2 === 1)), integer: true }]);
  for (let from = 0; from < list.length; from += ROWIDS_A_BATCH) {
    const to = Math.min(list.length, from + ROWIDS_A_BATCH);
    db.insert(`INSERT INTO ${q('_rowid')} (rowid, nodeno)`, to - from, [{ f64: list.ids.slice(from, to) }, { f64: leafOf.slice(from, to), integer: true }]);
    await db.drain(4);
  }
  db.exec('COMMIT');
}
