/** Temporary materialized views (catalog §9). */
export const TEMP_VIEW_TTL_SECONDS = 60;
export const TEMP_VIEW_SQL_LIMIT = 100;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 'temp_' plus 6 random [a-z0-9]; crypto.getRandomValues exists in browsers and Node alike. */
export function tempViewName(): string {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  // 252 = 7 * 36: rejection keeps the characters uniform.
  let out = 'temp_';
  let i = 0;
  while (out.length < 11) {
    if (i >= bytes.length) { globalThis.crypto.getRandomValues(bytes); i = 0; }
    const b = bytes[i++]!;
    if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

/** Any character other than letters, digits and underscore becomes an underscore (catalog §5). */
export const sanitizeTableName = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
