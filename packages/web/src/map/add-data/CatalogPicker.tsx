import { createContext, useContext, useState, type ChangeEvent } from 'react';
import type { StudioRecord } from '@studio/schema';
import { client } from '../../app/api';
import { ErrorMessage } from '../../app/ui';
import { errorMessage, useLoad } from '../../app/useLoad';
import { TABS, type TabId } from '../../list/RecordList';
import { ACCEPT, defaultName, formatOf, uploadDataset, type UploadPhase } from '../../datasets/upload';
import './add-data.css';

/** What the map view lends kepler's "Add Data" window: the datasets on the map, and a way to add more. */
export interface AddDataTarget {
  /** Catalog ids of the datasets on the map now. */
  onMap: () => string[];
  /** Loads the datasets as Arrow and adds them, one layer each. */
  add: (ids: string[]) => Promise<void>;
}
export const AddDataContext = createContext<AddDataTarget | null>(null);

const datasets = () => client.records('datasets');
/** One of the catalog's lists (the workspace lists' tabs: mine, organization, shared, samples), searched by name. */
const listOf = (scope: TabId, search: string) => {
  const tab = TABS.find((t) => t.id === scope)!;
  return datasets()[tab.call]({ search: search || undefined, sortBy: 'updatedAt', sortOrder: 'desc', limit: 100 });
};

/**
 * kepler's "Add Data" window, as the studio has it: pick datasets from the catalog (own, shared, the
 * organization's, samples; searched by name) or upload a file into the catalog, then add them to the map.
 * Injected in place of kepler's LoadDataModal (kepler-injections.tsx), so `/new` is never a dead end.
 */
export function CatalogPicker({ onClose }: { onClose?: () => void }) {
  const target = useContext(AddDataContext);
  const [tab, setTab] = useState<'catalog' | 'upload'>('catalog');
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!target) return <p className="add-data-empty">Datasets are added from the map builder.</p>;

  const add = async (ids: string[]) => {
    setAdding(true);
    setError(null);
    try {
      await target.add(ids);
      onClose?.();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setAdding(false);
    }
  };

  return (
    <div className="add-data">
      <div className="add-data-tabs" role="tablist" aria-label="Where the data comes from">
        <button type="button" role="tab" aria-selected={tab === 'catalog'} onClick={() => setTab('catalog')}>
          Catalog
        </button>
        <button type="button" role="tab" aria-selected={tab === 'upload'} onClick={() => setTab('upload')}>
          Upload a file
        </button>
      </div>
      {tab === 'catalog' ? <CatalogTab onMap={target.onMap()} adding={adding} onAdd={add} /> : <UploadTab adding={adding} onUploaded={(id) => add([id])} />}
      <ErrorMessage message={error} />
    </div>
  );
}

function CatalogTab({ onMap, adding, onAdd }: { onMap: string[]; adding: boolean; onAdd: (ids: string[]) => void }) {
  const [scope, setScope] = useState<TabId>('mine');
  const [search, setSearch] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const list = useLoad(() => listOf(scope, search.trim()), [scope, search]);
  const items = (list.data?.items ?? []) as (StudioRecord & { status?: string })[];
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));

  return (
    <div className="add-data-catalog" role="tabpanel" aria-label="Catalog">
      <div className="add-data-filters">
        <select aria-label="Datasets" value={scope} onChange={(e) => setScope(e.target.value as TabId)}>
          {TABS.map((s) => (
            <option key={s.id} value={s.id}>
              {s.label}
            </option>
          ))}
        </select>
        <input type="search" aria-label="Search datasets" placeholder="Search by name" value={search} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <ul className="add-data-list" aria-label="Datasets to add">
        {items.map((d) => {
          const there = onMap.includes(d.id);
          const ready = (d.status ?? 'ready') === 'ready';
          return (
            <li key={d.id}>
              <label className={there || !ready ? 'add-data-disabled' : undefined}>
                <input type="checkbox" checked={there || picked.includes(d.id)} disabled={there || !ready || adding} onChange={() => toggle(d.id)} />
                <span className="add-data-name">{d.name}</span>
                <span className="add-data-note">{there ? 'on the map' : ready ? '' : d.status}</span>
              </label>
            </li>
          );
        })}
      </ul>
      {list.loading && <p className="add-data-empty">Loading the catalog…</p>}
      {!list.loading && items.length === 0 && <p className="add-data-empty">{search ? `No dataset matches “${search}”.` : 'No datasets here yet.'}</p>}
      <ErrorMessage message={list.error} onRetry={list.reload} />
      <div className="add-data-actions">
        <button type="button" className="button button-primary" disabled={picked.length === 0 || adding} onClick={() => onAdd(picked)}>
          {adding ? 'Adding…' : picked.length > 1 ? `Add ${picked.length} datasets` : 'Add to map'}
        </button>
      </div>
    </div>
  );
}

/** A file uploaded into the catalog (a dataset of its own, reusable in other maps), then added. */
function UploadTab({ adding, onUploaded }: { adding: boolean; onUploaded: (id: string) => void }) {
  const [phase, setPhase] = useState<UploadPhase | null>(null);
  const [error, setError] = useState<string | null>(null);

  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const format = formatOf(file.name);
    if (!format) return setError(`“${file.name}” is not a file the studio reads: upload CSV, TSV, JSON, NDJSON, GeoJSON or Parquet (optionally .gz).`);
    setError(null);
    try {
      const dataset = await uploadDataset(file, { ...format, name: defaultName(file.name) }, setPhase);
      onUploaded(dataset.id);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setPhase(null);
    }
  };

  return (
    <div className="add-data-upload" role="tabpanel" aria-label="Upload a file">
      <p>The file becomes a dataset in your catalog, then a layer on this map.</p>
      <label className="button">
        Choose a file
        <input type="file" accept={ACCEPT} hidden disabled={phase !== null || adding} onChange={(e) => void choose(e)} />
      </label>
      {phase && (
        <p role="status">
          {phase.kind === 'ingesting' ? 'Ingesting…' : `Uploading… ${phase.total ? Math.round((phase.loaded / phase.total) * 100) : 0}%`}
        </p>
      )}
      <ErrorMessage message={error} />
    </div>
  );
}
