import { commonCall, quoteWith, type Dialect, type SqlType } from './dialect';
import { duckdbSpatial } from './spatial-sql';

const TYPES: Record<SqlType, string> = { bigint: 'BIGINT', double: 'DOUBLE', varchar: 'VARCHAR', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' };

/**
 * DuckDB. Placeholders are `$n` rather than `?`: DuckDB accepts both, and numbered ones let the
 * compiler repeat a compiled fragment (a re-applied ORDER BY) without re-binding.
 */
export const duckdb: Dialect = {
  name: 'duckdb',
  quoteIdent: quoteWith('"'),
  placeholder: (n) => `$${n}`,
  typeName: (t) => TYPES[t],
  h3: true,
  spatial: duckdbSpatial,
  divide: (a, b) => `(${a} / NULLIF(${b}, 0))`,
  call(name, a) {
    switch (name) {
      case 'median': return `quantile_cont(${a[0]}, 0.5)`;
      case 'mode': return `mode(${a[0]})`;
      case 'round': return a.length === 1 ? `round(${a[0]})` : `round(${a[0]}, CAST(${a[1]} AS INTEGER))`;
      case 'pow': return `pow(${a[0]}, ${a[1]})`;
      case 'date_trunc': return `date_trunc(${a[0]}, ${a[1]})`;
      case 'epoch_ms': return `epoch_ms(CAST(${a[0]} AS TIMESTAMP))`;
      // The index is computed as UBIGINT in JS and turned into hex text natively (see h3/duckdb.ts).
      case 'h3_latlng_to_cell': return `lower(hex(h3_latlng_to_cell_u64(${a.join(', ')})))`;
      case 'h3_cell_to_parent': case 'h3_cell_to_lat': case 'h3_cell_to_lng': case 'h3_get_resolution':
        return `${name}(${a.join(', ')})`;
    }
    const sql = commonCall(duckdb, name, a);
    if (sql === undefined) throw new Error(`duckdb dialect: no mapping for ${name}`);
    return sql;
  },
};
