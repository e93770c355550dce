import { useMemo, useState } from 'react';
import { PROJECT_RESOURCE_KINDS, type ProjectResource } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { KIND_LABELS } from './folders';

type Kind = ProjectResource['resource']['type'];

/** The caller's records of one kind a project can hold, newest first (at most a thousand). */
async function candidates(kind: Kind): Promise<{ id: string; name: string }[]> {
  const page = { limit: 1000, sortBy: 'updatedAt' as const, sortOrder: 'desc' as const };
  switch (kind) {
    case 'map':
      return (await client.records('maps').list(page)).items;
    case 'insight':
      return (await client.records('dashboards').list(page)).items;
    case 'workbook':
      return (await client.records('workbooks').list(page)).items;
    case 'dataset':
      return (await client.records('datasets').list(page)).items;
    case 'map-style':
    case 'color-palette':
      return (await client.mapAssets.list(kind, page)).items;
  }
}

/** "Add to project": one of the caller's maps, dashboards, workbooks, datasets, basemaps or palettes, into a folder. */
export function AddToProjectDialog({ projectId, folderId, folderName, present, onAdded, onClose }: {
  projectId: string;
  folderId: string | null;
  folderName: string;
  /** Resources already in the project: not offered again. */
  present: Set<string>;
  onAdded: () => void;
  onClose: () => void;
}) {
  const [kind, setKind] = useState<Kind>('map');
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState('');
  const list = useLoad(() => candidates(kind), [kind]);
  const add = useAction();
  const shown = useMemo(() => {
    const words = filter.trim().toLowerCase();
    return (list.data ?? []).filter((r) => !present.has(r.id) && (!words || r.name.toLowerCase().includes(words)));
  }, [list.data, filter, present]);

  return (
    <Dialog title="Add to project" onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run(async () => {
            await client.projects.addResource(projectId, { type: kind, id: chosen }, folderId);
            onAdded();
            onClose();
          });
        }}
      >
        <p className="muted">{`Into ${folderName}.`}</p>
        <Field label="Kind">
          <select value={kind} onChange={(e) => { setKind(e.target.value as Kind); setChosen(''); }}>
            {PROJECT_RESOURCE_KINDS.map((k) => <option key={k} value={k}>{KIND_LABELS[k]}</option>)}
          </select>
        </Field>
        <TextField label="Filter" type="search" value={filter} placeholder="A word of its name" onChange={(e) => setFilter(e.target.value)} />
        <Field label="Resource">
          <select value={chosen} size={Math.min(8, Math.max(2, shown.length + 1))} onChange={(e) => setChosen(e.target.value)} required>
            <option value="" disabled>{list.loading ? 'Loading…' : shown.length ? `Pick a ${KIND_LABELS[kind].toLowerCase()}` : 'Nothing to add'}</option>
            {shown.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
          </select>
        </Field>
        <ErrorMessage message={list.error ?? add.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={!chosen || add.pending}>{add.pending ? 'Adding…' : 'Add'}</button>
        </div>
      </form>
    </Dialog>
  );
}
