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

/** The delta that turns `before` into `after`; undefined when they are the same JSON value. */
export function stateDelta(before: unknown, after: unknown): StateDelta | undefined {
  return patcher.diff(before, after);
}

/** `state` with `delta` applied; `state` itself is not changed. */
export function applyStateDelta(state: unknown, delta: StateDelta | undefined): unknown {
  if (delta == null) return state;
  return patcher.patch(structuredClone(state), delta);
}

/** One stored version: its whole state, or the delta from the version before it in the chain. */
export type StoredVersionBody = { kind: 'full'; body: unknown } | { kind: 'delta'; body: StateDelta };

/** The state at the end of a chain that starts with a full state. */
export function reconstructState(chain: readonly StoredVersionBody[]): unknown {
  if (chain.length === 0) throw new Error('An empty version chain has no state');
  if (chain[0]!.kind !== 'full') throw new Error('A version chain starts with a full state');
  // The full state is cloned once; the deltas after it patch that copy in place.
  let state: unknown = structuredClone(chain[0]!.body);
  for (const link of chain.slice(1)) {
    if (link.kind === 'full') state = structuredClone(link.body);
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
