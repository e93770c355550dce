import { z } from 'zod';
import { base, m } from './common';

const T = 'inline_data';
export const inlineDataNode = z.discriminatedUnion(
  'format',
  [
    z.looseObject({
      ...base(T),
      format: z.literal('CSV'),
      data: z.string(m(T, 'CSV data must be a string')).refine((s) => s.trim().length > 0, m(T, 'data must not be empty')),
    }),
    z.looseObject({
      ...base(T),
      format: z.literal('JSON_OBJECT'),
      data: z
        .array(z.record(z.string(), z.unknown(), m(T, 'JSON_OBJECT data must be an array of objects')), m(T, 'JSON_OBJECT data must be an array of objects'))
        .min(1, m(T, 'data must not be empty')),
    }),
  ],
  m(T, 'format must be CSV or JSON_OBJECT'),
);
export type InlineDataProps = z.infer<typeof inlineDataNode>;
