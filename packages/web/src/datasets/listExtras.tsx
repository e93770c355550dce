import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Dataset, StudioRecord } from '@studio/schema';
import type { Column } from '../app/ui';
import { StatusBadge } from './StatusBadge';
import { UploadDialog } from './UploadDialog';
import { formatCount } from './format';

/** Dataset lists answer datasets (record fields plus status and metadata). */
const asDataset = (r: StudioRecord) => r as unknown as Partial<Pick<Dataset, 'status' | 'metadata'>>;

export const datasetHref = (id: string) => `/workspace/datasets/${id}`;

/** The dataset list's own columns, after the name: status (with the error message) and rows. */
export const DATASET_COLUMNS: Column<StudioRecord>[] = [
  {
    header: 'Status',
    cell: (r) => {
      const d = asDataset(r);
      return d.status ? <StatusBadge status={d.status} message={d.metadata?.errorMessage} showMessage /> : null;
    },
  },
  { header: 'Rows', cell: (r) => formatCount(asDataset(r).metadata?.rowCount), className: 'numeric nowrap' },
];

/** "Upload dataset" beside the title: uploads, then opens the new dataset. */
export function UploadDatasetButton({ onChanged }: { onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  return (
    <>
      <button type="button" className="button button-primary" onClick={() => setOpen(true)}>
        Upload dataset
      </button>
      {open && (
        <UploadDialog
          onClose={() => setOpen(false)}
          onFailed={onChanged}
          onUploaded={(d) => {
            setOpen(false);
            navigate(datasetHref(d.id));
          }}
        />
      )}
    </>
  );
}
