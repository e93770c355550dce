import { badInput } from '@studio/schema';

export type Token =
  | { t: 'num'; v: number; pos: number }
  | { t: 'str'; v: string; pos: number }
  | { t: 'ident'; v: string; quoted: boolean; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 'eof'; pos: number };

const OPS = ['<=', '>=', '<>', '!=', '||', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', ','];

export const syntaxError = (text: string, pos: number, what: string) =>
  badInput(`Invalid expression: ${what} at position ${pos}`, `in ${JSON.stringify(text)}`);

/** Splits expression text into tokens; string literals use '' to escape a quote, identifiers "" likewise. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const start = i;
    if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i))!;
      i += m[0].length;
      if (/[A-Za-z_]/.test(text[i] ?? '')) throw syntaxError(text, i, 'unexpected character after number');
      out.push({ t: 'num', v: Number(m[0]), pos: start });
      continue;
    }
    if (c === "'" || c === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= n) throw syntaxError(text, start, c === "'" ? 'unterminated string' : 'unterminated quoted identifier');
        const d = text[i]!;
        if (d === c) {
          if (text[i + 1] === c) { v += c; i += 2; continue; }
          i++;
          break;
        }
        v += d;
        i++;
      }
      if (c === "'") out.push({ t: 'str', v, pos: start });
      else {
        if (v.length === 0) throw syntaxError(text, start, 'empty quoted identifier');
        out.push({ t: 'ident', v, quoted: true, pos: start });
      }
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      i += m[0].length;
      out.push({ t: 'ident', v: m[0], quoted: false, pos: start });
      continue;
    }
    const op = OPS.find((o) => text.startsWith(o, i));
    if (!op) throw syntaxError(text, i, `unexpected character ${JSON.stringify(c)}`);
    i += op.length;
    out.push({ t: 'op', v: op === '<>' ? '!=' : op, pos: start });
  }
  out.push({ t: 'eof', pos: n });
  return out;
}
