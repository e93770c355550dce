import { useState } from 'react';
import { client } from '../app/api';
import type { useAction } from '../app/ui';

/**
 * The SQL workspaces' first buttons: Run, Cancel while running, and "Save query" (a saved query, on the connection
 * or, with none, over the studio's datasets). The workspace keeps the action, so its error shows with the others.
 */
export function RunBar({ running, onRun, onCancel, text, connectionId, bookmark }: {
  running: boolean;
  onRun: () => void;
  onCancel: () => void;
  /** The editor's whole text now. */
  text: () => string;
  connectionId: string | null;
  bookmark: ReturnType<typeof useAction>;
}) {
  const [bookmarked, setBookmarked] = useState<string | null>(null);
  return (
    <>
      <button type="button" className="button button-primary" disabled={running} onClick={onRun}>Run</button>
      {running && <button type="button" className="button" onClick={onCancel}>Cancel</button>}
      {running && <span className="muted" role="status">Running…</span>}
      <button type="button" className="button" disabled={bookmark.pending} onClick={() => {
        const query = text();
        const title = window.prompt('Name of the saved query', query.slice(0, 60));
        if (query && title) void bookmark.run(async () => setBookmarked((await client.bookmarks.create({ name: title, query, connectionId })).name));
      }}>Save query</button>
      {bookmarked && <span role="status">{`Saved query “${bookmarked}”`}</span>}
    </>
  );
}
