import type { Expr, Item, SortKey } from './ast';
import { DATE_UNITS, FUNCTIONS } from './functions';
import { syntaxError, tokenize, type Token } from './tokenize';

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IN', 'IS', 'NULL', 'BETWEEN', 'LIKE', 'TRUE', 'FALSE', 'AS', 'ASC', 'DESC']);
const COMPARE = new Set(['=', '!=', '<', '<=', '>', '>=']);
/** Deeper nesting than this is refused rather than risking a stack overflow. */
const MAX_DEPTH = 200;

class Parser {
  private i = 0;
  private depth = 0;
  private readonly toks: Token[];
  constructor(private readonly text: string) {
    this.toks = tokenize(text);
  }

  private peek(): Token { return this.toks[this.i]!; }
  private next(): Token { return this.toks[this.i++]!; }
  private fail(what: string, pos = this.peek().pos): never { throw syntaxError(this.text, pos, what); }
  private isKw(kw: string, tok = this.peek()): boolean {
    return tok.t === 'ident' && !tok.quoted && tok.v.toUpperCase() === kw;
  }
  private acceptKw(kw: string): boolean {
    if (this.isKw(kw)) { this.i++; return true; }
    return false;
  }
  private isOp(op: string): boolean { const t = this.peek(); return t.t === 'op' && t.v === op; }
  private expectOp(op: string): void {
    if (!this.isOp(op)) this.fail(`expected '${op}'`);
    this.i++;
  }
  private describe(t: Token): string {
    return t.t === 'eof' ? 'end of expression' : `'${'v' in t ? String(t.v) : ''}'`;
  }
  end(): void {
    const t = this.peek();
    if (t.t !== 'eof') this.fail(`unexpected ${this.describe(t)}`);
  }

