import { z } from 'zod';
import { base, nonEmptyString } from './common';

export const datasetNode = z.looseObject({ ...base('dataset'), uuid: nonEmptyString('dataset', 'uuid') });
export type DatasetProps = z.infer<typeof datasetNode>;
