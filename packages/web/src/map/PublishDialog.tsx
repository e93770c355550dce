import { useState, type FormEvent } from 'react';
import type { PublishedMapInfo } from '@studio/schema';
import { client } from '../app/api';
import { useUser } from '../app/session';
import { Dialog, ErrorMessage, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';

/** The embed code's frame size when the publisher does not choose one. */
const EMBED_DEFAULT = { width: 800, height: 600 };

/** The public address of a published map, and the iframe that embeds it (`?embed=1`: the map alone). */
export function publicLinks(origin: string, mapId: string, size: { width: number; height: number } = EMBED_DEFAULT) {
  const link = `${origin}/public/${mapId}`;
  return { link, embed: `<iframe src="${link}?embed=1" width="${size.width}" height="${size.height}" style="border:0" allowfullscreen title="Published map"></iframe>` };
}

/**
 * Publishing a saved map: publish (title, optional password), the link and embed code to copy, the
 * status (when, how many views), publish again after edits, unpublish; administrators also feature it.
 * Publishing uses catalog §7's uploadOptions (POST /v1/maps/{id}/publish/resources).
 */
export function PublishDialog({ mapId, mapName, onClose }: { mapId: string; mapName: string; onClose: () => void }) {
  const user = useUser();
  const current = useLoad(() => client.maps.publishedList([mapId]).then((page) => page.items[0] ?? null), [mapId]);
  const [changed, setChanged] = useState<PublishedMapInfo | null | undefined>(undefined);
  const info = changed === undefined ? (current.data ?? null) : changed;
  const [title, setTitle] = useState(mapName);
  const [password, setPassword] = useState('');
  const [size, setSize] = useState(EMBED_DEFAULT);
  const [copied, setCopied] = useState<string | null>(null);
  const action = useAction();
  const { link, embed } = publicLinks(window.location.origin, mapId, size);

  const publish = (e: FormEvent) => {
    e.preventDefault();
    // An empty password field keeps the current password (see "Remove the password").
    void action.run(async () => {
      setChanged(await client.maps.publishWith(mapId, { title, ...(password ? { password } : {}) }));
      setPassword('');
    });
  };
  const removePassword = () => action.run(async () => setChanged(await client.maps.publishWith(mapId, { password: null })));
  const unpublish = () =>
    action.run(async () => {
      await client.maps.unpublish(mapId);
      setChanged(null);
    });
  const feature = () =>
    action.run(async () => {
      if (info?.featured) await client.maps.unfeature(info.featured.id);
      else await client.maps.feature({ mapId, title });
      setChanged((await client.maps.publishedList([mapId])).items[0] ?? null);
    });
  const copy = (what: string, text: string) =>
    action.run(async () => {
      await navigator.clipboard.writeText(text);
      setCopied(what);
    });

  return (
    <Dialog title="Publish map" onClose={onClose} wide>
      <form className="form publish-form" onSubmit={publish}>
        <p className="dialog-text">Publishing shares the last saved version of this map with anyone who has the link. Publish again after saving edits.</p>
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} />
        <TextField
          label={info?.passwordProtected ? 'New password (optional)' : 'Password (optional)'}
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="new-password"
        />
        {info && (
          <div className="publish-status">
            <p role="status">
              {`Published ${new Date(info.publishedAt).toLocaleString()}${info.passwordProtected ? ', with a password' : ''} · ${info.views} ${info.views === 1 ? 'view' : 'views'}`}
              {info.featured ? ' · featured' : ''}
            </p>
            <p className="published-link">
              <a href={link} target="_blank" rel="noreferrer">
                {link}
              </a>{' '}
              <button type="button" className="button button-quiet" onClick={() => void copy('link', link)}>
                {copied === 'link' ? 'Link copied' : 'Copy link'}
              </button>
            </p>
            <label htmlFor="publish-embed">Embed code</label>
            <textarea id="publish-embed" className="embed-code" readOnly rows={3} value={embed} onFocus={(e) => e.currentTarget.select()} />
            <div className="embed-size">
              <TextField label="Width" type="number" min={200} max={4000} value={size.width} onChange={(e) => setSize({ ...size, width: Number(e.target.value) || EMBED_DEFAULT.width })} />
              <TextField label="Height" type="number" min={150} max={4000} value={size.height} onChange={(e) => setSize({ ...size, height: Number(e.target.value) || EMBED_DEFAULT.height })} />
              <button type="button" className="button button-quiet" onClick={() => void copy('embed', embed)}>
                {copied === 'embed' ? 'Embed code copied' : 'Copy embed code'}
              </button>
            </div>
          </div>
        )}
        {current.loading && <p className="dialog-text">Checking whether this map is published…</p>}
        <ErrorMessage message={action.error ?? current.error} />
        <footer className="dialog-actions">
          {info?.passwordProtected && (
            <button type="button" className="button" disabled={action.pending} onClick={() => void removePassword()}>
              Remove the password
            </button>
          )}
          {info && user.isAdmin && (
            <button type="button" className="button" disabled={action.pending} onClick={() => void feature()}>
              {info.featured ? 'Unfeature' : 'Feature'}
            </button>
          )}
          {info && (
            <button type="button" className="button" disabled={action.pending} onClick={() => void unpublish()}>
              Unpublish
            </button>
          )}
          <button type="submit" className="button button-primary" disabled={action.pending || !title.trim()}>
            {action.pending ? 'Working…' : info ? 'Publish again' : 'Publish'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
