import { useState, type FormEvent } from 'react';
import { client } from '../app/api';
import { Dialog, ErrorMessage } from '../app/ui';

/** Publishes the saved map (optionally behind a password) and shows its public link. */
export function PublishDialog({ mapId, onClose }: { mapId: string; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      await client.maps.publish(mapId, { password: password || null });
      setLink(`${window.location.origin}/public/${mapId}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog title="Publish map" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <p className="dialog-text">Publishing shares the last saved version of this map with anyone who has the link.</p>
        <label htmlFor="publish-password">Password (optional)</label>
        <input id="publish-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
        <ErrorMessage message={error} />
        {link && (
          <p className="dialog-text" role="status">
            Published: <a href={link}>{link}</a>
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Publishing…' : 'Publish'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
