import { z } from 'zod';
import { TIME_INTERVALS, base, m, nonEmptyString, resolution } from './common';
import { geojsonProp } from './geojson';

const T = 'tileExtract';
export const tileExtractNode = z.looseObject({
  ...base(T),
  sourceId: nonEmptyString(T, 'sourceId'),
  sourceColumn: z.union([z.string(), z.array(z.string())], m(T, 'sourceColumn must be a string or a list of strings')).optional(),
  geojson: geojsonProp(`${T} node`, true),
  res: resolution(T).optional(),
  h3ColumnName: z.string(m(T, 'h3ColumnName must be a string')).optional(),
  timeColumnName: z.string(m(T, 'timeColumnName must be a string')).optional(),
  timeInterval: z.enum(TIME_INTERVALS, m(T, `timeInterval must be one of ${TIME_INTERVALS.join(', ')}`)).optional(),
  maxRows: z.number(m(T, 'maxRows must be a positive integer')).int(m(T, 'maxRows must be a positive integer')).min(1, m(T, 'maxRows must be a positive integer')).optional(),
});
export type TileExtractProps = z.infer<typeof tileExtractNode>;
