import { z } from 'zod';
import { base, nonEmptyStringList } from './common';

export const selectNode = z.looseObject({ ...base('select'), expressions: nonEmptyStringList('select', 'expressions') });
export type SelectProps = z.infer<typeof selectNode>;
