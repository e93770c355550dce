import type { HistoryCollection, VersionSummary } from '@studio/schema';
import { editorUrl, versionTitle } from './versions';
import './history.css';

/** The note over a version opened read-only: which version, and the way back to the record as it is now. */
export function VersionBanner({ collection, id, version }: { collection: HistoryCollection; id: string; version: VersionSummary }) {
  return (
    <span className="history-banner" role="note">
      {versionTitle(version)}: read only, as it was saved{version.message ? ` (“${version.message}”)` : ''}.{' '}
      <a href={editorUrl(collection, id)}>Back to the latest</a>
    </span>
  );
}
