import { commonCall, h3Unavailable, quoteWith, type Dialect, type SqlType } from './dialect';
import { postgisSpatial } from './spatial-sql';

const TYPES: Record<SqlType, string> = { bigint: 'BIGINT', double: 'DOUBLE PRECISION', varchar: 'TEXT', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' };

/** PostgreSQL (no h3 extension assumed: H3 functions are refused at compile time with a 409), PostGIS for the spatial steps. */
export const postgres: Dialect = {
  name: 'postgres',
  quoteIdent: quoteWith('"'),
  placeholder: (n) => `$${n}`,
  typeName: (t) => TYPES[t],
  h3: false,
  spatial: postgisSpatial,
  // Postgres divides integers by truncation; the pipeline's `/` is true division everywhere.
  divide: (a, b) => `(CAST(${a} AS DOUBLE PRECISION) / NULLIF(${b}, 0))`,
  call(name, a) {
    switch (name) {
      case 'median': return `percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(${a[0]} AS DOUBLE PRECISION))`;
      case 'mode': return `mode() WITHIN GROUP (ORDER BY ${a[0]})`;
      // round(double, int) does not exist and round(double) rounds half to even: go through numeric.
      case 'round': return `CAST(round(CAST(${a[0]} AS NUMERIC)${a.length > 1 ? `, CAST(${a[1]} AS INTEGER)` : ''}) AS DOUBLE PRECISION)`;
      case 'pow': return `power(${a[0]}, ${a[1]})`;
      case 'date_trunc': return `date_trunc(${a[0]}, ${a[1]})`;
      case 'epoch_ms': return `CAST(EXTRACT(EPOCH FROM CAST(${a[0]} AS TIMESTAMP)) * 1000 AS BIGINT)`;
      case 'h3_latlng_to_cell': case 'h3_cell_to_parent': case 'h3_cell_to_lat': case 'h3_cell_to_lng': case 'h3_get_resolution':
        throw h3Unavailable('PostgreSQL');
    }
    const sql = commonCall(postgres, name, a);
    if (sql === undefined) throw new Error(`postgres dialect: no mapping for ${name}`);
    return sql;
  },
};
