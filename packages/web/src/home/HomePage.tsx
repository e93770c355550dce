import './home.css';
import { Link } from 'react-router-dom';
import type { SearchKind, StudioRecord } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { RECORD_KINDS } from '../app/record-links';
import { DataTable, ErrorMessage, formatDate } from '../app/ui';

/** How many recent items Home shows, and how many it asks of each list to find them. */
const SHOWN = 12;

/** The lists Home reads: the caller's own records of each kind and those shared with them. */
const SOURCES: { kind: SearchKind; list: () => Promise<{ items: StudioRecord[] }> }[] = [
  ...(['maps', 'dashboards', 'workbooks'] as const).flatMap((collection) => {
    const kind: SearchKind = collection === 'maps' ? 'map' : collection === 'dashboards' ? 'insight' : 'workbook';
    const records = () => client.records(collection);
    const recent = { sortBy: 'updatedAt', sortOrder: 'desc', limit: SHOWN } as const;
    return [
      { kind, list: () => records().list(recent) },
      { kind, list: () => records().sharedWithUser(recent) },
    ];
  }),
  { kind: 'dataset', list: () => client.records('datasets').list({ sortBy: 'updatedAt', sortOrder: 'desc', limit: SHOWN }) },
];

/** The samples Home offers first: a map of each kind of layer, the dashboard and the workbook. */
const SAMPLE_SOURCES: { kind: SearchKind; list: () => Promise<{ items: StudioRecord[] }> }[] = (['maps', 'dashboards', 'workbooks'] as const).map((collection) => ({
  kind: collection === 'maps' ? 'map' : collection === 'dashboards' ? 'insight' : 'workbook',
  list: () => client.records(collection).samples({ sortBy: 'name', sortOrder: 'asc', limit: SHOWN }),
}));

async function sampleItems(): Promise<RecentItem[]> {
  const lists = await Promise.all(SAMPLE_SOURCES.map(async (s) => (await s.list()).items.map((record) => ({ kind: s.kind, record }))));
  return lists.flat();
}

interface RecentItem {
  kind: SearchKind;
  record: StudioRecord;
}

/** The most recently changed records of every kind the user owns or was given, newest first, each once. */
async function recentItems(): Promise<RecentItem[]> {
  const lists = await Promise.all(SOURCES.map(async (s) => (await s.list()).items.map((record) => ({ kind: s.kind, record }))));
  const byId = new Map(lists.flat().map((i) => [i.record.id, i]));
  return [...byId.values()].sort((a, b) => b.record.updatedAt.localeCompare(a.record.updatedAt)).slice(0, SHOWN);
}

/**
 * /workspace: the workspace's home. What the user worked on last, of every kind (maps, dashboards, workbooks,
 * datasets; their own and those shared with them), one click from each; the search box in the top bar
 * ("/" or Ctrl+K) finds the rest. Above it, "Start here": the sample maps, dashboard and workbook.
 */
export function HomePage() {
  const recent = useLoad(recentItems, []);
  const items = recent.data ?? [];
  const samples = useLoad(sampleItems, []);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header page-header-stacked">
        <h1 id="page-title">Home</h1>
        <p className="muted">
          What you worked on last. Press <kbd>/</kbd> to search everything.
        </p>
      </header>
      {(samples.data?.length ?? 0) > 0 && (
        <section aria-labelledby="start-title">
          <h2 id="start-title">Start here</h2>
          <p className="muted">Samples to open and look around in: read-only, and yours to change after “Duplicate”.</p>
          <ul className="start-here" aria-labelledby="start-title">
            {samples.data!.map((i) => (
              <li key={i.record.id}>
                <Link to={RECORD_KINDS[i.kind].href(i.record.id)}>{i.record.name}</Link> <span className="muted">· {RECORD_KINDS[i.kind].label}</span>
                <div className="muted">{i.record.description}</div>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ErrorMessage message={samples.error} onRetry={samples.reload} />
      <h2 id="recent-title">Recent</h2>
      <ErrorMessage message={recent.error} onRetry={recent.reload} />
      {!recent.loading && !recent.error && items.length === 0 && (
        <p className="empty">
          Nothing yet. Start with a <Link to="/new">new map</Link>, <Link to="/workspace/datasets">add a dataset</Link> or <Link to="/dashboard/new">a dashboard</Link>.
        </p>
      )}
      {items.length > 0 && (
        <DataTable
          label="Recent"
          rows={items}
          rowKey={(i) => i.record.id}
          busy={recent.loading}
          columns={[
            { header: 'Name', cell: (i) => <Link to={RECORD_KINDS[i.kind].href(i.record.id)}>{i.record.name || 'Untitled'}</Link> },
            { header: 'Kind', cell: (i) => RECORD_KINDS[i.kind].label, className: 'muted' },
            { header: 'Owner', cell: (i) => i.record.owner.name || i.record.owner.email, className: 'muted' },
            { header: 'Updated', cell: (i) => formatDate(i.record.updatedAt), className: 'muted nowrap' },
          ]}
        />
      )}
    </section>
  );
}
