import { useEffect, useState } from 'react';
import { AddToProjectButton } from '../projects/AddRecordToProjectDialog';
import { Link, Navigate, useNavigate, useParams } from 'react-router-dom';
import { can, DATASET_DOWNLOAD_EXTENSIONS, downloadFileBase, type Dataset, type DatasetDownloadFormat } from '@studio/schema';
import { client } from '../app/api';
import { saveBlob } from '../app/save-blob';
import { useLoad, useReloadWhile } from '../app/useLoad';
import { ConfirmDialog, ErrorMessage, formatDate, useAction } from '../app/ui';
import { StatusBadge } from './StatusBadge';
import { SchemaTable } from './SchemaTable';
import { PreviewTable } from './PreviewTable';
import { UploadDialog } from './UploadDialog';
import { HexTileDialog } from './HexTileDialog';
import { RebuildTilesDialog, canRebuildTiles } from './RebuildTilesDialog';
import { BuildTilesDialog, canBuildTiles } from './BuildTilesDialog';
import { DatasetTiles } from './DatasetTiles';
import { DatasetSnapshots } from './DatasetSnapshots';
import { JobProgress } from '../jobs/JobProgress';
import { RefreshPanel } from './RefreshPanel';
import { formatBytes, formatCount } from './format';
import { geometryRepairLines } from './geometryRepairs';
import './datasets.css';

/** How often a dataset being ingested is asked for again. */
const POLL_MS = 1500;

const PENDING_WORDS: Partial<Record<Dataset['type'], string>> = {
  'hex-tile': 'Building the hex tiles… this page updates when they are ready.',
  'vector-tile': 'Cutting the vector tiles… this page updates when they are ready.',
};

/** Download formats, by what the user knows them as; the geographic ones need a location. */
const DOWNLOADS: { format: DatasetDownloadFormat; label: string; needsLocation: boolean }[] = [
  { format: 'csv', label: 'CSV', needsLocation: false },
  { format: 'geojson', label: 'GeoJSON', needsLocation: true },
  { format: 'parquet', label: 'GeoParquet', needsLocation: false },
  { format: 'flatgeobuf', label: 'FlatGeobuf', needsLocation: true },
  { format: 'gpkg', label: 'GeoPackage', needsLocation: true },
  { format: 'kml', label: 'KML', needsLocation: true },
  { format: 'shapefile', label: 'Shapefile (zip)', needsLocation: true },
  { format: 'arrow', label: 'Arrow', needsLocation: false },
];

const hasLocation = (d: Dataset) => Boolean(d.metadata.detected.geometry || (d.metadata.detected.latitude && d.metadata.detected.longitude));

/**
 * Fetches the data in `format` with the session's token and hands it to the browser as a download. A person opens
 * the CSV in a spreadsheet: it comes in the safe form, where text cannot run as a formula.
 */
async function download(d: Dataset, format: DatasetDownloadFormat): Promise<void> {
  saveBlob(await client.datasets.data(d.id, format, 'safe'), `${downloadFileBase(d.name)}.${DATASET_DOWNLOAD_EXTENSIONS[format]}`);
}


/** The download button and the format it downloads in (GeoJSON and FlatGeobuf only for data with a location). */
function DownloadButton({ d, action }: { d: Dataset; action: ReturnType<typeof useAction> }) {
  const offered = DOWNLOADS.filter((x) => !x.needsLocation || hasLocation(d));
  const [format, setFormat] = useState<DatasetDownloadFormat>('csv');
  const label = offered.find((x) => x.format === format)?.label ?? 'CSV';
  return (
    <span className="download-group">
      <select aria-label="Download format" value={format} onChange={(e) => setFormat(e.target.value as DatasetDownloadFormat)} disabled={action.pending}>
        {offered.map((x) => (
          <option key={x.format} value={x.format}>
            {x.label}
          </option>
        ))}
      </select>
      <button type="button" className="button" disabled={d.status !== 'ready' || action.pending} onClick={() => void action.run(() => download(d, format))}>
        {action.pending ? 'Preparing…' : `Download ${label}`}
      </button>
    </span>
  );
}

