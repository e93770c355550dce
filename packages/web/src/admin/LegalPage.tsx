import { useState, type FormEvent } from 'react';
import { LEGAL_AGREEMENTS, type LegalAgreementId } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { ErrorMessage, Field, TextField, useAction } from '../app/ui';
import { PageHeader } from './AdminPages';

const AGREEMENT_NAMES: Record<LegalAgreementId, string> = {
  'studio-tos': 'Terms of use',
  'fsq-sample-data': 'Sample data terms',
  'fsq-bi': 'Analytic sets terms',
  'fsq-despp': 'Data export and sharing policy',
};

/**
 * /workspace/admin/legal: publishes a new version of an agreement for everyone or one organization's members;
 * each of them is shown it at their next visit and must accept it to go on. In the audit log.
 */
export function LegalPage() {
  const orgs = useLoad(() => client.admin.organizations(), []);
  const [agreement, setAgreement] = useState<LegalAgreementId>('studio-tos');
  const [audience, setAudience] = useState('');
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [published, setPublished] = useState<string | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const item = await client.legal.publish(agreement, { title: title.trim(), text: text.trim(), organizationId: audience || null });
      const who = audience ? orgs.data?.items.find((o) => o.id === audience)?.name : 'everyone';
      setPublished(`Published "${item.title}" (version ${item.version}) for ${who}: they accept it at their next visit.`);
      setTitle('');
      setText('');
    });
  };
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Legal agreements" lead="Publish a new version of an agreement. Everyone it binds is shown it before the workspace and must accept it; their consent is recorded per version." />
      <ErrorMessage message={orgs.error} onRetry={orgs.reload} />
      <form className="form card" onSubmit={submit} aria-label="Publish an agreement">
        <Field label="Agreement">
          <select value={agreement} onChange={(e) => setAgreement(e.target.value as LegalAgreementId)}>
            {LEGAL_AGREEMENTS.map((id) => <option key={id} value={id}>{AGREEMENT_NAMES[id]}</option>)}
          </select>
        </Field>
        <Field label="Who must accept it">
          <select value={audience} onChange={(e) => setAudience(e.target.value)}>
            <option value="">Everyone</option>
            {(orgs.data?.items ?? []).map((o) => <option key={o.id} value={o.id}>{`Members of ${o.name}`}</option>)}
          </select>
        </Field>
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} />
        <Field label="Text">
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={10} required maxLength={50_000} />
        </Field>
        <ErrorMessage message={action.error} />
        {published && <p role="status">{published}</p>}
        <button type="submit" className="button button-primary" disabled={action.pending || !title.trim() || !text.trim()}>
          Publish
        </button>
      </form>
    </section>
  );
}
