import { useState, type FormEvent } from 'react';
import { REFRESH_PRESETS, can, type Dataset, type DatasetRefresh, type RefreshTrigger } from '@studio/schema';
import { client } from '../app/api';
import { ErrorMessage, Field, TextField, useAction } from '../app/ui';
import { JobProgress } from '../jobs/JobProgress';

/** What set off the last refresh, in the words of the page. */
const TRIGGER_WORDS: Record<RefreshTrigger, string> = { manual: 'asked for', schedule: 'on its schedule', open: 'on open, older than its max age' };

/** The max age, in the unit a person would say it in. */
const UNITS = [
  { label: 'minutes', seconds: 60 },
  { label: 'hours', seconds: 3600 },
  { label: 'days', seconds: 86_400 },
] as const;

type ScheduleChoice = 'none' | keyof typeof REFRESH_PRESETS | 'cron';

const formatDateTime = (iso: string) => new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The largest unit the max age is a whole number of. */
function ageParts(seconds: number): { amount: number; unit: number } {
  const unit = [...UNITS].reverse().find((u) => seconds % u.seconds === 0) ?? UNITS[0];
  return { amount: seconds / unit.seconds, unit: unit.seconds };
}

function choiceOf(schedule: string | null): ScheduleChoice {
  if (!schedule) return 'none';
  return schedule in REFRESH_PRESETS ? (schedule as keyof typeof REFRESH_PRESETS) : 'cron';
}

/** How the last refresh went, or that there was none. */
function LastRefresh({ refresh, ingestedAt }: { refresh: DatasetRefresh; ingestedAt: string | null }) {
  if (!refresh.lastRefreshAt || !refresh.lastOutcome) {
    return <p>Not refreshed since it was made{ingestedAt ? ` (${formatDateTime(ingestedAt)})` : ''}.</p>;
  }
  const when = `${formatDateTime(refresh.lastRefreshAt)}, ${refresh.lastTrigger ? TRIGGER_WORDS[refresh.lastTrigger] : ''}`;
  if (refresh.lastOutcome === 'succeeded') return <p>Last refreshed {when}: succeeded.</p>;
  return (
    <p className="error" role="alert">
      Last refresh {when}: {refresh.lastOutcome}. {refresh.lastMessage} The data is the one from before.
    </p>
  );
}

/**
 * A live dataset's refresh: how the last one went, when the next runs, "Refresh now", and (for editors) the
 * schedule and the max age past which opening it refreshes it. The dataset stays readable while it refreshes.
 */
export function RefreshPanel({ d, onChanged }: { d: Dataset; onChanged: () => void }) {
  const refresh = d.metadata.refresh;
  const editable = can(d.access, 'write');
  const [choice, setChoice] = useState<ScheduleChoice>(choiceOf(refresh?.schedule ?? null));
  const [cron, setCron] = useState(choice === 'cron' ? (refresh?.schedule ?? '') : '0 6 * * *');
  const initialAge = ageParts(refresh?.maxAgeSeconds ?? 2_678_400);
  const [amount, setAmount] = useState(String(initialAge.amount));
  const [unit, setUnit] = useState(initialAge.unit);
  // A new job: JobProgress is mounted again to follow it.
  const [startedJobId, setStartedJobId] = useState<string | null>(null);
  const save = useAction();
  const now = useAction();
  if (!refresh) return null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(async () => {
      const maxAgeSeconds = Math.round(Number(amount) * unit);
      if (!Number.isFinite(maxAgeSeconds) || maxAgeSeconds < 60) throw new Error('The max age must be at least one minute');
      await client.datasets.setRefreshSchedule(d.id, { schedule: choice === 'none' ? null : choice === 'cron' ? cron.trim() : choice, maxAgeSeconds });
      onChanged();
    });
  };

  return (
    <section className="card dataset-section" aria-labelledby="refresh-title">
      <h2 id="refresh-title">Refresh</h2>
      <p className="muted small">This live dataset keeps a snapshot of its query's result. Refreshing runs the query again on its connection; maps keep the current data until the new one is complete.</p>
      <LastRefresh refresh={refresh} ingestedAt={d.metadata.ingestedAt} />
      <p>{refresh.nextRefreshAt ? `Next scheduled refresh: ${formatDateTime(refresh.nextRefreshAt)}.` : 'No schedule.'}</p>
      <JobProgress key={startedJobId ?? 'none'} resourceId={d.id} onEnded={onChanged} startedJobId={startedJobId} />
      {editable && (
        <>
          <button type="button" className="button" disabled={now.pending} onClick={() => void now.run(async () => {
            const { job } = await client.datasets.refresh(d.id);
            setStartedJobId(job.id);
          })}>
            {now.pending ? 'Starting…' : 'Refresh now'}
          </button>
          <ErrorMessage message={now.error} />
          <form className="refresh-form" onSubmit={submit} aria-label="Refresh schedule">
            <Field label="Schedule">
              <select value={choice} onChange={(e) => setChoice(e.target.value as ScheduleChoice)}>
                <option value="none">No schedule</option>
                <option value="hourly">Every hour</option>
                <option value="daily">Every day at 00:00 UTC</option>
                <option value="cron">Cron expression</option>
              </select>
            </Field>
            {choice === 'cron' && <TextField label="Cron expression (UTC)" value={cron} onChange={(e) => setCron(e.target.value)} placeholder="minute hour day month weekday" required />}
            <TextField label="Refresh on open when older than" type="number" min={1} step="any" value={amount} onChange={(e) => setAmount(e.target.value)} required />
            <Field label="Unit">
              <select value={unit} onChange={(e) => setUnit(Number(e.target.value))}>
                {UNITS.map((u) => (
                  <option key={u.label} value={u.seconds}>
                    {u.label}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" className="button" disabled={save.pending}>
              {save.pending ? 'Saving…' : 'Save schedule'}
            </button>
          </form>
          <ErrorMessage message={save.error} />
        </>
      )}
    </section>
  );
}
