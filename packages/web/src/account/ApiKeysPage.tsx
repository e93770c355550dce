import { useState } from 'react';
import type { ApiKey, ApiKeyKind } from '@studio/schema';
import { client } from '../app/api';
import { ConfirmDialog, DataTable, ErrorMessage, PromptDialog, formatDate, useAction, type Column } from '../app/ui';
import { useLoad } from '../app/useLoad';
import './account.css';

/**
 * /workspace/account/api-keys: the caller's API keys (analytics-and-admin §7, CAT-004..007) — each key's
 * name, the first characters that tell keys apart, when it was made and last used; a new key is shown once
 * (only its hash is stored); keys are renamed and revoked here. A revoked key stops working within
 * STUDIO_AUTH_CACHE_MS.
 */
const KIND_LABELS: Record<ApiKeyKind, string> = { api: 'Bearer token', sdk: 'Data SDK' };

export function ApiKeysPage() {
  const keys = useLoad(() => client.apiKeys.list().then((p) => p.items), []);
  const create = useAction();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ApiKeyKind>('api');
  const [made, setMade] = useState<ApiKey | null>(null);
  const [renaming, setRenaming] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [copied, setCopied] = useState(false);

  const columns: Column<ApiKey>[] = [
    { header: 'Name', cell: (k) => k.name },
    { header: 'Key', cell: (k) => <code>{`${k.prefix}…`}</code> },
    { header: 'Kind', cell: (k) => KIND_LABELS[k.kind] },
    { header: 'Created', cell: (k) => formatDate(k.createdAt) },
    { header: 'Last used', cell: (k) => (k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never') },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'row-actions',
      cell: (k) => (
        <>
          <button type="button" className="button button-small" aria-label={`Rename ${k.name}`} onClick={() => setRenaming(k)}>Rename</button>
          <button type="button" className="button button-small button-danger" aria-label={`Revoke ${k.name}`} onClick={() => setRevoking(k)}>Revoke</button>
        </>
      ),
    },
  ];

  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">API keys</h1>
      </header>
      <p className="lead">Scripts and other tools call the API with a key as their bearer token (<code>Authorization: Bearer &lt;key&gt;</code>). A key acts as you: keep it secret, and revoke it when it is no longer used. A Data SDK key is the refresh token of the Studio Data SDK (set <code>DataSDK.base_url</code> to this studio's <code>/sdk</code>); it is exchanged for access tokens that last an hour.</p>
      <form
        className="toolbar"
        aria-label="New API key"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run(async () => {
            setCopied(false);
            setMade(await client.apiKeys.generate(name.trim() || (kind === 'sdk' ? 'Data SDK key' : 'API key'), kind));
            setName('');
            keys.reload();
          });
        }}
      >
        <label className="qb-inline">
          Name <input value={name} maxLength={200} placeholder="What it is for" onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="qb-inline">
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as ApiKeyKind)}>
            <option value="api">{KIND_LABELS.api}</option>
            <option value="sdk">{KIND_LABELS.sdk}</option>
          </select>
        </label>
        <button type="submit" className="button button-primary" disabled={create.pending}>{create.pending ? 'Creating…' : 'New API key'}</button>
      </form>
      <ErrorMessage message={create.error} />
      {made?.key && (
        <div className="api-key-made" role="status" aria-label="New API key">
          <p>{`The key “${made.name}”, shown this once: copy it now.`}</p>
          <code className="secret" data-testid="new-api-key">{made.key}</code>
          <button type="button" className="button button-small" onClick={() => void navigator.clipboard?.writeText(made.key!).then(() => setCopied(true))}>{copied ? 'Copied' : 'Copy'}</button>
        </div>
      )}
      <ErrorMessage message={keys.error} onRetry={keys.reload} />
      {keys.data && keys.data.length === 0 && <p className="muted">No API keys yet.</p>}
      {keys.data && keys.data.length > 0 && <DataTable label="API keys" columns={columns} rows={keys.data} rowKey={(k) => k.id} busy={keys.loading} />}
      {renaming && (
        <PromptDialog
          title="Rename API key"
          label="Name"
          initial={renaming.name}
          submitLabel="Rename"
          onSubmit={async (next) => {
            await client.apiKeys.update(renaming.id, next);
            keys.reload();
          }}
          onClose={() => setRenaming(null)}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke API key"
          message={`Scripts using “${revoking.name}” (${revoking.prefix}…) will be refused. This cannot be undone.`}
          confirmLabel="Revoke"
          onConfirm={async () => {
            await client.apiKeys.revoke(revoking.id);
            if (made?.id === revoking.id) setMade(null);
            keys.reload();
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </section>
  );
}
