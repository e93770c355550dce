import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
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
