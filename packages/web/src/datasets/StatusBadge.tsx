import type { DatasetStatus } from '@studio/schema';
import './datasets.css';

const LABELS: Record<DatasetStatus, string> = { new: 'New', pending: 'Ingesting', ready: 'Ready', error: 'Error' };

/** A dataset's status; an error carries its message as a tooltip and, when asked, a second line. */
export function StatusBadge({ status, message, showMessage }: { status: DatasetStatus; message?: string | null; showMessage?: boolean }) {
  return (
    <span className="dataset-status">
      <span className={`status-badge status-${status}`} title={message ?? undefined}>
        {LABELS[status] ?? status}
      </span>
      {showMessage && status === 'error' && message && (
        <span className="status-message" title={message}>
          {message}
        </span>
      )}
    </span>
  );
}
