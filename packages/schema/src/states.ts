import { z } from 'zod';
import { Id } from './common';

/**
 * State collections (analytics-and-admin §7): a saved state belongs to its creator and may point to the
 * record it is a state of; whoever can read or write that record can read or write the state.
 */
export const STATE_COLLECTIONS = {
  'insight-states': { type: 'insight-state', recordType: 'insight' },
  studiostates: { type: 'studio-state', recordType: 'map' },
  'workbook-states': { type: 'workbook-state', recordType: 'workbook' },
} as const;
export type StateCollection = keyof typeof STATE_COLLECTIONS;

/** What a state record keeps in `attrs`: the record it belongs to (its reads and writes follow that record's) and the state. */
export const StoredState = z.object({ recordId: z.string().nullable().optional(), state: z.unknown() });

export const StateCreate = z.object({
  name: z.string().trim().min(1).max(500).default('State'),
  recordId: Id.nullable().optional(),
  state: z.unknown().refine((v) => v !== undefined, 'state is required'),
});
export const StateUpdate = z.object({
  name: z.string().trim().min(1).max(500).optional(),
  state: z.unknown().optional(),
});
