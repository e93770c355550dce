import { useMemo, useState, type DragEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { Folder, ProjectResource } from '@studio/schema';
import { client } from '../app/api';
import { ConfirmDialog, Dialog, ErrorMessage, Field, PromptDialog, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { NotFoundPage } from '../pages/NotFound';
import { useThumbnail } from '../app/useThumbnail';
import { AddToProjectDialog } from './AddToProjectDialog';
import { ProjectPictureDialog } from './ProjectPictureDialog';
import { KIND_LABELS, flatten, folderPath, folderTree, resourceHref, resourcesIn, subtreeIds } from './folders';
import './projects.css';

/** The drag payload of a project resource row (its entry id). */
const DRAG_TYPE = 'application/x-studio-project-entry';
const ROOT = 'Project root';

/**
 * /workspace/projects/{id}: a project's folder tree (create, rename, move, delete folders) and the resources of
 * the selected folder (open, move by drag and drop onto a folder or by the "Folder" picker, remove from the
 * project), with "Add to project" for the caller's maps, dashboards, workbooks, datasets, basemaps and
 * palettes (catalog §7 Projects, CAT-131…146).
 */
export function ProjectPage() {
  const { id = '' } = useParams();
  const project = useLoad(() => client.projects.detail(id), [id]);
  const entries = useLoad(() => client.projects.resources(id).then((p) => p.items), [id]);
  const [selected, setSelected] = useState<string | null>(null);
  const [dialog, setDialog] = useState<null | 'add' | 'new-folder' | 'rename-folder' | 'move-folder' | 'delete-folder' | 'rename-project' | 'picture'>(null);
  const [dropTarget, setDropTarget] = useState<string | null | undefined>(undefined);
  const act = useAction();
  const picture = useThumbnail(project.data?.thumbnailUrl ?? null);

  const folders = project.data?.folders ?? [];
  const rows = useMemo(() => flatten(folderTree(folders)), [folders]);
  const current = folders.find((f) => f.id === selected) ?? null;
  const shown = useMemo(() => resourcesIn(entries.data ?? [], current?.id ?? null), [entries.data, current]);
  const present = useMemo(() => new Set((entries.data ?? []).map((e) => e.resource.id)), [entries.data]);
  const canEdit = project.data && ['editor', 'owner', 'admin'].includes(project.data.access);
  const reload = () => {
    project.reload();
    entries.reload();
  };
  const move = (entryId: string, folderId: string | null) => void act.run(async () => {
    await client.projects.moveResource(id, entryId, folderId);
    entries.reload();
  });
  const countIn = (folderId: string | null) => (entries.data ?? []).filter((e) => e.folderId === folderId).length;

  if (project.error && /not found/i.test(project.error)) return <NotFoundPage title="Project not found" lead="No project has this address, or it was deleted, or you were not given access to it." />;

  const dropProps = (folderId: string | null) =>
    canEdit
      ? {
          onDragOver: (e: DragEvent) => {
            if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
            e.preventDefault();
            setDropTarget(folderId);
          },
          onDragLeave: () => setDropTarget(undefined),
          onDrop: (e: DragEvent) => {
            e.preventDefault();
            setDropTarget(undefined);
            const entryId = e.dataTransfer.getData(DRAG_TYPE);
            if (entryId) move(entryId, folderId);
          },
        }
      : {};

  return (
    <section className="page project-page" aria-labelledby="page-title">
      <header className="page-header">
        <div className="project-title">
          {picture && <img className="project-picture" src={picture} alt="" data-picture="loaded" />}
          <h1 id="page-title">{project.data?.name ?? 'Project'}</h1>
        </div>
        {canEdit && (
          <div className="page-actions">
            <button type="button" className="button" onClick={() => setDialog('rename-project')}>Rename project</button>
            <button type="button" className="button" onClick={() => setDialog('picture')}>Picture</button>
            <button type="button" className="button" onClick={() => setDialog('new-folder')}>New folder</button>
            <button type="button" className="button button-primary" onClick={() => setDialog('add')}>Add to project</button>
          </div>
        )}
      </header>
      {project.data?.description && <p className="lead">{project.data.description}</p>}
      <ErrorMessage message={project.error ?? entries.error ?? act.error} onRetry={reload} />
      <div className="project-layout">
        <nav className="folder-tree" aria-label="Folders">
          <ul>
            <li>
              <button type="button" className={`folder-row${selected === null ? ' is-selected' : ''}${dropTarget === null ? ' is-drop-target' : ''}`} aria-current={selected === null ? 'true' : undefined} onClick={() => setSelected(null)} {...dropProps(null)}>
                <span>{ROOT}</span>
                <span className="folder-count">{countIn(null)}</span>
              </button>
            </li>
            {rows.map(({ folder, depth }) => (
              <li key={folder.id} style={{ paddingLeft: `${(depth + 1) * 16}px` }}>
                <button type="button" className={`folder-row${selected === folder.id ? ' is-selected' : ''}${dropTarget === folder.id ? ' is-drop-target' : ''}`} aria-current={selected === folder.id ? 'true' : undefined} onClick={() => setSelected(folder.id)} {...dropProps(folder.id)}>
                  <span>{folder.name}</span>
                  <span className="folder-count">{countIn(folder.id)}</span>
                </button>
              </li>
            ))}
          </ul>
          {canEdit && current && (
            <div className="folder-actions" aria-label={`Folder ${current.name}`} role="group">
              <button type="button" className="button button-small" onClick={() => setDialog('rename-folder')}>Rename</button>
              <button type="button" className="button button-small" onClick={() => setDialog('move-folder')}>Move</button>
              <button type="button" className="button button-small button-danger" onClick={() => setDialog('delete-folder')}>Delete</button>
            </div>
          )}
        </nav>
        <div className="project-resources">
          <h2>{current ? folderPath(folders, current.id) : ROOT}</h2>
          {entries.data && shown.length === 0 && <p className="muted">{canEdit ? 'Nothing here yet: “Add to project”, or drag a resource onto this folder.' : 'Nothing here.'}</p>}
          {shown.length > 0 && (
            <table className="table" aria-label="Project resources">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Folder</th>
                  <th scope="col"><span className="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {shown.map((e) => (
                  <ResourceRow key={e.id} entry={e} folders={folders} canEdit={!!canEdit} onMove={(folderId) => move(e.id, folderId)} onRemove={() => void act.run(async () => {
                    await client.projects.removeResource(id, e.id);
                    entries.reload();
                  })} />
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      {dialog === 'add' && (
        <AddToProjectDialog projectId={id} folderId={current?.id ?? null} folderName={current ? folderPath(folders, current.id) : ROOT} present={present} onAdded={entries.reload} onClose={() => setDialog(null)} />
      )}
      {dialog === 'new-folder' && (
        <PromptDialog title={current ? `New folder in ${current.name}` : 'New folder'} label="Folder name" submitLabel="Create" onClose={() => setDialog(null)} onSubmit={async (name) => {
          const made = await client.projects.createFolder(id, name, current?.id ?? null);
          project.reload();
          setSelected(made.id);
        }} />
      )}
      {dialog === 'rename-folder' && current && (
        <PromptDialog title="Rename folder" label="Folder name" initial={current.name} submitLabel="Rename" onClose={() => setDialog(null)} onSubmit={async (name) => {
          await client.projects.updateFolder(id, current.id, { name });
          project.reload();
        }} />
      )}
      {dialog === 'move-folder' && current && (
        <MoveFolderDialog folder={current} folders={folders} onClose={() => setDialog(null)} onMove={async (parentId) => {
          await client.projects.updateFolder(id, current.id, { parentId });
          project.reload();
        }} />
      )}
      {dialog === 'delete-folder' && current && (
        <ConfirmDialog title="Delete folder" confirmLabel="Delete" onClose={() => setDialog(null)}
          message={`“${current.name}” and its subfolders are deleted; the resources in them move to the project root (they are not deleted).`}
          onConfirm={async () => {
            await client.projects.deleteFolder(id, current.id);
            setSelected(null);
            reload();
          }} />
      )}
      {dialog === 'picture' && (
        <ProjectPictureDialog projectId={id} entries={entries.data ?? []} onSaved={project.reload} onClose={() => setDialog(null)} />
      )}
      {dialog === 'rename-project' && project.data && (
        <PromptDialog title="Rename project" label="Project name" initial={project.data.name} submitLabel="Rename" onClose={() => setDialog(null)} onSubmit={async (name) => {
          await client.projects.save({ id, name });
          project.reload();
        }} />
      )}
    </section>
  );
}

function ResourceRow({ entry, folders, canEdit, onMove, onRemove }: { entry: ProjectResource; folders: Folder[]; canEdit: boolean; onMove: (folderId: string | null) => void; onRemove: () => void }) {
  const r = entry.resource;
  return (
    <tr draggable={canEdit} onDragStart={(e) => {
      e.dataTransfer.setData(DRAG_TYPE, entry.id);
      e.dataTransfer.effectAllowed = 'move';
    }}>
      <td><Link to={resourceHref(r)}>{r.name}</Link></td>
      <td>{KIND_LABELS[r.type]}</td>
      <td>
        <select aria-label={`Folder of ${r.name}`} value={entry.folderId ?? ''} disabled={!canEdit} onChange={(e) => onMove(e.target.value || null)}>
          <option value="">{ROOT}</option>
          {folders.map((f) => <option key={f.id} value={f.id}>{folderPath(folders, f.id)}</option>)}
        </select>
      </td>
      <td className="row-actions">
        {canEdit && <button type="button" className="button button-small" aria-label={`Remove ${r.name} from the project`} onClick={onRemove}>Remove</button>}
      </td>
    </tr>
  );
}

/** Moves a folder under another (not under itself or its own subfolders) or to the root. */
function MoveFolderDialog({ folder, folders, onMove, onClose }: { folder: Folder; folders: Folder[]; onMove: (parentId: string | null) => Promise<void>; onClose: () => void }) {
  const blocked = subtreeIds(folders, folder.id);
  const [parent, setParent] = useState(folder.parentId ?? '');
  const action = useAction();
  return (
    <Dialog title={`Move ${folder.name}`} onClose={onClose}>
      <form className="form" onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await onMove(parent || null);
          onClose();
        });
      }}>
        <Field label="Into">
          <select value={parent} onChange={(e) => setParent(e.target.value)}>
            <option value="">{ROOT}</option>
            {folders.filter((f) => !blocked.has(f.id)).map((f) => <option key={f.id} value={f.id}>{folderPath(folders, f.id)}</option>)}
          </select>
        </Field>
        <ErrorMessage message={action.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={action.pending}>Move</button>
        </div>
      </form>
    </Dialog>
  );
}

/** /workspace/projects/new: a name and a description, then the new project's page. */
export function NewProjectPage() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction();
  const navigate = useNavigate();
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header"><h1 id="page-title">New project</h1></header>
      <form className="form narrow" onSubmit={(e) => {
        e.preventDefault();
        void create.run(async () => {
          const made = await client.projects.save({ name: name.trim(), description });
          navigate(`/workspace/projects/${made.id}`, { replace: true });
        });
      }}>
        <TextField label="Project name" value={name} maxLength={500} required onChange={(e) => setName(e.target.value)} />
        <TextField label="Description" value={description} maxLength={10_000} onChange={(e) => setDescription(e.target.value)} />
        <ErrorMessage message={create.error} />
        <div className="dialog-actions">
          <button type="submit" className="button button-primary" disabled={!name.trim() || create.pending}>{create.pending ? 'Creating…' : 'Create project'}</button>
        </div>
      </form>
    </section>
  );
}
