import { useState } from 'react';
import { Link } from 'react-router-dom';
import { can, type ProjectResource } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { flatten, folderPath, folderTree } from './folders';

/**
 * "Add to project" from a list or a record page: the record goes into one of the projects the caller may change,
 * at its root or into one of its folders. A record already in that project is refused by the server with
 * its reason ("Could not save project resource: …").
 */
export function AddRecordToProjectDialog({ record, kind, onClose, onAdded }: {
  record: { id: string; name: string };
  kind: ProjectResource['resource']['type'];
  onClose: () => void;
  onAdded?: (projectName: string) => void;
}) {
  const projects = useLoad(async () => (await client.projects.list({ limit: 1000, sortBy: 'updatedAt', sortOrder: 'desc' })).items.filter((p) => can(p.access, 'write')), []);
  const [projectId, setProjectId] = useState('');
  const chosen = projectId || projects.data?.[0]?.id || '';
  const detail = useLoad(async () => (chosen ? client.projects.detail(chosen) : null), [chosen]);
  const [folderId, setFolderId] = useState('');
  const add = useAction();
  const folders = detail.data?.folders ?? [];
  const none = projects.data !== undefined && projects.data.length === 0;
  return (
    <Dialog title={`Add ${record.name} to a project`} onClose={onClose}>
      {none ? (
        <p className="dialog-text">
          You have no project to add it to yet. <Link to="/workspace/projects/new">Create a project</Link>, then add it from here or from the project.
        </p>
      ) : (
        <form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            void add.run(async () => {
              await client.projects.addResource(chosen, { type: kind, id: record.id }, folderId || null);
              onAdded?.(projects.data?.find((p) => p.id === chosen)?.name ?? '');
              onClose();
            });
          }}
        >
          <Field label="Project">
            <select value={chosen} onChange={(e) => { setProjectId(e.target.value); setFolderId(''); }} disabled={!projects.data}>
              {(projects.data ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </Field>
          <Field label="Folder">
            <select value={folderId} onChange={(e) => setFolderId(e.target.value)} disabled={!detail.data}>
              <option value="">Project root</option>
              {flatten(folderTree(folders)).map((n) => <option key={n.folder.id} value={n.folder.id}>{folderPath(folders, n.folder.id)}</option>)}
            </select>
          </Field>
          <ErrorMessage message={projects.error ?? detail.error ?? add.error} />
          <div className="dialog-actions">
            <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
            <button type="submit" className="button button-primary" disabled={!chosen || add.pending}>{add.pending ? 'Adding…' : 'Add to project'}</button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

/**
 * A record page's "Add to project" button (dataset page, map builder, dashboard, workbook): opens the dialog
 * above and says where the record went once the server has it.
 */
export function AddToProjectButton({ record, kind }: { record: { id: string; name: string }; kind: ProjectResource['resource']['type'] }) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState<string | null>(null);
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>Add to project</button>
      {added && <span className="muted" role="status">{`Added to ${added}.`}</span>}
      {open && <AddRecordToProjectDialog record={record} kind={kind} onClose={() => setOpen(false)} onAdded={setAdded} />}
    </>
  );
}
