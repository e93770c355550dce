import { useEffect, useState, type FormEvent } from 'react';
import { historyAdminCalls } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { ErrorMessage, TextField, useAction } from '../app/ui';
import { formatDateTime } from '../app/history/versions';
import { formatBytes } from '../datasets/format';
import { PageHeader } from './AdminPages';

/**
 * /workspace/admin/history (administrators, #51): what the versions of maps, dashboards and workbooks keep in the
 * catalog, and the retention the daily thinning job applies to them. The setting is the catalog's, so every node's
 * job reads the same one; the server checks it (a daily period shorter than the keep-all one is refused).
 */
export function HistoryPage() {
  const storage = useLoad(() => client.call(historyAdminCalls.storage, {}), []);
  const setting = useLoad(() => client.call(historyAdminCalls.retention, {}), []);
  const [keepAllDays, setKeepAllDays] = useState('');
  const [dailyForDays, setDailyForDays] = useState('');
  const [snapshotDays, setSnapshotDays] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useAction();
  useEffect(() => {
    if (!setting.data) return;
    setKeepAllDays(String(setting.data.retention.keepAllDays));
    setDailyForDays(String(setting.data.retention.dailyForDays));
    setSnapshotDays(String(setting.data.retention.snapshotDays));
  }, [setting.data]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void save.run(async () => {
      await client.call(historyAdminCalls.setRetention, { body: { keepAllDays: Number(keepAllDays), dailyForDays: Number(dailyForDays), snapshotDays: Number(snapshotDays) } });
      setting.reload();
      setSaved(true);
    });
  };
  const last = setting.data?.lastThinnedAt;
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Version history" lead="Every save of a map, dashboard or workbook keeps a version; a daily job thins old ones by the retention below." />
      <ErrorMessage message={storage.error ?? setting.error} onRetry={() => { storage.reload(); setting.reload(); }} />
      {storage.data && (
        <p role="status" aria-label="Storage of versions">
          <strong>{storage.data.versions.toLocaleString()}</strong> versions use <strong>{formatBytes(storage.data.bytes)}</strong> of the catalog;{' '}
          <strong>{storage.data.snapshots.toLocaleString()}</strong> replaced dataset snapshots keep <strong>{formatBytes(storage.data.snapshotBytes)}</strong> of data.
        </p>
      )}
      <h2>Retention</h2>
      <form className="form card" onSubmit={submit} aria-label="Retention of versions">
        <TextField label="Keep every version for (days)" type="number" min={0} max={36500} required value={keepAllDays} onChange={(e) => setKeepAllDays(e.target.value)} />
        <TextField label="Then the last of each day until (days)" type="number" min={0} max={36500} required value={dailyForDays} onChange={(e) => setDailyForDays(e.target.value)} />
        <p className="muted small">Older than that, the last version of each week is kept. The latest version of a record is always kept, and every kept version still opens as it was saved.</p>
        <TextField label="Keep replaced dataset data for (days)" type="number" min={0} max={36500} required value={snapshotDays} onChange={(e) => setSnapshotDays(e.target.value)} />
        <p className="muted small">Data an upload, the workbench or a refresh replaced; after that, only while a kept version pinned it ("Pin data" on save).</p>
        <ErrorMessage message={save.error} />
        {saved && <p role="status">Retention saved: the next daily thinning applies it.</p>}
        <button type="submit" className="button button-primary" disabled={save.pending || !setting.data}>
          Save retention
        </button>
      </form>
      <p className="muted small">{last ? `Last thinned ${formatDateTime(last)}.` : 'Not thinned yet: the job runs once a day on a node that runs background jobs.'}</p>
    </section>
  );
}
