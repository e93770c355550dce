import type { ReactNode } from 'react';
import { client } from './api';
import { useSession, useUser } from './session';
import { useLoad } from './useLoad';
import { ErrorMessage, useAction } from './ui';

/**
 * Before the workspace: each agreement an administrator published that binds the user and that they have not
 * consented to, one at a time, with "I agree" (recorded per version) or "Sign out". The built-in texts are
 * not asked for (docs/decisions.md, "Legal agreements").
 */
export function LegalConsentGate({ children }: { children: ReactNode }) {
  const user = useUser();
  const { signOut } = useSession();
  const pending = useLoad(() => client.legal.pending(), [user.id]);
  const agree = useAction();
  if (pending.error) {
    return (
      <section className="page message-page">
        <ErrorMessage message={pending.error} onRetry={pending.reload} />
      </section>
    );
  }
  if (!pending.data) return <div className="splash" role="status">Loading your workspace…</div>;
  const next = pending.data[0];
  if (!next) return <>{children}</>;
  return (
    <section className="page message-page legal-consent" aria-labelledby="legal-title">
      <p className="eyebrow">Before you continue</p>
      <h1 id="legal-title">{next.title}</h1>
      <p className="muted">This agreement is new or has changed (version {next.version}). Read it and accept it to use the studio.</p>
      <div className="card legal-text" role="document" aria-label={next.title}>
        {next.text}
      </div>
      <ErrorMessage message={agree.error} />
      <div className="dialog-actions">
        <button type="button" className="button button-quiet" onClick={() => void signOut()}>
          Sign out
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={agree.pending}
          onClick={() =>
            void agree.run(async () => {
              await client.legal.consent(next.id);
              pending.reload();
            })
          }
        >
          I agree
        </button>
      </div>
    </section>
  );
}
