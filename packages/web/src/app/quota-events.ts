/**
 * Calls the server refused with 402 (a maker at their record quota, analytics-and-admin §6): whichever screen
 * made the call, the workspace shows one banner (QuotaBanner). Fed by the app's fetch and by the upload's
 * XMLHttpRequest.
 */
type Listener = (message: string) => void;
const listeners = new Set<Listener>();

export function onQuotaExceeded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the banner when `response` is a 402, with the server's message (the body is read from a copy). */
export function reportQuota(response: Response): void {
  if (response.status !== 402) return;
  const tell = (message: string) => listeners.forEach((l) => l(message));
  response
    .clone()
    .json()
    .then(
      (body: unknown) => tell(typeof (body as { message?: unknown })?.message === 'string' ? (body as { message: string }).message : 'Quota exceeded'),
      () => tell('Quota exceeded'),
    );
}
