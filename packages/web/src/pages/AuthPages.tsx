import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { client } from '../app/api';
import { useSession } from '../app/session';
import { Brand, ErrorMessage, TextField, useAction } from '../app/ui';

function AuthCard({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <Brand large />
        <h1>{title}</h1>
        <p className="muted">{subtitle}</p>
        {children}
      </div>
    </main>
  );
}

export function SignInPage() {
  const { user, signIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const from = (location.state as { from?: string } | null)?.from ?? '/workspace/maps';
  if (user) return <Navigate to={from} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await signIn(email.trim(), password);
      navigate(from, { replace: true });
    });
  };
  return (
    <AuthCard title="Sign in" subtitle="Welcome back. Sign in to your workspace.">
      <form className="form" onSubmit={submit}>
        <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorMessage message={action.error} />
        <button type="submit" className="button button-primary button-block" disabled={action.pending}>
          {action.pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
    </AuthCard>
  );
}

/** Asks for a reset link by email; the answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [emailed, setEmailed] = useState<boolean | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => setEmailed((await client.requestPasswordReset(email.trim())).emailed));
  };
  return (
    <AuthCard title="Reset your password" subtitle="Enter the email address you sign in with.">
      {emailed === null ? (
        <form className="form" onSubmit={submit}>
          <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <ErrorMessage message={action.error} />
          <button type="submit" className="button button-primary button-block" disabled={action.pending}>
            Send a reset link
          </button>
        </form>
      ) : (
        <p role="status">
          {emailed
            ? 'If an account has this address, a link to set a new password is on its way. It works once, within an hour.'
            : 'This studio does not send email. Ask an administrator for a reset link: they make one under Admin → Users.'}
        </p>
      )}
      <p className="muted small">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

/** Sets a new password with a reset link's token (/reset-password?token=…); every session of the account ends. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const mismatch = again.length > 0 && password !== again;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await client.resetPassword(token, password);
      setDone(true);
    });
  };
  if (done) {
    return (
      <AuthCard title="Password changed" subtitle="Sign in with your new password; every other session of your account has ended.">
        <Link className="button button-primary button-block" to="/sign-in">Go to sign in</Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Set a new password" subtitle="At least 8 characters. The link works once, within an hour of being made.">
      <form className="form" onSubmit={submit}>
        <TextField label="New password" type="password" autoComplete="new-password" minLength={8} required value={password} onChange={(e) => setPassword(e.target.value)} />
        <TextField label="New password again" type="password" autoComplete="new-password" required value={again} aria-invalid={mismatch} onChange={(e) => setAgain(e.target.value)} />
        {mismatch && <p className="error" role="alert">The two passwords differ.</p>}
        <ErrorMessage message={token ? action.error : 'This link has no token: open the link from the message or from your administrator again.'} />
        <button type="submit" className="button button-primary button-block" disabled={action.pending || mismatch || !token}>
          Set password
        </button>
      </form>
    </AuthCard>
  );
}

export function AcceptInvitationPage() {
  const { acceptInvitation } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  if (!token) {
    return (
      <AuthCard title="Invitation link incomplete" subtitle="This link has no invitation token. Open the link from your invitation again, or ask your administrator for a new one.">
        <Link to="/sign-in">Go to sign in</Link>
      </AuthCard>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await acceptInvitation(token, name.trim(), password);
      navigate('/workspace/maps', { replace: true });
    });
  };
  return (
    <AuthCard title="Join your team" subtitle="Choose your name and a password to create your account.">
      <form className="form" onSubmit={submit}>
        <TextField label="Your name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
        <TextField label="Password" type="password" autoComplete="new-password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} />
        <p className="hint">At least 8 characters.</p>
        <ErrorMessage message={action.error} />
        <button type="submit" className="button button-primary button-block" disabled={action.pending}>
          Create account
        </button>
      </form>
      <p className="muted small">
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthCard>
  );
}
