import { z } from 'zod';
import { base } from './common';

/** tileJoin: its only rule (at least two inputs) is about `input`, checked in validate.ts. */
export const tileJoinNode = z.looseObject({ ...base('tileJoin') });
export type TileJoinProps = z.infer<typeof tileJoinNode>;
