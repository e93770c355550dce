import { StudioError } from '@studio/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePipeline, validatePipeline } from '../src/index';

const resolveDataset = (uuid: string) => ({ relationSql: `"${uuid.replace(/"/g, '""')}"` });
const compileBoth = (node: unknown) => {
  for (const dialect of ['duckdb', 'postgres'] as const) compilePipeline(node, { dialect, resolveDataset });
};

const column = fc.constantFrom('a', 'b', 'c', '"odd ""name"""', 'metric1');
const strLit = fc.string({ maxLength: 8 }).map((s) => `'${s.replace(/'/g, "''")}'`);
const numLit = fc.oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((d) => d.toFixed(3)));
const atom = fc.oneof(column, numLit, strLit, fc.constantFrom('NULL', 'TRUE', 'FALSE'));

/** Valid scalar expressions (no aggregates, no H3 so both dialects compile). */
const { expr } = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '=', '!=', '<>', '<', '<=', '>', '>=', 'AND', 'OR', '||'), tie('expr')).map(([l, o, r]) => `(${l} ${o} ${r})`),
    tie('expr').map((e) => `(NOT (${e}))`),
    fc.tuple(tie('expr'), fc.boolean()).map(([e, n]) => `((${e}) IS ${n ? 'NOT ' : ''}NULL)`),
    fc.tuple(column, fc.array(atom, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([c, l, n]) => `(${c} ${n ? 'NOT ' : ''}IN (${l.join(', ')}))`),
    fc.tuple(column, numLit, numLit).map(([c, a, b]) => `(${c} BETWEEN ${a} AND ${b})`),
    fc.tuple(column, strLit).map(([c, s]) => `(${c} LIKE ${s})`),
    fc.tuple(fc.constantFrom('abs', 'lower', 'upper', 'length', 'sqrt', 'floor'), tie('expr')).map(([f, e]) => `${f}(${e})`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `coalesce(${x}, ${y})`),
  ),
}));
const agg = fc.tuple(fc.constantFrom('sum', 'count', 'min', 'max', 'mean', 'median', 'mode'), column).map(([f, c]) => `${f}(${c})`);

const leaf = fc.oneof(
  fc.string({ minLength: 1, maxLength: 10 }).map((uuid) => ({ type: 'dataset', uuid })),
  fc.array(fc.record({ a: fc.oneof(fc.integer(), fc.constant(null)), b: fc.string({ maxLength: 5 }) }), { minLength: 1, maxLength: 4 }).map((data) => ({ type: 'inline_data', format: 'JSON_OBJECT', data })),
  fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.constantFrom('x', '', '"q,"""', 'true')), { minLength: 0, maxLength: 4 })
    .map((rows) => ({ type: 'inline_data', format: 'CSV', data: `n,s\n${rows.map(([n, s]) => `${n},${s}`).join('\n')}` })),
  fc.integer({ min: 0, max: 9 }).map((res) => ({ type: 'hexify', res, geojson: { type: 'Polygon', coordinates: [[[0, 0], [0.01, 0], [0.01, 0.01], [0, 0.01], [0, 0]]] } })),
);

type N = Record<string, unknown>;
const { node } = fc.letrec<{ node: N }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(expr, tie('node')).map(([expression, i]) => ({ type: 'filter', expression, input: [i] })),
    fc.tuple(fc.array(fc.tuple(expr, fc.boolean()), { minLength: 1, maxLength: 3 }), tie('node')).map(([es, i]) => ({
      type: 'select', expressions: es.map(([e, alias], k) => (alias ? `${e} AS x${k}` : e)), input: [i],
    })),
    fc.tuple(fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { maxLength: 2 }), fc.array(agg, { minLength: 1, maxLength: 3 }), tie('node'))
      .map(([by, aggs, i]) => ({ type: 'group', by, expressions: [...aggs, 'count(*)'], input: [i] })),
    fc.tuple(fc.array(fc.tuple(column, fc.constantFrom('', 'asc', 'desc')), { minLength: 1, maxLength: 3 }), tie('node'))
      .map(([ks, i]) => ({ type: 'sort', by: ks.map(([c, d]) => (d ? `${d}(${c})` : c)), input: [i] })),
    fc.tuple(fc.integer({ min: 1, max: 100 }), fc.option(fc.nat(50), { nil: undefined }), tie('node'))
      .map(([length, offset, i]) => ({ type: 'limit', length, ...(offset === undefined ? {} : { offset }), input: [i] })),
    fc.tuple(fc.constantFrom('LEFT', 'INNER', 'FULL'), tie('node'), tie('node')).map(([join, l, r]) => ({ type: 'join', join, on: [{ columns: ['a'] }], input: [l, r] })),
    fc.tuple(tie('node'), fc.option(fc.constantFrom('YEAR', 'DAY', 'SECOND'), { nil: undefined })).map(([i, ti]) => ({
      type: 'enrich', sourceId: 'src', sourceColumn: ['pop'], targetType: 'H3', column: 'a', ...(ti ? { timeColumn: 't', timeInterval: ti } : {}), input: [i],
    })),
  ),
}));

