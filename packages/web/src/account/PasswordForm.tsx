import { useState, type FormEvent } from 'react';
import { client } from '../app/api';
import { ErrorMessage, TextField, useAction } from '../app/ui';

/**
 * The account page's password change: the current password as proof, the new one twice (a typo in a field
 * that shows dots would lock the user out). The server ends the user's other sessions; this one stays.
 */
export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const mismatch = again.length > 0 && next !== again;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    void action.run(async () => {
      await client.changePassword(current, next);
      setCurrent('');
      setNext('');
      setAgain('');
      setDone(true);
    });
  };
  return (
    <form className="form password-form" aria-label="Change password" onSubmit={submit}>
      <TextField label="Current password" type="password" autoComplete="current-password" value={current} required onChange={(e) => setCurrent(e.target.value)} />
      <TextField label="New password" type="password" autoComplete="new-password" minLength={8} value={next} required onChange={(e) => setNext(e.target.value)} />
      <TextField label="New password again" type="password" autoComplete="new-password" value={again} required onChange={(e) => setAgain(e.target.value)} aria-invalid={mismatch} />
      {mismatch && <p className="error" role="alert">The two new passwords differ.</p>}
      <ErrorMessage message={action.error} />
      {done && <p role="status">Password changed. Your other sessions are signed out.</p>}
      <div>
        <button type="submit" className="button button-primary" disabled={action.pending || mismatch || next.length < 8}>Change password</button>
      </div>
    </form>
  );
}
