import { badInput } from '@studio/schema';
import type { Expr, Literal } from '../expr/ast';
import { DATE_UNITS, FUNCTIONS } from '../expr/functions';
import type { Dialect } from './dialect';
import type { Params } from './params';

export type ExprCtx = { dialect: Dialect; params: Params; /** table alias to qualify columns with */ qualifier?: string };

const COMPARISON = new Set(['=', '!=', '<', '<=', '>', '>=']);

function literal(v: Literal, ctx: ExprCtx, untypedString: boolean): string {
  const { dialect: d, params } = ctx;
  if (v === null) return 'NULL';
  if (typeof v === 'string') {
    // Next to a column in a comparison the engine infers the type (e.g. a timestamp), as for a SQL literal.
    return untypedString ? params.add(v) : `CAST(${params.add(v)} AS ${d.typeName('varchar')})`;
  }
  if (typeof v === 'boolean') return `CAST(${params.add(v)} AS ${d.typeName('boolean')})`;
  return `CAST(${params.add(v)} AS ${d.typeName(Number.isSafeInteger(v) ? 'bigint' : 'double')})`;
}

const isLit = (e: Expr) => e.kind === 'literal';

/** Compiles an expression AST to SQL text with parameters; the AST holds no raw user SQL. */
export function compileExpr(e: Expr, ctx: ExprCtx, untypedString = false): string {
  const d = ctx.dialect;
  const sub = (x: Expr, untyped = false) => compileExpr(x, ctx, untyped);
  switch (e.kind) {
    case 'literal': return literal(e.value, ctx, untypedString);
    case 'column': return ctx.qualifier ? `${ctx.qualifier}.${d.quoteIdent(e.name)}` : d.quoteIdent(e.name);
    case 'star': return '*';
    case 'unary': return e.op === 'NOT' ? `(NOT ${sub(e.arg)})` : `(- ${sub(e.arg)})`;
    case 'binary': {
      if (e.op === '/') return d.divide(sub(e.left), sub(e.right));
      if (e.op === 'AND' || e.op === 'OR') return `(${sub(e.left)} ${e.op} ${sub(e.right)})`;
      const cmp = COMPARISON.has(e.op);
      // For comparisons a string literal facing a non-literal takes the other side's type.
      const l = sub(e.left, cmp && !isLit(e.right));
      const r = sub(e.right, cmp && !isLit(e.left));
      const op = e.op === '!=' ? '<>' : e.op;
      return `(${l} ${op} ${r})`;
    }
    case 'in': {
      const untyped = !isLit(e.arg);
      return `(${sub(e.arg)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map((x) => sub(x, untyped)).join(', ')}))`;
    }
    case 'between': {
      const untyped = !isLit(e.arg);
      return `(${sub(e.arg)} ${e.negated ? 'NOT BETWEEN' : 'BETWEEN'} ${sub(e.low, untyped)} AND ${sub(e.high, untyped)})`;
    }
    case 'isNull': return `(${sub(e.arg)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'like':
      return `(CAST(${sub(e.arg)} AS ${d.typeName('varchar')}) ${e.negated ? 'NOT LIKE' : 'LIKE'} ${sub(e.pattern)})`;
    case 'call': {
      if (e.name === 'date_trunc') {
        const unit = DATE_UNITS.find((u) => u === (e.args[0] as { value?: unknown }).value);
        if (!unit) throw badInput(`Invalid date_trunc unit at position ${e.args[0]!.pos}`);
        return d.call('date_trunc', [`'${unit}'`, sub(e.args[1]!)]);
      }
      if (!FUNCTIONS[e.name]) throw badInput(`Unknown function '${e.name}' at position ${e.pos}`);
      return d.call(e.name, e.args.map((a) => sub(a)));
    }
  }
}

/** Column names an expression reads outside aggregate calls (group validation). */
export function bareColumns(e: Expr, out: string[] = []): string[] {
  switch (e.kind) {
    case 'column': out.push(e.name); break;
    case 'call': if (FUNCTIONS[e.name]?.kind !== 'aggregate') e.args.forEach((a) => bareColumns(a, out)); break;
    case 'unary': case 'isNull': bareColumns(e.arg, out); break;
    case 'binary': bareColumns(e.left, out); bareColumns(e.right, out); break;
    case 'in': bareColumns(e.arg, out); e.list.forEach((a) => bareColumns(a, out)); break;
    case 'between': bareColumns(e.arg, out); bareColumns(e.low, out); bareColumns(e.high, out); break;
    case 'like': bareColumns(e.arg, out); bareColumns(e.pattern, out); break;
    default: break;
  }
  return out;
}

/** Output name of a select/group item without `AS`: a column keeps its name, `fn(col)` becomes `fn_col`. */
export function defaultName(e: Expr, text: string, index: number): string {
  if (e.kind === 'column') return e.name;
  if (e.kind === 'call') {
    const fn = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(text)?.[1]?.toLowerCase() ?? e.name;
    const a = e.args[0];
    if (e.args.length === 1 && a?.kind === 'star') return fn;
    if (e.args.length === 1 && a?.kind === 'column') return `${fn}_${a.name}`;
  }
  return `expr_${index}`;
}