/** Mutations that always make a node invalid. */
const breakNode = (n: N, how: number): unknown => {
  switch (how) {
    case 0: return { ...n, type: 'bogus' };
    case 1: return { ...n, input: 'nope' };
    case 2: return null;
    case 3: return n.type === 'filter' ? { ...n, expression: `${n.expression as string} +` } : { ...n, type: 7 };
    case 4: return n.type === 'limit' ? { ...n, length: 0 } : n.type === 'join' ? { ...n, input: [(n.input as N[])[0]] } : [n];
    default: return n.type === 'dataset' ? { ...n, uuid: '' } : { ...n, input: [...((n.input as N[]) ?? []), { type: 'dataset', uuid: 'x' }, { type: 'dataset', uuid: 'y' }] };
  }
};
/** Breaks the node at a random depth along the first-input chain. */
const breakAt = (n: N, depth: number, how: number): unknown => {
  const inputs = n.input as N[] | undefined;
  if (depth === 0 || !inputs?.length) return breakNode(n, how);
  return { ...n, input: [breakAt(inputs[0]!, depth - 1, how), ...inputs.slice(1)] };
};

const expectStudio = (f: () => unknown, status?: number) => {
  try { f(); } catch (e) {
    expect(e).toBeInstanceOf(StudioError);
    if (status !== undefined) expect((e as StudioError).status).toBe(status);
    return e;
  }
  if (status !== undefined) throw new Error('expected a StudioError');
  return undefined;
};

/** Node types of a pipeline and its depth, for the properties' own coverage checks. */
const shapeOf = (n: N, depth = 1): { types: string[]; depth: number } => {
  const inputs = (n.input as N[] | undefined) ?? [];
  const below = inputs.map((i) => shapeOf(i, depth + 1));
  return { types: [n.type as string, ...below.flatMap((b) => b.types)], depth: Math.max(depth, ...below.map((b) => b.depth)) };
};

describe('random pipelines', () => {
  it('valid ones validate and compile on both dialects, covering every node type and deep pipelines', () => {
    const seen = new Map<string, number>();
    let deep = 0;
    fc.assert(fc.property(node, (n) => {
      validatePipeline(n);
      compileBoth(n);
      const shape = shapeOf(n);
      for (const t of shape.types) seen.set(t, (seen.get(t) ?? 0) + 1);
      if (shape.depth >= 3) deep++;
    }), { numRuns: 300, seed: 20261125 });
    // The generator proves its reach: every node type in many pipelines, and nesting, not only leaves.
    for (const t of ['dataset', 'inline_data', 'hexify', 'filter', 'select', 'group', 'sort', 'limit', 'join', 'enrich']) expect(seen.get(t) ?? 0, t).toBeGreaterThan(10);
    expect(deep).toBeGreaterThan(150); // measured: 230 of 300 three levels deep or more, each type in 90-220
  });
  it('broken ones are refused with a 422', () => {
    fc.assert(
      fc.property(node, fc.nat(6), fc.nat(5), (n, depth, how) => {
        expectStudio(() => validatePipeline(breakAt(n, depth, how)), 422);
      }),
      { numRuns: 300 },
    );
  });
  it('arbitrary JSON never throws anything but a StudioError', () => {
    fc.assert(fc.property(fc.jsonValue(), (j) => { expectStudio(() => compileBoth(j)); }), { numRuns: 300 });
    const shaped = fc.record({ type: fc.constantFrom('filter', 'select', 'sort', 'group', 'limit', 'join', 'enrich', 'hexify', 'inline_data'), input: fc.array(node, { maxLength: 2 }) }, { requiredKeys: ['type'] });
    fc.assert(fc.property(shaped, fc.dictionary(fc.constantFrom('expression', 'expressions', 'by', 'length', 'offset', 'res', 'geojson', 'format', 'data', 'on', 'join'), fc.jsonValue()), (s, props) => {
      expectStudio(() => compileBoth({ ...props, ...s }));
    }), { numRuns: 300 });
  });
  it('arbitrary expression text never throws anything but a StudioError', () => {
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.constantFrom('a', '(', ')', "'", '"', ',', ' AND ', ' NOT ', ' IN ', 'sum', 'count(*)', '1', '.5e', '<>', '*', ' IS ', 'NULL', ' BETWEEN '), { maxLength: 12 }).map((p) => p.join('')));
    let accepted = 0;
    fc.assert(fc.property(text, (t) => {
      if (!expectStudio(() => compileBoth({ type: 'filter', expression: t, input: [{ type: 'dataset', uuid: 'd' }] }))) accepted++;
      expectStudio(() => compileBoth({ type: 'sort', by: [t], input: [{ type: 'dataset', uuid: 'd' }] }));
    }), { numRuns: 500, seed: 20261125 });
    // Both sides of the parser are exercised: some text compiles, most is refused with a StudioError.
    expect(accepted).toBeGreaterThan(25); // measured: 58 of 500
    expect(accepted).toBeLessThan(475);
  });
});
