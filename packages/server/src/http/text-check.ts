import { StudioError } from '@studio/schema';

/**
 * Text the catalog cannot store: U+0000 (PostgreSQL text and jsonb refuse it) and UTF-16 surrogates
 * without their pair (not Unicode; they cannot be encoded as UTF-8). Such input is refused as a 422
 * before any handler runs, so nothing is half written (#11: a lone surrogate used to be stored in a
 * record and then fail the audit insert with a 500).
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first unstorable string (keys included) in a parsed request part, or null. */
export function unstorableTextAt(value: unknown, at = '', depth = 0): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? at || '(value)' : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const path = at ? `${at}.${key}` : key;
    if (UNSTORABLE.test(key)) return path;
    const found = unstorableTextAt(v, path, depth + 1);
    if (found) return found;
  }
  return null;
}

/** 422 naming the field when a request part holds text the catalog cannot store. */
export function assertStorableText(value: unknown, where: string): void {
  const at = unstorableTextAt(value);
  if (at) throw new StudioError(422, `Invalid ${where}: ${at}: text must not contain NUL characters or unpaired UTF-16 surrogates`);
}
