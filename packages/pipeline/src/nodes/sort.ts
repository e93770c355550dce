import { z } from 'zod';
import { base, nonEmptyStringList } from './common';

export const sortNode = z.looseObject({ ...base('sort'), by: nonEmptyStringList('sort', 'by') });
export type SortProps = z.infer<typeof sortNode>;
