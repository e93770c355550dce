import { z } from 'zod';
import { base, m, resolution } from './common';
import { geojsonProp } from './geojson';

const T = 'hexify';
export const hexifyNode = z.looseObject({
  ...base(T),
  geojson: geojsonProp(`${T} node`, false),
  res: resolution(T),
  columnName: z.string(m(T, 'columnName must be a string')).min(1, m(T, 'columnName must not be empty')).optional(),
});
export type HexifyProps = z.infer<typeof hexifyNode>;
