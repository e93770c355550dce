import { z } from 'zod';
import { TIME_INTERVALS } from './common';

const invalid = (prop: string) => ({ error: `Invalid prop for enrichment node: ${prop}` });
const str = (prop: string) => z.string(invalid(prop)).min(1, invalid(prop));

/**
 * enrich. `source` (an inline name) is treated like `sourceId`: both resolve through resolveDataset.
 * `sourceCellColumn` (default 'hex') and `sourceTimeColumn` (default: timeColumn) name the source's
 * key columns; the wire format leaves them implicit.
 */
export const enrichNode = z
  .looseObject({
    type: z.literal('enrich'),
    source: str('source').optional(),
    sourceId: str('sourceId').optional(),
    sourceColumn: z.union([str('sourceColumn'), z.array(str('sourceColumn')).min(1, invalid('sourceColumn'))], invalid('sourceColumn')).optional(),
    targetType: z.enum(['H3', 'LATLNG'], invalid('targetType')),
    column: str('column').optional(),
    latColumn: str('latColumn').optional(),
    lngColumn: str('lngColumn').optional(),
    timeColumn: str('timeColumn').optional(),
    timeInterval: z.enum(TIME_INTERVALS, invalid('timeInterval')).optional(),
    sourceCellColumn: str('sourceCellColumn').optional(),
    sourceTimeColumn: str('sourceTimeColumn').optional(),
  })
  .superRefine((n, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (n.source === undefined && n.sourceId === undefined) return fail('Either source or sourceId is required');
    if (n.sourceColumn === undefined) return fail('Invalid prop for enrichment node: sourceColumn');
    if (n.targetType === 'H3' && n.column === undefined) return fail('Invalid prop for enrichment node: column');
    if (n.targetType === 'LATLNG') {
      if (n.latColumn === undefined) return fail('Invalid prop for enrichment node: latColumn');
      if (n.lngColumn === undefined) return fail('Invalid prop for enrichment node: lngColumn');
    }
    if ((n.timeColumn === undefined) !== (n.timeInterval === undefined)) {
      return fail(`Invalid prop for enrichment node: ${n.timeColumn === undefined ? 'timeColumn' : 'timeInterval'}`);
    }
  });
export type EnrichProps = z.infer<typeof enrichNode>;
