import { useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { can, type StudioRecord, type Tag } from '@studio/schema';
import type { ListParams } from '@studio/client';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { usePagedList } from '../app/usePagedList';
import { useThumbnail } from '../app/useThumbnail';
import { ConfirmDialog, DataTable, ErrorMessage, PromptDialog, formatDate } from '../app/ui';
import type { CollectionConfig } from './collections';
import { ShareDialog } from './ShareDialog';
import { TagDialog } from './TagDialog';
import { AddRecordToProjectDialog } from '../projects/AddRecordToProjectDialog';
import { RowMenu, type RowMenuItem } from './RowMenu';

export const TABS = [
  { id: 'mine', label: 'Mine', call: 'list' },
  { id: 'organization', label: 'Organization', call: 'forOrganization' },
  { id: 'shared', label: 'Shared with me', call: 'sharedWithUser' },
  { id: 'samples', label: 'Samples', call: 'samples' },
] as const;
export type TabId = (typeof TABS)[number]['id'];

export const SORTS: Record<string, { label: string; sortBy: ListParams['sortBy']; sortOrder: ListParams['sortOrder'] }> = {
  recent: { label: 'Recently updated', sortBy: 'updatedAt', sortOrder: 'desc' },
  oldest: { label: 'Least recently updated', sortBy: 'updatedAt', sortOrder: 'asc' },
  'name-asc': { label: 'Name A–Z', sortBy: 'name', sortOrder: 'asc' },
  'name-desc': { label: 'Name Z–A', sortBy: 'name', sortOrder: 'desc' },
};

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What an empty list says, by tab and filters. */
export function emptyText(c: CollectionConfig, tab: TabId, search: string, tagged: boolean): string {
  if (search) return `No ${c.plural} match “${search}”.`;
  if (tagged) return `No ${c.plural} carry this tag.`;
  switch (tab) {
    case 'mine':
      return `No ${c.plural} yet — ${c.emptyHint}`;
    case 'organization':
      return `No ${c.plural} in your organization yet — ${c.plural} your colleagues create appear here.`;
    case 'shared':
      return `Nothing shared with you yet — ${c.plural} others share with you appear here.`;
    case 'samples':
      return `No sample ${c.plural} are available.`;
  }
}

function RecordName({ record: r, href }: { record: StudioRecord; href?: (id: string) => string }) {
  const thumbnail = useThumbnail(r.thumbnailUrl ?? null);
  // Long names and descriptions end in an ellipsis (the row keeps one line each); the full text is their title.
  return (
    <div className="record-name">
      <span className="thumb" aria-hidden="true" data-thumbnail={thumbnail ? 'loaded' : undefined} style={{ backgroundImage: thumbnail ? `url(${thumbnail})` : undefined }}>
        {thumbnail ? '' : r.name.charAt(0).toUpperCase()}
      </span>
      <span className="record-text">
        {href ? (
          <Link className="clip" to={href(r.id)} title={r.name}>
            {r.name}
          </Link>
        ) : (
          <strong className="clip" title={r.name}>
            {r.name}
          </strong>
        )}
        {r.description && (
          <span className="muted record-description clip" title={r.description}>
            {r.description}
          </span>
        )}
      </span>
    </div>
  );
}

/** Chips shown in a row before the rest are summed up in "+N" (whose title names them all). */
const SHOWN_TAGS = 3;

export function TagChips({ label, tags, limit }: { label: string; tags: { id: string; name: string; color: string }[]; limit?: number }) {
  const shown = limit === undefined ? tags : tags.slice(0, limit);
  const rest = tags.length - shown.length;
  return (
    <ul className="tag-list" aria-label={label}>
      {shown.map((t) => (
        <li key={t.id} className="tag" style={{ ['--tag' as string]: t.color }} title={t.name}>
          <span className="clip">{t.name}</span>
        </li>
      ))}
      {rest > 0 && (
        <li className="tag tag-more" title={tags.map((t) => t.name).join(', ')} aria-label={`and ${rest} more: ${tags.slice(shown.length).map((t) => t.name).join(', ')}`}>
          +{rest}
        </li>
      )}
    </ul>
  );
}

type Pending = { kind: 'rename' | 'delete' | 'share' | 'tags' | 'project'; record: StudioRecord } | null;

/** Tags the caller can use: their own and their organizations', once each. */
async function usableTags(): Promise<Tag[]> {
  const [own, org] = await Promise.all([client.tags.list(), client.tags.forOrganization().catch(() => ({ items: [] as Tag[] }))]);
  const byId = new Map([...own.items, ...org.items].map((t) => [t.id, t]));
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The one list page of every workspace collection (catalog §2), configured by `config`. */
export function RecordList({ config }: { config: CollectionConfig }) {
  const [params, setParams] = useSearchParams();
  const tab = (TABS.find((t) => t.id === params.get('tab'))?.id ?? 'mine') as TabId;
  const sortKey = SORTS[params.get('sort') ?? ''] ? params.get('sort')! : 'recent';
  const tag = params.get('tag') ?? '';
  const search = params.get('q') ?? '';
  const [searchInput, setSearchInput] = useState(search);
  const [pending, setPending] = useState<Pending>(null);
  /** What the last action did where nothing else on the list shows it ("Added … to a project"). */
  const [notice, setNotice] = useState<string | null>(null);

  const setParam = (key: string, value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  // The search box asks the server after a short pause, not on every key.
  useEffect(() => {
    if (searchInput === search) return;
    const t = setTimeout(() => setParam('q', searchInput.trim()), 250);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [searchInput]);
  useEffect(() => setSearchInput(search), [config.slug]); // eslint-disable-line react-hooks/exhaustive-deps

  const call = TABS.find((t) => t.id === tab)!.call;
  const { sortBy, sortOrder } = SORTS[sortKey]!;
  const list = usePagedList(
    // Kinds without samples answer an empty page instead of a call the server does not offer.
    async (page) => (tab === 'samples' && !config.samples ? { items: [], total: 0 } : config.api()[call]({ search: search || undefined, tag: tag || undefined, sortBy, sortOrder, ...page })),
    [config.slug, call, search, tag, sortKey],
  );
  const tags = useLoad(usableTags, [config.slug]);
  const [copyError, setCopyError] = useState<string | null>(null);
  /** A copy owned by the caller lands in "Mine": show it there. */
  const duplicate = async (r: StudioRecord) => {
    setCopyError(null);
    try {
      await config.api().clone(r.id);
      if (tab === 'mine') list.reload();
      else setParam('tab', '');
    } catch (e) {
      setCopyError(e instanceof Error ? e.message : String(e));
    }
  };
  /** What a row offers, by the caller's access to it (the server checks again). */
  const rowActions = (r: StudioRecord): RowMenuItem[] => [
    ...(can(r.access, 'write') ? [{ label: 'Rename', onSelect: () => setPending({ kind: 'rename', record: r }) }] : []),
    ...(config.clone && can(r.access, 'copy') ? [{ label: 'Duplicate', onSelect: () => void duplicate(r) }] : []),
    ...(can(r.access, 'share') ? [{ label: 'Share', onSelect: () => setPending({ kind: 'share', record: r }) }] : []),
    { label: 'Tags', aria: `Edit tags of ${r.name}`, onSelect: () => setPending({ kind: 'tags', record: r }) },
    ...(config.projectKind ? [{ label: 'Project', aria: `Add ${r.name} to a project`, onSelect: () => setPending({ kind: 'project', record: r }) }] : []),
    ...(can(r.access, 'delete') ? [{ label: 'Delete', danger: true, onSelect: () => setPending({ kind: 'delete', record: r }) }] : []),
  ];
  const items = list.data?.items ?? [];
  const tagName = useMemo(() => tags.data?.find((t) => t.id === tag)?.name, [tags.data, tag]);

  const close = () => setPending(null);
  useEffect(() => {
    document.title = `${config.title} · Studio`;
  }, [config.title]);
  const api = config.api();

  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{config.title}</h1>
        {config.HeaderAction && <config.HeaderAction onChanged={list.reload} />}
        {config.newHref && (
          <Link className="button button-primary" to={config.newHref}>
            New {config.noun}
          </Link>
        )}
      </header>

      <div className="tabs" role="tablist" aria-label={`${config.title} scope`}>
        {TABS.map((t) => (
          <button key={t.id} id={`tab-${t.id}`} type="button" role="tab" aria-selected={t.id === tab} aria-controls="records-panel" className="tab" onClick={() => setParam('tab', t.id === 'mine' ? '' : t.id)}>
            {t.label}
          </button>
        ))}
      </div>

      <div className="toolbar">
        <input
          type="search"
          className="search"
          aria-label={`Search ${config.plural}`}
          placeholder={`Search ${config.plural}…`}
          value={searchInput}
          onChange={(e) => setSearchInput(e.target.value)}
        />
        <label className="inline-field">
          <span>Sort</span>
          <select aria-label="Sort by" value={sortKey} onChange={(e) => setParam('sort', e.target.value === 'recent' ? '' : e.target.value)}>
            {Object.entries(SORTS).map(([k, s]) => (
              <option key={k} value={k}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          <span>Tag</span>
          <select aria-label="Filter by tag" value={tag} onChange={(e) => setParam('tag', e.target.value)}>
            <option value="">All tags</option>
            {(tags.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      </div>

      <div id="records-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="page">
        <ErrorMessage message={list.error} onRetry={list.reload} />
        <ErrorMessage message={copyError} />
        {notice && <p className="card notice-card" role="status">{notice}</p>}

        {list.loading && !list.data && !list.error && (
          <p className="muted loading" role="status">
            Loading {config.plural}…
          </p>
        )}

        {!list.error && !list.loading && items.length === 0 && (
          <div className="empty" role="status">
            <div className="empty-art" aria-hidden="true" />
            <p>{emptyText(config, tab, search, Boolean(tag))}</p>
            {tagName && <p className="muted">Filtered by tag “{tagName}”.</p>}
          </div>
        )}

        {items.length > 0 && (
          <DataTable
            label={config.title}
            busy={list.loading}
            rows={items}
            rowKey={(r) => r.id}
            rowCount={list.data?.total}
            onEndReached={list.loadMore}
            columns={[
              { header: 'Name', cell: (r) => <RecordName record={r} href={config.href} /> },
              ...(config.columns ?? []),
              { header: 'Owner', cell: (r) => <span className="clip" title={r.owner.email}>{r.owner.name || r.owner.email}</span>, className: 'muted' },
              { header: 'Tags', cell: (r) => <TagChips label={`Tags of ${r.name}`} tags={r.tags} limit={SHOWN_TAGS} />, className: 'tags-cell' },
              { header: 'Updated', cell: (r) => formatDate(r.updatedAt), className: 'muted nowrap' },
              {
                header: <span className="visually-hidden">Actions</span>,
                className: 'row-actions',
                cell: (r) => <RowMenu name={r.name} items={rowActions(r)} />,
              },
            ]}
          />
        )}
        {list.data?.total !== undefined && list.data.total > items.length && (
          <p className="muted" role="status">
            {list.loading ? `Loading more ${config.plural}…` : `${items.length.toLocaleString()} of ${list.data.total.toLocaleString()} ${config.plural}: scroll on for the rest.`}
          </p>
        )}
      </div>

      {pending?.kind === 'rename' && (
        <PromptDialog
          title={`Rename ${config.noun}`}
          label="Name"
          initial={pending.record.name}
          submitLabel="Save"
          onClose={close}
          onSubmit={async (name) => {
            await api.save({ id: pending.record.id, name });
            list.reload();
          }}
        />
      )}
      {pending?.kind === 'project' && config.projectKind && (
        <AddRecordToProjectDialog record={pending.record} kind={config.projectKind} onClose={close} onAdded={(project) => setNotice(`Added “${pending.record.name}” to ${project}.`)} />
      )}
      {pending?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${config.noun}`}
          message={`Delete “${pending.record.name}”? ${capital(config.noun)}s that are deleted cannot be restored.`}
          confirmLabel="Delete"
          onClose={close}
          onConfirm={async () => {
            await api.delete(pending.record.id);
            list.reload();
          }}
        />
      )}
      {pending?.kind === 'share' && <ShareDialog config={config} record={pending.record} onClose={close} onChanged={list.reload} />}
      {pending?.kind === 'tags' && (
        <TagDialog
          config={config}
          record={pending.record}
          tags={tags.data ?? []}
          onClose={close}
          onChanged={() => {
            tags.reload();
            list.reload();
          }}
        />
      )}
    </section>
  );
}
