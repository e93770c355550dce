import { Link } from 'react-router-dom';
import { client } from '../app/api';
import { useUser } from '../app/session';
import { ErrorMessage } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { PasswordForm } from './PasswordForm';
import './account.css';

/** The kinds a quota counts, as the account page names them. */
const KINDS: [string, string][] = [
  ['map', 'Maps'],
  ['insight', 'Dashboards'],
  ['workbook', 'Workbooks'],
  ['dataset', 'Datasets'],
  ['data-connection', 'Connectors'],
  ['map-asset', 'Basemaps and color palettes'],
  ['project', 'Projects'],
];

/**
 * /workspace/account: who the user is (name, email, organization, role) and their quota — how many
 * records they may own (GET /v1/users/me/quota) and how many of each kind they own now — beside the way to
 * their API keys, and a password change. At the limit a create answers 402 with the quota in its message.
 */
export function AccountPage() {
  const user = useUser();
  const quota = useLoad(() => client.myQuota(), []);
  const used = quota.data?.quotaUsage.total ?? 0;
  const limit = quota.data?.quotaPolicy ?? 0;
  return (
    <section className="page account-page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">Account</h1>
      </header>
      <dl className="account-facts">
        <dt>Name</dt>
        <dd>{user.name}</dd>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Organizations</dt>
        <dd>{user.memberships.length ? user.memberships.map((m) => `${m.organizationName} (${m.role}, ${m.seat} seat)`).join(', ') : 'None'}</dd>
        {user.isAdmin && (
          <>
            <dt>Studio</dt>
            <dd>Administrator</dd>
          </>
        )}
      </dl>
      <h2>Quota</h2>
      <ErrorMessage message={quota.error} onRetry={quota.reload} />
      {quota.data && (
        <>
          <p role="status" aria-label="Quota use">
            {user.isAdmin ? `${used} records; administrators are not limited.` : `${used} of ${limit} records`}
          </p>
          {!user.isAdmin && <progress className="quota-bar" max={Math.max(limit, 1)} value={Math.min(used, limit)} aria-label="Quota used" />}
          {!user.isAdmin && used >= limit && <p className="error" role="alert">{`You have reached your quota of ${limit} records: delete some, or ask an administrator for a larger quota.`}</p>}
          <table className="records" aria-label="Records by kind">
            <thead>
              <tr><th scope="col">Kind</th><th scope="col">Owned</th></tr>
            </thead>
            <tbody>
              {KINDS.map(([kind, label]) => (
                <tr key={kind}><td>{label}</td><td>{quota.data!.quotaUsage[kind] ?? 0}</td></tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Password</h2>
      <PasswordForm />
      <h2>API keys</h2>
      <p>Scripts and the Data SDK call the studio with an API key: <Link to="/workspace/account/api-keys">manage your API keys</Link>.</p>
    </section>
  );
}
