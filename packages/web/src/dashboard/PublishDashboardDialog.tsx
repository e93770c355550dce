import { useState, type FormEvent } from 'react';
import type { StudioRecord } from '@studio/schema';
import type { PublicationInfo } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';

/** Publish the saved dashboard (optionally with a password), withdraw it, or send it as a report. */
export function PublishDashboardDialog({ record, onClose }: { record: StudioRecord; onClose: () => void }) {
  const current = useLoad(() => client.dashboards.publication(record.id).catch(() => null), [record.id]);
  const [password, setPassword] = useState('');
  const [published, setPublished] = useState<PublicationInfo | null>(null);
  const [emails, setEmails] = useState('');
  const [links, setLinks] = useState<{ email: string; url: string; sent: boolean }[]>([]);
  const action = useAction();
  const info = published ?? current.data;
  const link = info ? `${window.location.origin}/public/dashboard/${record.id}` : null;

  const publish = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => setPublished(await client.dashboards.publish(record.id, { password: password || null })));
  };
  const sendReport = () =>
    action.run(async () => {
      const report = await client.publications.sendReport(record.id, { title: record.name, password: password || null });
      const list = emails.split(/[\s,;]+/).filter(Boolean);
      setLinks(list.length ? await client.publications.invite(report.id, list) : [{ email: '', url: `${window.location.origin}/public/report/${report.id}`, sent: false }]);
    });

  return (
    <Dialog title="Publish dashboard" onClose={onClose}>
      <form className="form" onSubmit={publish}>
        <p>Publishing snapshots the saved dashboard: readers with the link see it without signing in, and only its own widgets run.</p>
        <TextField label="Password (optional)" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
        {info && link && (
          <p className="published-link">
            {`Published${info.passwordProtected ? ' with a password' : ''}: `}
            <a href={link}>{link}</a>
          </p>
        )}
        <footer className="dialog-actions">
          {info && <button type="button" className="button" onClick={() => void action.run(async () => { await client.dashboards.unpublish(record.id); setPublished(null); current.reload(); })}>Unpublish</button>}
          <button type="submit" className="button button-primary" disabled={action.pending}>{info ? 'Publish again' : 'Publish'}</button>
        </footer>
        <hr />
        <TextField label="Send as a report to (emails, optional)" value={emails} onChange={(e) => setEmails(e.target.value)} />
        <button type="button" className="button" disabled={action.pending} onClick={() => void sendReport()}>Send report</button>
        {links.length > 0 && (
          <ul className="report-links">
            {links.map((l) => <li key={l.email + l.url}>{l.email ? `${l.email}: ` : ''}<a href={l.url}>{l.url}</a>{l.sent ? ' (mailed)' : ''}</li>)}
          </ul>
        )}
        <ErrorMessage message={action.error} />
      </form>
    </Dialog>
  );
}
