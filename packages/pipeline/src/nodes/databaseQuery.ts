import { z } from 'zod';
import { base, nonEmptyString, stringList } from './common';

const T = 'databaseQuery';
export const databaseQueryNode = z.looseObject({
  ...base(T),
  query: nonEmptyString(T, 'query'),
  connectionId: nonEmptyString(T, 'connectionId'),
  params: stringList(T, 'params').optional(),
});
export type DatabaseQueryProps = z.infer<typeof databaseQueryNode>;
