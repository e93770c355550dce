import type { IncomingHttpHeaders } from 'node:http';

/**
 * `Prefer: respond-async` (RFC 7240): the client takes an answer at once (202) and follows the work by its
 * job or record. Asked of query executions and uploads.
 */
export const prefersAsync = (headers: IncomingHttpHeaders): boolean => /(^|[,\s])respond-async\b/i.test(String(headers.prefer ?? ''));
