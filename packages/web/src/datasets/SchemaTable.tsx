import type { DatasetColumn } from '@studio/schema';
import { DataTable } from '../app/ui';
import { formatCount, formatStat } from './format';

/** Short badge text of each detected role; the full role is read out and shown as a tooltip. */
export const ROLE_LABELS: Record<NonNullable<DatasetColumn['role']>, string> = {
  latitude: 'lat',
  longitude: 'lng',
  geometry: 'geometry',
  h3: 'h3',
  timestamp: 'timestamp',
};

export function RoleBadge({ role }: { role: NonNullable<DatasetColumn['role']> }) {
  return (
    <span className={`role-badge role-${role}`} title={`Detected ${role} column`}>
      {ROLE_LABELS[role]}
      {ROLE_LABELS[role] !== role && <span className="visually-hidden"> ({role})</span>}
    </span>
  );
}

/** The columns of a dataset: spec type (DuckDB type beside it), detected role and statistics. */
export function SchemaTable({ columns }: { columns: DatasetColumn[] }) {
  return (
    <DataTable
      label="Columns"
      rows={columns}
      rowKey={(c) => c.name}
      columns={[
        { header: 'Column', cell: (c) => <code className="column-name">{c.name}</code> },
        {
          header: 'Type',
          cell: (c) => (
            <span className="column-type">
              {c.type}
              {c.duckdbType !== c.type && <span className="muted small"> {c.duckdbType}</span>}
            </span>
          ),
          className: 'nowrap',
        },
        { header: 'Role', cell: (c) => (c.role ? <RoleBadge role={c.role} /> : null) },
        { header: 'Nulls', cell: (c) => formatCount(c.stats.nullCount), className: 'numeric' },
        { header: 'Min', cell: (c) => formatStat(c.stats.min), className: 'numeric stat' },
        { header: 'Max', cell: (c) => formatStat(c.stats.max), className: 'numeric stat' },
        { header: 'Mean', cell: (c) => formatStat(c.stats.mean), className: 'numeric stat' },
        { header: 'Distinct', cell: (c) => formatCount(c.stats.distinctCount), className: 'numeric' },
      ]}
    />
  );
}
