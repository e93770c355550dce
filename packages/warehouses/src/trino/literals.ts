import { badInput } from '@studio/schema';
import type { ParamValue } from '../driver';

/**
 * A value as a Trino literal for `EXECUTE … USING` (what Trino's own clients send for bound parameters):
 * strings quoted with '' doubled, whole numbers as BIGINT, others as DOUBLE, lists as ARRAY[…].
 */
export function trinoLiteral(v: ParamValue): string {
  if (v === null) return 'NULL';
  if (Array.isArray(v)) return `ARRAY[${v.map(trinoLiteral).join(', ')}]`;
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) throw badInput('Parameter values must be finite numbers');
      return Number.isSafeInteger(v) ? `BIGINT '${v}'` : `DOUBLE '${v}'`;
    default:
      return `'${String(v).replaceAll("'", "''")}'`;
  }
}
