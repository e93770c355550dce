import { useEffect, useState, type FormEvent } from 'react';
import { useRouteError } from 'react-router-dom';
import { client } from '../app/api';
import { reportError } from '../app/error-reports';
import { Field } from '../app/ui';

/**
 * What a screen that failed to render shows instead of a blank page: what went wrong, a reload, and a
 * place to say what the user was doing — both reach the administrators (or the studio's Sentry) through the
 * error relay.
 */
export function ErrorPage() {
  const error = useRouteError();
  const [eventId, setEventId] = useState<string | null>(null);
  const [comments, setComments] = useState('');
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  useEffect(() => {
    void reportError(error).then(setEventId);
  }, [error]);
  const message = error instanceof Error ? error.message : 'The screen could not be shown.';
  const send = (e: FormEvent) => {
    e.preventDefault();
    setState('sending');
    client.errorReports.feedback({ comments: comments.trim(), ...(eventId ? { eventId } : {}) }).then(
      () => setState('sent'),
      () => setState('failed'),
    );
  };
  return (
    <section className="page message-page" aria-labelledby="error-title">
      <p className="eyebrow">Error</p>
      <h1 id="error-title">Something went wrong on this screen</h1>
      <p className="lead">{message}</p>
      <p className="muted">{eventId ? `The error was reported (reference ${eventId.slice(0, 8)}).` : 'The error could not be reported.'}</p>
      <button type="button" className="button button-primary" onClick={() => window.location.reload()}>
        Reload the page
      </button>
      {state === 'sent' ? (
        <p role="status">Thank you — your note was sent with the report.</p>
      ) : (
        <form className="form card" aria-label="Tell us what happened" onSubmit={send}>
          <Field label="What were you doing when this happened?">
            <textarea value={comments} onChange={(e) => setComments(e.target.value)} maxLength={5000} rows={4} required />
          </Field>
          {state === 'failed' && <p className="error" role="alert">Your note could not be sent; try again.</p>}
          <button type="submit" className="button" disabled={state === 'sending' || !comments.trim()}>
            Send
          </button>
        </form>
      )}
    </section>
  );
}
