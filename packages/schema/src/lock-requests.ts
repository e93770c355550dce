import { z } from 'zod';
import { Id, IsoDate } from './common';

/**
 * "Ask for edit" (#50): someone who may edit a record another user has locked asks the holder for the lock.
 * The holder's page polls for requests (the server pushes nothing and may run as several nodes, so requests
 * live in the catalog beside the locks) and grants (hands the lock over) or declines.
 */
export const LOCK_REQUEST_STATUSES = ['pending', 'granted', 'declined'] as const;
export const LockRequestStatus = z.enum(LOCK_REQUEST_STATUSES);

export const LockRequest = z.object({
  id: Id,
  requester: z.object({ id: Id, name: z.string(), email: z.string() }),
  status: LockRequestStatus,
  createdAt: IsoDate,
  answeredAt: IsoDate.nullable(),
});
export type LockRequest = z.infer<typeof LockRequest>;

export const LockRequestAnswer = z.object({ answer: z.enum(['grant', 'decline']) });

/** How often an open page asks for lock requests: a request is seen within 15 s (issue #50), at most one in five. */
export const LOCK_REQUEST_POLL_MS = 5_000;
