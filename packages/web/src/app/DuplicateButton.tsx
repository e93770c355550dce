import { useNavigate } from 'react-router-dom';
import { can, type RecordCollection, type StudioRecord } from '@studio/schema';
import { client } from './api';
import { ErrorMessage, useAction } from './ui';

/**
 * "Duplicate" in a read-only editor (a sample, or a map shared for viewing): a copy of the saved record the user
 * owns, opened in the same editor to change. Samples answer 403 "duplicate this … to change a copy of your own",
 * so the read-only map, dashboard and workbook offer it where the user reads that. Shown only when the user's
 * access allows copying (the server checks again: a viewer seat may not create, and the error says so).
 */
export function DuplicateButton({ collection, record, href }: { collection: RecordCollection; record: StudioRecord; href: (id: string) => string }) {
  const navigate = useNavigate();
  const copying = useAction();
  if (!can(record.access, 'copy')) return null;
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={copying.pending}
        title="A copy of your own to change"
        onClick={() => void copying.run(async () => navigate(href((await client.records(collection).clone(record.id)).id)))}
      >
        {copying.pending ? 'Duplicating…' : 'Duplicate'}
      </button>
      <ErrorMessage message={copying.error} />
    </>
  );
}
