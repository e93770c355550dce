/**
 * The error every failed call raises (analytics-and-admin §8): the HTTP status, the server's message
 * with "(details)" appended, its appStatusCode, and a debug message naming the URL.
 */
export class StudioApiError extends Error {
  readonly status: number;
  readonly appStatusCode: number | undefined;
  readonly details: string | undefined;
  readonly url: string;
  readonly debugMessage: string;
  /** The answer's JSON as sent (a 409 version conflict carries the changes made meanwhile), when it was JSON. */
  readonly body: unknown;

  constructor(init: { status: number; message: string; appStatusCode?: number; details?: string; url: string; body?: unknown }) {
    super(init.message);
    this.name = 'StudioApiError';
    this.status = init.status;
    this.appStatusCode = init.appStatusCode;
    this.details = init.details;
    this.url = init.url;
    this.debugMessage = `Server Error: ${init.message} when calling ${init.url}`;
    this.body = init.body;
  }
}

export const UNKNOWN_SERVER_ERROR = 'Unknown Server Error';

/**
 * An app-level handler sees a failed response first; answering true means it dealt with it (for
 * example a 401 that sends the user to sign-in) and no generic error is built from the body.
 */
export type AppErrorHandler = (response: Response, url: string) => boolean | Promise<boolean>;

/** The shared status check: returns for ok responses, raises StudioApiError otherwise. */
export async function checkStatus(response: Response, url: string, appHandler?: AppErrorHandler): Promise<void> {
  if (response.ok) return;
  if (appHandler && (await appHandler(response.clone(), url))) {
    throw new StudioApiError({ status: response.status, message: 'Handled by the application', url });
  }
  const text = await response.text().catch(() => '');
  let message = UNKNOWN_SERVER_ERROR;
  let appStatusCode: number | undefined;
  let details: string | undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object') {
    const body = parsed as { appStatusCode?: unknown; message?: unknown; details?: unknown };
    if (typeof body.appStatusCode === 'number') appStatusCode = body.appStatusCode;
    if (typeof body.message === 'string' && body.message) message = body.message;
    if (body.details !== undefined && body.details !== null && body.details !== '') {
      details = typeof body.details === 'string' ? body.details : JSON.stringify(body.details);
      message = `${message} (${details})`;
    }
  } else if (text.trim()) {
    message = text.trim();
  }
  throw new StudioApiError({ status: response.status, message, appStatusCode, details, url, body: parsed });
}
