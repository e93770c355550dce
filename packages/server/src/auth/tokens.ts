import { createHash, randomBytes } from 'node:crypto';

/**
 * Bearer tokens and API keys are random 256-bit values shown once; only their SHA-256 is stored, so a
 * leaked catalog does not leak credentials. The prefix tells the kind apart without a lookup.
 */
export const ACCESS_PREFIX = 'sat_';
export const REFRESH_PREFIX = 'srt_';
export const API_KEY_PREFIX = 'sk_';

export const newToken = (prefix: string) => prefix + randomBytes(32).toString('base64url');
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The client's default token before sign-in (analytics-and-admin §6); never valid. */
export const NOT_SIGNED_IN = 'not-signed-in';

export const ACCESS_TTL_MS = 12 * 60 * 60 * 1000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
