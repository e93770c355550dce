/**
 * What makes a GeoJSON geometry unreadable (RFC 7946 §3.1), as one SQL expression over a JSON value: NULL
 * when the geometry is valid (or absent: a feature may have none), else the reason. Rings and lines are
 * checked for their number of positions, points for numeric coordinates; orientation and self-intersection
 * are left to the renderer, which draws such shapes anyway.
 */
export function geometryProblemSql(g: string): string {
  const type = `json_extract_string(${g}, '$.type')`;
  const count = (path: string) => `json_array_length(${g}, '${path}')`;
  const numeric = (path: string) => `json_type(${g}, '${path}') IN ('DOUBLE', 'BIGINT', 'UBIGINT', 'INTEGER')`;
  const position = `(${count('$.coordinates')} >= 2 AND ${numeric('$.coordinates[0]')} AND ${numeric('$.coordinates[1]')})`;
  // Every element of a JSON path's list must pass; a missing or empty list fails.
  const all = (path: string, test: string) => `coalesce(list_bool_and(list_transform(json_extract(${g}, '${path}'), x -> ${test})), false)`;
  return `CASE
    WHEN ${g} IS NULL OR json_type(${g}) = 'NULL' THEN NULL
    WHEN json_type(${g}) <> 'OBJECT' THEN 'the geometry is not an object'
    WHEN ${type} = 'Point' THEN CASE WHEN ${position} THEN NULL ELSE 'a Point needs two numeric coordinates' END
    WHEN ${type} = 'MultiPoint' THEN CASE WHEN ${all('$.coordinates[*]', 'json_array_length(x) >= 2')} THEN NULL ELSE 'a MultiPoint needs positions of two coordinates' END
    WHEN ${type} = 'LineString' THEN CASE WHEN coalesce(${count('$.coordinates')}, 0) >= 2 THEN NULL ELSE 'a LineString needs at least 2 positions' END
    WHEN ${type} = 'MultiLineString' THEN CASE WHEN ${all('$.coordinates[*]', 'json_array_length(x) >= 2')} THEN NULL ELSE 'each line of a MultiLineString needs at least 2 positions' END
    WHEN ${type} = 'Polygon' THEN CASE WHEN ${all('$.coordinates[*]', 'json_array_length(x) >= 4')} THEN NULL ELSE 'each ring of a Polygon needs at least 4 positions' END
    WHEN ${type} = 'MultiPolygon' THEN CASE WHEN ${all('$.coordinates[*][*]', 'json_array_length(x) >= 4')} THEN NULL ELSE 'each ring of a MultiPolygon needs at least 4 positions' END
    WHEN ${type} = 'GeometryCollection' THEN CASE WHEN json_type(${g}, '$.geometries') = 'ARRAY' THEN NULL ELSE 'a GeometryCollection needs a geometries array' END
    ELSE 'unknown geometry type ' || coalesce(${type}, '(none)')
  END`;
}
