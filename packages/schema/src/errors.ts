/**
 * The one error type a user can cause. Thrown anywhere (engine, pipeline, server); the server's error
 * handler turns it into the wire body `{appStatusCode, message, details?}` with `status`.
 */
export class StudioError extends Error {
  readonly status: number;
  readonly details?: string;
  readonly appStatusCode: number;
  /** More of the body for the client (a version conflict's `latest` and `changes`). */
  fields?: Record<string, unknown>;

  constructor(status: number, message: string, details?: string, appStatusCode?: number) {
    super(message);
    this.name = 'StudioError';
    this.status = status;
    this.details = details;
    this.appStatusCode = appStatusCode ?? status;
  }
}

export const badInput = (message: string, details?: string) => new StudioError(422, message, details);
export const notFound = (message = 'Not found', details?: string) => new StudioError(404, message, details);
export const forbidden = (message = 'Forbidden', details?: string) => new StudioError(403, message, details);
export const unauthorized = (message = 'Not signed in', details?: string) =>
  new StudioError(401, message, details);
export const conflict = (message: string, details?: string) => new StudioError(409, message, details);
export const quotaExceeded = (message = 'Quota exceeded', details?: string) =>
  new StudioError(402, message, details);

export const isStudioError = (e: unknown): e is StudioError => e instanceof StudioError;
