import { useState } from 'react';
import type { PasswordResetLink, User } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, TextField, formatDate, useAction } from '../app/ui';

/**
 * An administrator's password reset link for one user (for a studio without SMTP, or a user whose mail does
 * not arrive): made on request, shown once with a copy button, working once within the hour. Audited.
 */
export function ResetLinkDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const [link, setLink] = useState<PasswordResetLink | null>(null);
  const [copied, setCopied] = useState(false);
  const action = useAction();
  return (
    <Dialog title={`Password reset link for ${user.name}`} onClose={onClose}>
      {link ? (
        <>
          <p className="dialog-text">{`Give this link to ${user.name} (${user.email}) yourself; it is shown this once. It sets a new password once, until ${formatDate(link.expiresAt)}, and signs the account out everywhere.`}</p>
          <TextField label="Reset link" readOnly value={link.url} onFocus={(e) => e.target.select()} />
          <div className="dialog-actions">
            <button type="button" className="button" onClick={() => void navigator.clipboard?.writeText(link.url).then(() => setCopied(true))}>{copied ? 'Copied' : 'Copy'}</button>
            <button type="button" className="button button-primary" onClick={onClose}>Done</button>
          </div>
        </>
      ) : (
        <>
          <p className="dialog-text">{`Make a link with which ${user.name} sets a new password? Their current password keeps working until they use it.`}</p>
          <ErrorMessage message={action.error} />
          <div className="dialog-actions">
            <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
            <button type="button" className="button button-primary" disabled={action.pending} onClick={() => void action.run(async () => setLink(await client.admin.passwordResetLink(user.id)))}>
              Make link
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
