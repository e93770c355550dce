import { useState, type FormEvent } from 'react';
import type { StudioRecord, Tag } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, TextField, useAction } from '../app/ui';
import type { CollectionConfig } from './collections';

const TAG_COLORS = ['#5b8ff9', '#2ca02c', '#f5a623', '#d64545', '#8e5bd9', '#17a2b8'];

/** Apply and remove tags on one record, or create a tag applied to it at once. */
export function TagDialog(props: { config: CollectionConfig; record: StudioRecord; tags: Tag[]; onClose: () => void; onChanged: () => void }) {
  const { config, record } = props;
  const [applied, setApplied] = useState(() => new Set(record.tags.map((t) => t.id)));
  const [created, setCreated] = useState<Tag[]>([]);
  const [name, setName] = useState('');
  const action = useAction();
  const all = [...props.tags, ...created.filter((c) => !props.tags.some((t) => t.id === c.id))];

  const toggle = (tag: Tag, on: boolean) =>
    action.run(async () => {
      if (on) await client.tags.apply(tag.id, config.resourceType, record.id);
      else await client.tags.remove(tag.id, config.resourceType, record.id);
      setApplied((s) => {
        const next = new Set(s);
        if (on) next.add(tag.id);
        else next.delete(tag.id);
        return next;
      });
      props.onChanged();
    });

  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const color = TAG_COLORS[all.length % TAG_COLORS.length]!;
      const tag = await client.tags.create({ name: name.trim(), color, resourceId: record.id, resourceType: config.resourceType });
      setCreated((c) => [...c, tag]);
      setApplied((s) => new Set(s).add(tag.id));
      setName('');
      props.onChanged();
    });
  };

  return (
    <Dialog title={`Tags of “${record.name}”`} onClose={props.onClose}>
      {all.length === 0 ? (
        <p className="muted">No tags yet — create the first one below.</p>
      ) : (
        <fieldset className="tag-choices">
          <legend className="visually-hidden">Tags</legend>
          {all.map((t) => (
            <label key={t.id} className="check">
              <input type="checkbox" checked={applied.has(t.id)} disabled={action.pending} onChange={(e) => void toggle(t, e.target.checked)} />
              <span className="tag" style={{ ['--tag' as string]: t.color }}>
                {t.name}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <form className="form share-row" onSubmit={create}>
        <TextField grow label="New tag" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required />
        <button type="submit" className="button" disabled={action.pending || !name.trim()}>
          Create tag
        </button>
      </form>
      <ErrorMessage message={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
