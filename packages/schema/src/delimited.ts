/**
 * Delimited text shared by the engine, which reads uploads with these rules, and the upload dialog, which
 * labels its column-type choices with the same header names the engine will find.
 */

/** The delimiters a CSV or TSV upload may use (detected from the header line, or set by the user). */
export const UPLOAD_DELIMITERS = [',', ';', '\t', '|'] as const;

/** The delimiter the header line uses most, outside quotes; null for a one-column file. */
export function headerDelimiter(head: string): string | null {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const ch of head) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (UPLOAD_DELIMITERS as readonly string[]).includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const d of UPLOAD_DELIMITERS) if ((counts.get(d) ?? 0) > (best ? counts.get(best)! : 0)) best = d;
  return best;
}

/** The header line's fields, split on `delim` outside quotes (a quoted `""` is one quote). */
export function headerFields(head: string, delim: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < head.length; i++) {
    const ch = head[i]!;
    if (quoted) {
      if (ch === '"' && head[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delim) {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') break;
    else field += ch;
  }
  fields.push(field);
  return fields;
}

/**
 * A dataset's name as a download's file name (without extension): anything but letters, digits, `.`,
 * `_` and `-` becomes `_` (no quote or path separator reaches a Content-Disposition header or a disk),
 * at most 100 characters, `dataset` when nothing is left.
 */
export const downloadFileBase = (name: string): string => name.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'dataset';
