import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { ResourceType, Tag } from '@studio/schema';
import { client } from '../app/api';
import { useUser } from '../app/session';
import { ConfirmDialog, DataTable, Dialog, ErrorMessage, TextField, useAction, type Column } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { COLLECTIONS } from './collections';

/**
 * /workspace/tags: every tag the user can use — their own and their organizations' (catalog §7, CAT-098..100,
 * CAT-171..174) — with where each is applied, each count a link to that list filtered by the tag. The owner of
 * a tag (or an administrator) renames it, changes its colour or deletes it; deleting takes it off everything
 * it was on, so it asks first.
 */
const DEFAULT_COLOR = '#5b8ff9';

/** The list that shows a resource type, when there is exactly one (map assets are split into basemaps and palettes). */
const LIST_OF = new Map<ResourceType, (typeof COLLECTIONS)[number]>(
  COLLECTIONS.filter((c) => COLLECTIONS.filter((o) => o.resourceType === c.resourceType).length === 1).map((c) => [c.resourceType, c]),
);
const NOUNS: Partial<Record<ResourceType, [string, string]>> = { 'map-asset': ['map asset', 'map assets'] };

async function usableTags(): Promise<Tag[]> {
  const [own, org] = await Promise.all([client.tags.list(), client.tags.forOrganization()]);
  const byId = new Map<string, Tag>();
  for (const t of [...own.items, ...org.items]) byId.set(t.id, t);
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function Usage({ tag }: { tag: Tag }) {
  const counts = new Map<ResourceType, number>();
  for (const r of tag.resources) counts.set(r.resourceType, (counts.get(r.resourceType) ?? 0) + 1);
  if (!counts.size) return <span className="muted">Not applied</span>;
  return (
    <ul className="inline-list">
      {[...counts].map(([type, n]) => {
        const list = LIST_OF.get(type);
        const [one, many] = list ? [list.noun, list.plural] : (NOUNS[type] ?? [type, type]);
        const text = `${n} ${n === 1 ? one : many}`;
        return <li key={type}>{list ? <Link to={`/workspace/${list.slug}?tag=${tag.id}`}>{text}</Link> : text}</li>;
      })}
    </ul>
  );
}

function EditTagDialog({ tag, onClose, onSaved }: { tag: Tag; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(tag.name);
  const [color, setColor] = useState(tag.color);
  const action = useAction();
  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await client.tags.update(tag.id, { name: name.trim(), color });
      onSaved();
      onClose();
    });
  };
  return (
    <Dialog title={`Edit tag “${tag.name}”`} onClose={onClose}>
      <form className="form" onSubmit={save}>
        <TextField label="Name" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
        <TextField label="Color" type="color" value={color} onChange={(e) => setColor(e.target.value)} />
        <ErrorMessage message={action.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={action.pending || !name.trim()}>Save</button>
        </div>
      </form>
    </Dialog>
  );
}

export function TagsPage() {
  const user = useUser();
  const tags = useLoad(usableTags, []);
  const create = useAction();
  const [name, setName] = useState('');
  const [color, setColor] = useState(DEFAULT_COLOR);
  const [editing, setEditing] = useState<Tag | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);
  const canChange = (t: Tag) => t.ownerId === user.id || user.isAdmin;

  const columns: Column<Tag>[] = [
    { header: 'Tag', cell: (t) => <span className="tag" style={{ ['--tag' as string]: t.color }}>{t.name}</span> },
    { header: 'Applied to', cell: (t) => <Usage tag={t} /> },
    { header: 'Owner', cell: (t) => (t.ownerId === user.id ? 'You' : 'Your organization'), className: 'muted' },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'row-actions',
      cell: (t) =>
        canChange(t) && (
          <>
            <button type="button" className="button button-small" aria-label={`Edit ${t.name}`} onClick={() => setEditing(t)}>Edit</button>
            <button type="button" className="button button-small button-danger" aria-label={`Delete ${t.name}`} onClick={() => setDeleting(t)}>Delete</button>
          </>
        ),
    },
  ];

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run(async () => {
      await client.tags.create({ name: name.trim(), color });
      setName('');
      tags.reload();
    });
  };

  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">Tags</h1>
      </header>
      <p className="lead">Tags group maps, dashboards, datasets and the rest across lists; every list filters by them. A tag you make belongs to your organization too, so its members can use it.</p>
      <form className="toolbar tag-create" aria-label="New tag" onSubmit={submit}>
        <TextField label="New tag" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
        <TextField label="Color" type="color" value={color} onChange={(e) => setColor(e.target.value)} />
        <button type="submit" className="button button-primary" disabled={create.pending || !name.trim()}>Create tag</button>
      </form>
      <ErrorMessage message={create.error} />
      <ErrorMessage message={tags.error} onRetry={tags.reload} />
      {tags.data && tags.data.length === 0 && <p className="muted">No tags yet.</p>}
      {tags.data && tags.data.length > 0 && <DataTable label="Tags" columns={columns} rows={tags.data} rowKey={(t) => t.id} busy={tags.loading} />}
      {editing && <EditTagDialog tag={editing} onClose={() => setEditing(null)} onSaved={tags.reload} />}
      {deleting && (
        <ConfirmDialog
          title="Delete tag"
          message={`Delete “${deleting.name}”? It comes off the ${deleting.resources.length === 1 ? 'one resource' : `${deleting.resources.length} resources`} it is on. This cannot be undone.`}
          confirmLabel="Delete tag"
          onConfirm={async () => {
            await client.tags.delete(deleting.id);
            tags.reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
