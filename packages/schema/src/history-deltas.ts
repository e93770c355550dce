import { create, type Delta } from 'jsondiffpatch/with-text-diffs';

/**
 * Versions are stored as deltas against periodic full states (#51): a version's state is the full
 * state at or before it with the deltas after it applied in order. A full state every
 * HISTORY_FULL_EVERY versions bounds the longest chain (docs/decisions.md "History: a full state every
 * 20 versions").
 */
export const HISTORY_FULL_EVERY = 20;

export type StateDelta = Delta;

/**
 * Array items (layers, filters, widgets, parameters, cells, layout items) match by id, so inserting a
 * layer makes one entry in the delta instead of rewriting every layer after it. Items without an id
 * match by position, as jsondiffpatch's own default does.
 */
function objectHash(item: object, index?: number): string {
  // jsondiffpatch hashes null too (typeof null is 'object'): an array holding a null beside an object must not throw.
  if (item === null) return `$$index:${index}`;
  const o = item as { id?: unknown; i?: unknown };
  if (typeof o.id === 'string' || typeof o.id === 'number') return `id:${o.id}`;
  if (typeof o.i === 'string') return `i:${o.i}`;
  return `$$index:${index}`;
}

const patcher = create({
  objectHash,
  arrays: { detectMove: true, includeValueOnMove: false },
  // Long strings (SQL, markdown) change by a few characters: store the text patch, not both texts.
  textDiff: { minLength: 120 },
  // Only forward patches are applied: the replaced values are not kept.
  omitRemovedValues: true,
});

/**
 * The pairs (before's object → after's object, paired by key and index) found equal in one walk before a diff.
 * jsondiffpatch makes a context for every value it visits, equal or not (every string of a layer's colour range),
 * which was most of a 5 MB map's save (#51: 0.9 s of diff for one changed opacity, measured 2026-12-03); with the
 * walk it visits the changed path and the direct children of it. Set only while `stateDelta` runs (diff is
 * synchronous).
 */
let equalPairs: WeakMap<object, object> | null = null;

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

/**
 * Whether a and b are the same JSON value. Under a pair that differs, each equal pair of objects is recorded: those
 * are what jsondiffpatch reaches from the changed path, and it stops there. Inside an equal pair nothing is recorded
 * (recording every node was two thirds of the walk). The walk goes on past a difference, to the pairs after it.
 */
function markEqual(a: unknown, b: unknown, pairs: WeakMap<object, object>): boolean {
  if (a === b) return true;
  if (!isObject(a) || !isObject(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false;
    let equal = a.length === b.length;
    for (let i = 0; i < a.length && i < b.length; i++) {
      if (markEqual(a[i], b[i], pairs)) {
        if (!equal && isObject(a[i])) pairs.set(a[i], b[i]);
      } else if (equal) {
        // The first difference: the items before it were equal, unrecorded until now.
        equal = false;
        for (let j = 0; j < i; j++) if (isObject(a[j])) pairs.set(a[j], b[j]);
      }
    }
    return equal;
  }
  if (Array.isArray(b)) return false;
  const oa = a as Record<string, unknown>;
  const ob = b as Record<string, unknown>;
  let keys = 0;
  for (const _ in oa) keys++;
  for (const _ in ob) keys--;
  let equal = keys === 0;
  for (const k in oa) {
    const va = oa[k];
    const vb = ob[k];
    // A key only one side has (or holds undefined on) is a difference for jsondiffpatch to describe.
    if (va !== undefined && vb !== undefined && Object.hasOwn(ob, k) && markEqual(va, vb, pairs)) {
      if (!equal && isObject(va)) pairs.set(va, vb as object);
    } else if (equal) {
      equal = false;
      for (const j in oa) {
        if (j === k) break;
        const vj = oa[j];
        if (isObject(vj)) pairs.set(vj, ob[j] as object);
      }
    }
  }
  return equal;
}

function skipEqualPairs(context: { left: unknown; right: unknown; setResult(r: undefined): { exit(): void } }): void {
  if (!equalPairs || typeof context.left !== 'object' || context.left === null) return;
  // `right` may be undefined (a key removed): only a recorded pair is equal.
  const right = equalPairs.get(context.left);
  if (right !== undefined && right === context.right) context.setResult(undefined).exit();
}
skipEqualPairs.filterName = 'skipEqualPairs';
patcher.processor.pipes.diff.before('trivial', skipEqualPairs as Parameters<typeof patcher.processor.pipes.diff.before>[1]);

/** The delta that turns `before` into `after`; undefined when they are the same JSON value. */
export function stateDelta(before: unknown, after: unknown): StateDelta | undefined {
  const pairs = new WeakMap<object, object>();
  if (markEqual(before, after, pairs)) return undefined;
  equalPairs = pairs;
  try {
    return patcher.diff(before, after);
  } finally {
    equalPairs = null;
  }
}

/** `state` with `delta` applied; `state` itself is not changed. */
export function applyStateDelta(state: unknown, delta: StateDelta | undefined): unknown {
  if (delta == null) return state;
  return patcher.patch(structuredClone(state), delta);
}

/** One stored version: its whole state, or the delta from the version before it in the chain. */
export type StoredVersionBody = { kind: 'full'; body: unknown } | { kind: 'delta'; body: StateDelta };

/**
 * The state at the end of a chain that starts with a full state. `owned`: the chain's bodies were read for this call
 * alone (rows just parsed from the catalog), so the full state is patched where it is instead of being copied first
 * (the copy was a fifth of opening a 5 MB map's version, measured 2026-12-03); the chain is not usable after.
 */
export function reconstructState(chain: readonly StoredVersionBody[], opts: { owned?: boolean } = {}): unknown {
  if (chain.length === 0) throw new Error('An empty version chain has no state');
  if (chain[0]!.kind !== 'full') throw new Error('A version chain starts with a full state');
  const own = (body: unknown) => (opts.owned ? body : structuredClone(body));
  // The full state is cloned once (unless owned); the deltas after it patch that copy in place.
  let state: unknown = own(chain[0]!.body);
  for (const link of chain.slice(1)) {
    if (link.kind === 'full') state = own(link.body);
    // A null delta: the same state again (thinning can put two equal states side by side).
    else if (link.body != null) state = patcher.patch(state, link.body);
  }
  return state;
}

/** Whether the version after one `chainLength` deltas past its full state is stored whole. */
export const nextIsFull = (chainLength: number | null): boolean => chainLength === null || chainLength + 1 >= HISTORY_FULL_EVERY;

/**
 * Stores a run of states (oldest first) as a chain again: a full state first and every
 * HISTORY_FULL_EVERY after, deltas between. Thinning removes versions and re-bases the rest with this.
 */
export function rebaseChain(states: readonly unknown[]): { kind: 'full' | 'delta'; body: unknown; chain: number }[] {
  return states.map((state, i) =>
    i % HISTORY_FULL_EVERY === 0
      ? { kind: 'full' as const, body: state, chain: 0 }
      : { kind: 'delta' as const, body: stateDelta(states[i - 1], state) ?? null, chain: i % HISTORY_FULL_EVERY },
  );
}

/** The same JSON value with object keys sorted: equality "key order aside", as jsonb keeps it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
