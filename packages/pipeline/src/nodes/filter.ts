import { z } from 'zod';
import { base, nonEmptyString } from './common';

export const filterNode = z.looseObject({ ...base('filter'), expression: nonEmptyString('filter', 'expression') });
export type FilterProps = z.infer<typeof filterNode>;
