import { badInput } from '@studio/schema';

/**
 * `$name` (or `{{name}}`) parameters of the user's SQL as the positional placeholders the warehouse binds
 * (`$1..$n` on PostgreSQL, `?` on Trino), skipping string literals, quoted identifiers, dollar-quoted
 * bodies and comments. Answers the text and the names in position order.
 */
export function namedParameters(text: string, placeholder: (n: number) => string, opts: { perOccurrence?: boolean } = {}): { sql: string; names: string[] } {
  const names: string[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const rest = text.slice(i);
    let m: RegExpMatchArray | null;
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === ch) {
          if (text[j + 1] === ch) j += 2;
          else break;
        } else j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (rest.startsWith('--')) {
      const j = text.indexOf('\n', i);
      const end = j < 0 ? text.length : j;
      out += text.slice(i, end);
      i = end;
    } else if (rest.startsWith('/*')) {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? text.length : j + 2;
      out += text.slice(i, end);
      i = end;
    } else if ((m = rest.match(/^\$([A-Za-z_]\w*)?\$/)) && !/\w/.test(text[i - 1] ?? '')) {
      // $tag$ … $tag$ dollar quoting
      const tag = m[0];
      const j = text.indexOf(tag, i + tag.length);
      const end = j < 0 ? text.length : j + tag.length;
      out += text.slice(i, end);
      i = end;
    } else if ((m = rest.match(/^\{\{\s*([A-Za-z_]\w*)\s*\}\}/)) || ((m = rest.match(/^\$([A-Za-z_]\w*)/)) && !/\w/.test(text[i - 1] ?? ''))) {
      // $name, or {{name}} as query templates write it: the same parameter, bound once (or, for warehouses
      // whose placeholders are unnumbered `?`, once per occurrence).
      let k = opts.perOccurrence ? -1 : names.indexOf(m[1]!);
      if (k < 0) k = names.push(m[1]!) - 1;
      out += placeholder(k + 1);
      i += m[0].length;
    } else if ((m = rest.match(/^\$\d+/)) && !/\w/.test(text[i - 1] ?? '')) {
      throw badInput('Use named parameters ($name), not positional ones');
    } else {
      out += ch;
      i++;
    }
  }
  return { sql: out, names };
}

/** PostgreSQL's `$1..$n`. */
export const positionalParameters = (text: string) => namedParameters(text, (n) => `$${n}`);

/**
 * The user's statement (trailing `;` and blanks dropped) with its parameters as the warehouse's
 * placeholders, and their values in binding order; a missing value is a 422 before anything is sent.
 */
export function bindStatement<V>(userSql: string, values: Record<string, V>, placeholder: (n: number) => string): { sql: string; names: string[]; bound: V[] } {
  const { sql, names } = namedParameters(userSql.replace(/[\s;]+$/, ''), placeholder, { perOccurrence: placeholder(1) === placeholder(2) });
  const missing = names.find((n) => !(n in values));
  if (missing !== undefined) throw badInput(`Missing value for parameter $${missing}`);
  return { sql, names, bound: names.map((n) => values[n]!) };
}