function Facts({ d }: { d: Dataset }) {
  const facts: [string, string][] = [
    ['Owner', d.owner.name ? `${d.owner.name} (${d.owner.email})` : d.owner.email],
    ['Rows', formatCount(d.metadata.rowCount)],
    ...(d.metadata.rejectedRows ? [['Rows skipped', `${formatCount(d.metadata.rejectedRows)} malformed (uploaded with “skip bad rows”)`] as [string, string]] : []),
    ...(geometryRepairLines(d.metadata.geometryRepairs).length ? [['Geometry', geometryRepairLines(d.metadata.geometryRepairs).join('; ')] as [string, string]] : []),
    ['Stored size', formatBytes(d.metadata.byteSize)],
    ['Source', [d.metadata.source, d.metadata.contentType].filter(Boolean).join(' · ') || '—'],
    ['Type', d.type],
    ['Updated', formatDate(d.updatedAt)],
  ];
  return (
    <dl className="facts">
      {facts.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function MapsUsing({ id }: { id: string }) {
  const maps = useLoad(() => client.datasets.maps(id), [id]);
  return (
    <section className="card dataset-section" aria-labelledby="maps-title">
      <h2 id="maps-title">Maps using this dataset</h2>
      <ErrorMessage message={maps.error} onRetry={maps.reload} />
      {maps.data && maps.data.items.length === 0 && <p className="muted">No map uses this dataset yet.</p>}
      {maps.data && maps.data.items.length > 0 && (
        <ul className="maps-list" aria-label="Maps using this dataset">
          {maps.data.items.map((m) => (
            <li key={m.id}>
              <Link to={`/${m.id}`}>{m.name}</Link> <span className="muted small">updated {formatDate(m.updatedAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** One dataset (catalog §2): facts, status, schema with statistics, a row preview, and its maps. */
export function DatasetPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const loaded = useLoad(() => client.datasets.get(id), [id]);
  const [dialog, setDialog] = useState<'replace' | 'delete' | 'hex-tiles' | 'rebuild' | 'tiles' | null>(null);
  // A dataset's own tiles are cut while it stays ready: the job just started, whose progress the page shows, and
  // the tiles it had then.
  const [tilesJob, setTilesJob] = useState<{ id: string; had: string | undefined } | null>(null);
  // A job on the dataset runs now, wherever it was started (another page, another editor's map): no second cut.
  const [jobRunning, setJobRunning] = useState(false);
  const downloading = useAction();
  const d = loaded.data?.id === id ? loaded.data : undefined;

  useEffect(() => {
    document.title = `${d?.name ?? 'Dataset'} · Studio`;
  }, [d?.name]);

  // Ingestion runs on the server: ask again until the dataset leaves "pending".
  useReloadWhile(d?.status === 'pending', loaded, POLL_MS);
  // Low zooms first: the job serves them before it ends. Asked again until they (or the whole tiles) are there.
  useReloadWhile(tilesJob !== null && d?.metadata.vectorTile?.archiveKey === tilesJob.had, loaded, POLL_MS);

  if (!d) {
    return (
      <section className="page">
        <Link to="/workspace/datasets" className="back-link">
          ← Datasets
        </Link>
        <ErrorMessage message={loaded.error} onRetry={loaded.reload} />
        {!loaded.error && (
          <p className="muted loading" role="status">
            Loading dataset…
          </p>
        )}
      </section>
    );
  }

  const columns = d.metadata.columns;
  return (
    <section className="page dataset-page" aria-labelledby="page-title">
      <Link to="/workspace/datasets" className="back-link">
        ← Datasets
      </Link>
      <header className="page-header">
        <div className="dataset-title">
          <h1 id="page-title">{d.name}</h1>
          <StatusBadge status={d.status} message={d.metadata.errorMessage} />
        </div>
        <div className="dataset-actions">
          <DownloadButton d={d} action={downloading} />
          <Link className="button" to={`/new?datasetUuid=${d.id}`}>
            Create map
          </Link>
          <Link className="button" to={`/dashboard/new?datasetId=${d.id}`}>
            New dashboard
          </Link>
          <Link className="button" to={`/workbook/new?datasetId=${d.id}`}>
            New workbook
          </Link>
          <Link className="button" to={`/workspace/queries/new?dataset=${d.id}`}>
            New query
          </Link>
          {d.status === 'ready' && d.type !== 'hex-tile' && (d.metadata.detected.latitude || d.metadata.detected.h3) && (
            <button type="button" className="button" onClick={() => setDialog('hex-tiles')}>
              Build hex tiles
            </button>
          )}
          {canBuildTiles(d) && (
            // One cut at a time from this page: a second would cut the same snapshot again, and the first's end
            // would reload the page while the second still runs.
            <button type="button" className="button" onClick={() => setDialog('tiles')} disabled={tilesJob !== null || jobRunning} title={tilesJob || jobRunning ? 'Tiles are being built' : undefined}>
              Build tiles
            </button>
          )}
          {canRebuildTiles(d, can(d.access, 'write')) && (
            <button type="button" className="button" onClick={() => setDialog('rebuild')}>
              Rebuild tiles
            </button>
          )}
          {can(d.access, 'write') && d.type === 'managed' && (
            <button type="button" className="button" disabled={d.status === 'pending'} onClick={() => setDialog('replace')}>
              Replace data
            </button>
          )}
          <AddToProjectButton record={d} kind="dataset" />
          {can(d.access, 'delete') && (
            <button type="button" className="button button-danger" onClick={() => setDialog('delete')}>
              Delete
            </button>
          )}
        </div>
      </header>
      {d.description ? <p className="lead">{d.description}</p> : <p className="muted">No description.</p>}
      <ErrorMessage message={downloading.error} />
      <Facts d={d} />
      {d.metadata.rejectedRows ? (
        <p className="muted small">
          <button type="button" className="link-button" disabled={downloading.pending} onClick={() => void downloading.run(async () => saveBlob(await client.datasets.rejectedLines(d.id), `${downloadFileBase(d.name)}-rejected-lines.csv`))}>
            Download the {formatCount(d.metadata.rejectedRows)} rejected {d.metadata.rejectedRows === 1 ? 'line' : 'lines'}
          </button>{' '}
          with their line numbers and reasons.
        </p>
      ) : null}

      {d.status === 'error' && (
        <div className="error dataset-error" role="alert">
          <div>
            <strong>
              {d.type === 'hex-tile' || d.type === 'vector-tile' ? 'The tiles could not be built' : 'Ingestion failed'}: {d.metadata.errorMessage ?? 'unknown error'}
            </strong>
            {d.metadata.errorDetails && (
              <details className="small">
                <summary>What the studio saw</summary>
                <pre>{d.metadata.errorDetails}</pre>
              </details>
            )}
          </div>
        </div>
      )}
      {/* Tiles are built by a job, and so is an upload sent in the background: its progress shows while it runs. */}
      {/* A table dataset with a location may be having its own tiles cut (ready all along): keyed by the job just
          started, so a new build is looked up at once, and one left running is seen when the page opens. */}
      {(d.status === 'pending' || canBuildTiles(d)) && <JobProgress key={tilesJob?.id ?? ''} resourceId={d.id} startedJobId={tilesJob?.id} onActive={setJobRunning} onEnded={() => {
        setTilesJob(null);
        loaded.reload();
      }} />}
      {(d.status === 'pending' || d.status === 'new') && (
        <p className="notice-pending" role="status">
          {d.status === 'pending' ? PENDING_WORDS[d.type] ?? 'Ingesting… this page updates when the data is ready.' : 'No data yet: upload a file to fill this dataset.'}
        </p>
      )}

      {d.type === 'sql' && <RefreshPanel d={d} onChanged={loaded.reload} />}

      {columns.length > 0 && (
        <section className="card dataset-section" aria-labelledby="schema-title">
          <h2 id="schema-title">Schema</h2>
          <SchemaTable columns={columns} />
        </section>
      )}

      {d.status === 'ready' && columns.length > 0 && (
        <section className="card dataset-section" aria-labelledby="preview-title">
          <h2 id="preview-title">Preview</h2>
          <PreviewTable key={d.metadata.ingestedAt ?? d.id} datasetId={d.id} columns={columns.map((c) => c.name)} total={d.metadata.rowCount ?? 0} />
        </section>
      )}

      {d.type === 'managed' && d.status === 'ready' && d.metadata.vectorTile && <DatasetTiles d={d} info={d.metadata.vectorTile} />}

      {(d.type === 'managed' || d.type === 'sql') && <DatasetSnapshots d={d} />}

      <MapsUsing id={d.id} />

      {dialog === 'replace' && (
        <UploadDialog
          replace={{ id: d.id, name: d.name }}
          onClose={() => setDialog(null)}
          onFailed={loaded.reload}
          onUploaded={() => {
            setDialog(null);
            loaded.reload();
          }}
        />
      )}
      {dialog === 'hex-tiles' && <HexTileDialog d={d} onClose={() => setDialog(null)} onStarted={(tiles) => {
        // The page stays mounted for the new dataset (same route): the dialog must not open over it.
        setDialog(null);
        navigate(`/workspace/datasets/${tiles}`);
      }} />}
      {dialog === 'tiles' && (
        <BuildTilesDialog
          d={d}
          onClose={() => setDialog(null)}
          onStarted={(job) => {
            setDialog(null);
            setTilesJob({ id: job.id, had: d.metadata.vectorTile?.archiveKey });
          }}
        />
      )}
      {dialog === 'rebuild' && (
        <RebuildTilesDialog
          d={d}
          onClose={() => setDialog(null)}
          onStarted={() => {
            setDialog(null);
            loaded.reload();
          }}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title="Delete dataset"
          message={`Delete “${d.name}” and its stored data? Maps using it lose this layer. Datasets that are deleted cannot be restored.`}
          confirmLabel="Delete"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await client.datasets.delete(d.id);
            navigate('/workspace/datasets', { replace: true });
          }}
        />
      )}
    </section>
  );
}

/** {datasets base}/details/{id} (analytics-and-admin §2) is the dataset page under another path. */
export function DatasetDetailsRedirect() {
  const { id = '' } = useParams();
  return <Navigate to={`/workspace/datasets/${id}`} replace />;
}