  expr(): Expr {
    if (++this.depth > MAX_DEPTH) this.fail('expression nested too deeply');
    const e = this.or();
    this.depth--;
    return e;
  }
  private or(): Expr {
    let left = this.and();
    while (this.isKw('OR')) { const pos = this.next().pos; left = { kind: 'binary', op: 'OR', left, right: this.and(), pos }; }
    return left;
  }
  private and(): Expr {
    let left = this.not();
    while (this.isKw('AND')) { const pos = this.next().pos; left = { kind: 'binary', op: 'AND', left, right: this.not(), pos }; }
    return left;
  }
  private not(): Expr {
    if (this.isKw('NOT')) {
      const pos = this.next().pos;
      if (++this.depth > MAX_DEPTH) this.fail('expression nested too deeply');
      const arg = this.not();
      this.depth--;
      return { kind: 'unary', op: 'NOT', arg, pos };
    }
    return this.predicate();
  }
  private predicate(): Expr {
    const arg = this.additive();
    const t = this.peek();
    if (t.t === 'op' && COMPARE.has(t.v)) {
      this.i++;
      return { kind: 'binary', op: t.v as '=', left: arg, right: this.additive(), pos: t.pos };
    }
    if (this.isKw('IS')) {
      this.i++;
      const negated = this.acceptKw('NOT');
      if (!this.acceptKw('NULL')) this.fail('expected NULL after IS');
      return { kind: 'isNull', arg, negated, pos: t.pos };
    }
    let negated = false;
    if (this.isKw('NOT')) {
      const after = this.toks[this.i + 1]!;
      if (this.isKw('IN', after) || this.isKw('BETWEEN', after) || this.isKw('LIKE', after)) { this.i++; negated = true; }
      else this.fail("expected IN, BETWEEN or LIKE after NOT");
    }
    if (this.acceptKw('IN')) {
      this.expectOp('(');
      const list: Expr[] = [this.expr()];
      while (this.isOp(',')) { this.i++; list.push(this.expr()); }
      this.expectOp(')');
      return { kind: 'in', arg, list, negated, pos: t.pos };
    }
    if (this.acceptKw('BETWEEN')) {
      const low = this.additive();
      if (!this.acceptKw('AND')) this.fail('expected AND in BETWEEN');
      return { kind: 'between', arg, low, high: this.additive(), negated, pos: t.pos };
    }
    if (this.acceptKw('LIKE')) return { kind: 'like', arg, pattern: this.additive(), negated, pos: t.pos };
    return arg;
  }
  private additive(): Expr {
    let left = this.mult();
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && (t.v === '+' || t.v === '-' || t.v === '||')) {
        this.i++;
        left = { kind: 'binary', op: t.v, left, right: this.mult(), pos: t.pos };
      } else return left;
    }
  }
  private mult(): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && (t.v === '*' || t.v === '/' || t.v === '%')) {
        this.i++;
        left = { kind: 'binary', op: t.v, left, right: this.unary(), pos: t.pos };
      } else return left;
    }
  }
  private unary(): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const t = this.next();
      if (++this.depth > MAX_DEPTH) this.fail('expression nested too deeply');
      const arg = this.unary();
      this.depth--;
      if (t.t === 'op' && t.v === '+') return arg;
      if (arg.kind === 'literal' && typeof arg.value === 'number') return { kind: 'literal', value: -arg.value, pos: t.pos };
      return { kind: 'unary', op: '-', arg, pos: t.pos };
    }
    return this.primary();
  }
  private primary(): Expr {
    const t = this.next();
    if (t.t === 'num') {
      if (!Number.isFinite(t.v)) this.fail('number out of range', t.pos);
      return { kind: 'literal', value: t.v, pos: t.pos };
    }
    if (t.t === 'str') return { kind: 'literal', value: t.v, pos: t.pos };
    if (t.t === 'op' && t.v === '(') {
      const e = this.expr();
      this.expectOp(')');
      return e;
    }
    if (t.t === 'ident') {
      if (!t.quoted) {
        const kw = t.v.toUpperCase();
        if (kw === 'TRUE' || kw === 'FALSE') return { kind: 'literal', value: kw === 'TRUE', pos: t.pos };
        if (kw === 'NULL') return { kind: 'literal', value: null, pos: t.pos };
        if (KEYWORDS.has(kw)) this.fail(`unexpected keyword ${kw}`, t.pos);
        if (this.isOp('(')) return this.call(t.v, t.pos);
      }
      return { kind: 'column', name: t.v, pos: t.pos };
    }
    if (t.t === 'op' && t.v === '*') this.fail("'*' is only allowed in count(*)", t.pos);
    return this.fail(`unexpected ${this.describe(t)}`, t.pos);
  }
  private call(rawName: string, pos: number): Expr {
    const name = rawName.toLowerCase();
    const fn = FUNCTIONS[name];
    if (!fn || !Object.hasOwn(FUNCTIONS, name)) {
      throw syntaxError(this.text, pos, `unknown function '${rawName}'`);
    }
    this.expectOp('(');
    const args: Expr[] = [];
    if (name === 'count' && this.isOp('*')) {
      args.push({ kind: 'star', pos: this.next().pos });
    } else if (!this.isOp(')')) {
      args.push(this.expr());
      while (this.isOp(',')) { this.i++; args.push(this.expr()); }
    }
    this.expectOp(')');
    if (args.length < fn.min || args.length > fn.max) {
      const want = fn.min === fn.max ? `${fn.min}` : `${fn.min} to ${fn.max}`;
      this.fail(`${name} takes ${want} argument${fn.max === 1 ? '' : 's'}`, pos);
    }
    if (name === 'date_trunc') {
      const unit = args[0]!;
      if (unit.kind !== 'literal' || typeof unit.value !== 'string' || !(DATE_UNITS as readonly string[]).includes(unit.value.toLowerCase())) {
        this.fail(`date_trunc unit must be one of ${DATE_UNITS.map((u) => `'${u}'`).join(', ')}`, unit.pos);
      }
      args[0] = { ...unit, value: (unit.value as string).toLowerCase() };
    }
    if (fn.kind === 'aggregate') {
      for (const a of args) if (containsAggregate(a)) this.fail('aggregate functions cannot be nested', a.pos);
    }
    return { kind: 'call', name: fn.canonical, args, pos };
  }

  alias(): string | undefined {
    if (!this.acceptKw('AS')) return undefined;
    const t = this.next();
    if (t.t !== 'ident' || (!t.quoted && KEYWORDS.has(t.v.toUpperCase()))) this.fail('expected an alias after AS', t.pos);
    return t.v;
  }

  sortKey(): SortKey {
    const t = this.peek();
    const after = this.toks[this.i + 1]!;
    if ((this.isKw('ASC') || this.isKw('DESC')) && after.t === 'op' && after.v === '(') {
      this.i += 2;
      const expr = this.expr();
      this.expectOp(')');
      return { expr, desc: this.isKw('DESC', t) };
    }
    return { expr: this.expr(), desc: false };
  }
}

export function containsAggregate(e: Expr): boolean {
  switch (e.kind) {
    case 'call': return FUNCTIONS[e.name]?.kind === 'aggregate' || e.args.some(containsAggregate);
    case 'unary': case 'isNull': return containsAggregate(e.arg);
    case 'binary': return containsAggregate(e.left) || containsAggregate(e.right);
    case 'in': return containsAggregate(e.arg) || e.list.some(containsAggregate);
    case 'between': return containsAggregate(e.arg) || containsAggregate(e.low) || containsAggregate(e.high);
    case 'like': return containsAggregate(e.arg) || containsAggregate(e.pattern);
    default: return false;
  }
}

/** A plain expression (filter). */
export function parseExpression(text: string): Expr {
  const p = new Parser(text);
  const e = p.expr();
  p.end();
  return e;
}

/** `expr [AS alias]` (select, group). */
export function parseItem(text: string): Item {
  const p = new Parser(text);
  const expr = p.expr();
  const alias = p.alias();
  p.end();
  return alias === undefined ? { expr, text } : { expr, alias, text };
}

/** `col`, `asc(col)`, `desc(col)` (sort.by). */
export function parseSortKey(text: string): SortKey {
  const p = new Parser(text);
  const k = p.sortKey();
  p.end();
  return k;
}
