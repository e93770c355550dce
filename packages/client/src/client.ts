import type { z } from 'zod';
import type { Folder, RecordCollection, Session, ShareBody, StudioRecord, UploadPolicy } from '@studio/schema';
import { PUBLICATION_GRANT_HEADER, datasetSnapshotCalls, mapAssetCalls, userCalls, authCalls, searchCalls, clientErrorCalls, legalCalls, passwordResetCalls, mapPublishingCalls, type BodyOf, type DatasetUploadQuery, type QueryOf, type SpreadsheetForm, type UploadReadOptions } from '@studio/schema';
import type { ItemsOf, MapAssetItem, RecordListQuery, MapAssetCreateBody, MapAssetType, MapAssetUpdateBody, ImageType } from '@studio/schema';
import type { DatasetRefreshUpdate, DatasetTilesBuild, HexTileCreate, Job, TileLinks, VectorTileCreate } from '@studio/schema';
import type { Dataset, DatasetDownloadFormat, TempViewWire, Parameter, Publication, PublicationInfo, PublicationKind, Widget, WidgetBatchBody, WidgetBatchLine, WidgetResult, WidgetRunBody, UploadOptions } from '@studio/schema';
import type { LegalAgreementId } from '@studio/schema';
import { HttpClient, NOT_SIGNED_IN, type RequestOptions } from './http';
import { checkStatus } from './errors';
import { tagsClient } from './tags';
import { jobsClient } from './jobs';
import { apiKeysClient } from './identity';
import { analyticsClient } from './analytics';
import { mapsClient } from './map-publishing';
import { permissionsClient } from './permissions';
import { projectFoldersClient } from './projects';
import { adminClient } from './admin';
import { bookmarksClient, connectionsClient, templatesClient } from './connections';
import { readLines } from './ndjson';

/**
 * How an upload's file is sent besides its query: its media type and gzip (headers), ingested by a background
 * job (`Prefer: respond-async`: the call answers once the file is stored, with the dataset pending and its job;
 * `uploadInBackground`), or one new dataset a layer (POST /v1/datasets/data/layers: answers `{items: [{layer, item}]}`).
 */
export interface UploadSendOptions {
  contentType: string;
  contentEncoding?: string;
  background?: boolean;
  eachLayer?: boolean;
}
/**
 * An upload's query as the upload routes read it (DatasetUploadQuery): the new dataset's name and description,
 * "skip bad rows", the layer of a GeoPackage (a KML folder), and, under `read`, what the user sets instead of
 * what is detected when a CSV or TSV is read (UploadReadOptions; columnTypes sent as JSON).
 */
export type UploadQueryOptions = Partial<Pick<z.output<typeof DatasetUploadQuery>, 'name' | 'description' | 'skipBadRows' | 'layer'>> & { read?: Partial<Omit<z.output<typeof UploadReadOptions>, 'layer'>> };
/** A file upload: how it is sent and its query. */
export type UploadFileOptions = UploadSendOptions & UploadQueryOptions;

export { NOT_SIGNED_IN, type ClientOptions, type RequestOptions } from './http';

/** A list answer (`itemsOf` in @studio/schema). */
export type Page<T> = ItemsOf<T>;
export interface CollectionOptions {
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  samples?: string;
}
/** The query of a record list (its filters and page); `isAdmin` sent as 'true' when set. */
export type ListParams = Partial<Omit<z.output<typeof RecordListQuery>, 'isAdmin'>> & { isAdmin?: boolean };

/** The typed client of the studio API, shared by the web app, scripts and tests. */
/** Where a publication is read: an insight's own publication, or a report. */
const publicationPath = (kind: PublicationKind, id: string) => (kind === 'insight' ? `/v1/insights/${id}/published-insight` : `/v1/reports/published/${id}`);
const grantHeader = (grant: string | undefined): Record<string, string> => (grant ? { [PUBLICATION_GRANT_HEADER]: grant } : {});

/** A temporary view (catalog §9): a result kept 60 s under a `temp_` name, for its maker only. */
export type TempView = TempViewWire;

/** A thumbnail's media type, as the file policy call takes it. */
type AssetThumbnailType = Extract<BodyOf<typeof mapAssetCalls.filePolicy>, { thumbnailContentType: unknown }>['thumbnailContentType'];

/** A map style or color palette as the catalog answers it: the record and its asset fields. */
export type MapAsset = MapAssetItem;

export class StudioClient extends HttpClient {
  // --- identity -----------------------------------------------------------------------------
  async signIn(email: string, password: string): Promise<Session> {
    const { item } = await this.call(authCalls.signIn, { body: { email, password } });
    this.token = item.accessToken;
    return item;
  }
  /** A new password, given the current one (403 when it is wrong); the user's other sessions end, this one stays. */
  changePassword = (currentPassword: string, newPassword: string) => this.call(authCalls.changePassword, { body: { currentPassword, newPassword } });

  /** Asks for a reset link by email (the same answer whether or not the address has an account); emailed: whether this studio mails links. */
  requestPasswordReset = (email: string) => this.call(passwordResetCalls.request, { body: { email } }).then((r) => r.item);
  /** Sets a new password with a reset link's token; every session of the account ends. */
  resetPassword = (token: string, newPassword: string) => this.call(passwordResetCalls.reset, { body: { token, newPassword } });

  async signOut(): Promise<void> {
    await this.call(authCalls.signOut, {});
    this.token = NOT_SIGNED_IN;
  }
  async refresh(refreshToken: string): Promise<Session> {
    const { item } = await this.call(authCalls.refresh, { body: { refreshToken } });
    this.token = item.accessToken;
    return item;
  }
  /** Accepts an organization invitation: creates the account and signs it in. */
  async acceptInvitation(token: string, name: string, password: string): Promise<Session> {
    const { item } = await this.call(authCalls.acceptInvitation, { body: { token, name, password } });
    this.token = item.accessToken;
    return item;
  }
  /** The caller's quota (how many records they may own; 0: no limit set) and how many of each kind they own. */
  myQuota = () => this.call(userCalls.myQuota, {}).then((r) => r.item);
  me = (includeFlags = false) => this.call(userCalls.me, { query: { includeFlags } }).then((r) => r.item);

  apiKeys = apiKeysClient(this);

  // --- records ------------------------------------------------------------------------------
  /**
   * The list/get/save/delete/share machinery of any catalog collection under `base` (e.g.
   * `/v1/data-connections`). `opts.query` goes with every list and get (map assets: `{type}`),
   * `opts.body` with every save (map assets: `{assetType}`); `opts.samples` is the samples path.
   */
  collection(base: string, opts: CollectionOptions = {}) {
    const fixed = opts.query ?? {};
    const listQuery = (p: ListParams = {}) => ({ ...fixed, ...p, isAdmin: p.isAdmin ? 'true' : undefined });
    const item = (r: { item: StudioRecord }) => r.item;
    return {
      list: (p?: ListParams) => this.request<Page<StudioRecord>>('GET', base, { query: listQuery(p) }),
      forOrganization: (p?: ListParams) => this.request<Page<StudioRecord>>('GET', `${base}/for-organization`, { query: listQuery(p) }),
      sharedWithUser: (p?: ListParams) => this.request<Page<StudioRecord>>('GET', `${base}/shared-with-user`, { query: listQuery(p) }),
      samples: (p?: ListParams) => this.request<Page<StudioRecord>>('GET', `${base}${opts.samples ?? '/samples'}`, { query: listQuery(p) }),
      /** acquireLock takes the edit lock when free; takeOver also from the caller's other tab or device. */
      get: (id: string, q: { acquireLock?: boolean; takeOver?: boolean; isAdmin?: boolean } = {}) =>
        this.request<{ item: StudioRecord }>('GET', `${base}/${id}`, { query: { ...fixed, acquireLock: q.acquireLock || undefined, takeOver: q.takeOver || undefined, isAdmin: q.isAdmin || undefined } }).then(item),
      /** Create on first save (no id), update after (analytics-and-admin §4). */
      save: (record: { id?: string; name?: string; description?: string; latestState?: unknown; datasets?: string[] }, q: { acquireLock?: boolean } = {}) => {
        const query = { acquireLock: q.acquireLock || undefined };
        return record.id
          ? this.request<{ item: StudioRecord }>('PUT', `${base}/${record.id}`, { body: { ...opts.body, ...record, id: undefined }, query }).then(item)
          : this.request<{ item: StudioRecord }>('POST', base, { body: { ...opts.body, ...record }, query }).then(item);
      },
      clone: (id: string) => this.request<{ item: StudioRecord }>('POST', `${base}/${id}/clone`).then(item),
      delete: (id: string) => this.request<void>('DELETE', `${base}/${id}`),
      share: (id: string, body: Partial<ShareBody>) => this.request<{ item: StudioRecord }>('POST', `${base}/${id}/share`, { body }).then(item),
    };
  }

  /** The record machinery of one collection: maps, insights, dashboards, workbooks. */
  records(collection: RecordCollection | 'datasets') {
    const base = `/v1/${collection}`;
    return {
      // Datasets name their samples in the singular (catalog §7: GET /v1/datasets/sample).
      ...this.collection(base, collection === 'datasets' ? { samples: '/sample' } : {}),
      thumbnailPolicy: (id: string, contentType: 'image/png' | 'image/jpeg' | 'image/webp') =>
        this.request<{ item: UploadPolicy }>('POST', `${base}/${id}/thumbnail`, { body: { contentType } }).then((r) => r.item),
      attachDataset: (id: string, datasetId: string) => this.request<{ item: StudioRecord }>('POST', `${base}/${id}/datasets/${datasetId}`).then((r) => r.item),
      detachDataset: (id: string, datasetId: string) => this.request<{ item: StudioRecord }>('DELETE', `${base}/${id}/datasets/${datasetId}`).then((r) => r.item),
    };
  }

  /** Uploads a file under a signed policy; failures reject with the status and response text. */
  async uploadWithPolicy(policy: UploadPolicy, body: BodyInit): Promise<unknown> {
    return this.request('POST', policy.url, { query: policy.fields, rawBody: body, contentType: policy.contentType });
  }

  permissions = permissionsClient(this);


  /** Background jobs (hex tiles): the caller's, one job's progress, cancel. */
  jobs = jobsClient(this);

  tags = tagsClient(this);

  admin = {
    ...adminClient(this),
    /** A reset link for a user, shown once: it sets a new password once within an hour. */
    passwordResetLink: (userId: string) => this.call(passwordResetCalls.adminLink, { params: { id: userId } }).then((r) => r.item),
    /** ADM-005: every published map with its views, owner and visibility; most viewed first unless sorted by date. */
    publishedMaps: (q: QueryOf<typeof mapPublishingCalls.adminPublished> = {}) => this.call(mapPublishingCalls.adminPublished, { query: q }).then((r) => r.items),
    /** CAT-001/002/003 in admin mode: hands a map, dashboard or dataset to another user. */
    changeOwner: (collection: 'maps' | 'insights' | 'datasets', id: string, ownerId: string) =>
      this.request<unknown>('PUT', `/v1/${collection}/${id}`, { query: { isAdmin: true }, body: { ownerId } }),
    /** The web app's error reports and feedback kept without a Sentry DSN, newest first. */
    clientErrors: () => this.call(clientErrorCalls.list, {}).then((r) => r.items),
  };

  /** Legal agreements: those awaiting the caller's consent, consent itself, and (administrators) new versions. */
  legal = {
    pending: () => this.call(legalCalls.pending, {}).then((r) => r.items),
    consent: (id: LegalAgreementId) => this.call(legalCalls.consent, { params: { id } }).then((r) => r.item),
    publish: (id: LegalAgreementId, body: BodyOf<typeof legalCalls.publish>) => this.call(legalCalls.publish, { params: { id }, body }).then((r) => r.item),
  };

  /** GTW-002/003: the web app's error reports (a Sentry envelope) and a user's words about one. */
  errorReports = {
    send: (envelope: Uint8Array) => this.call(clientErrorCalls.tunnel, {}, { rawBody: envelope as BodyInit, contentType: 'application/x-sentry-envelope' }),
    feedback: (body: BodyOf<typeof clientErrorCalls.feedback>) => this.call(clientErrorCalls.feedback, { body }),
  };

  // --- dataset data ---------------------------------------------------------------------------
  /** One dataset, its data (preview pages, download, upload) and the maps that use it. */
  datasets = {
    get: (id: string) => this.request<{ item: Dataset }>('GET', `/v1/datasets/${id}`).then((r) => r.item),
    /** A hex-tile dataset of `body.source`: answered at once, pending, with the background job that builds it. */
    buildHexTiles: (body: z.input<typeof HexTileCreate>) => this.request<{ item: Dataset; job: Job }>('POST', '/v1/datasets/hextile', { body }),
    /** A vector-tile dataset of a dataset (`body.datasetId`): answered at once, pending, with the background job that tiles it. */
    buildVectorTiles: (body: z.input<typeof VectorTileCreate>) => this.request<{ item: Dataset; job: Job }>('POST', '/v1/datasets/vectortile', { body }),
    /** A table dataset's own vector tiles (#50): answered at once with the background job that cuts them; the dataset stays ready. */
    buildTiles: (id: string, body: z.input<typeof DatasetTilesBuild>) => this.request<{ job: Job }>('POST', `/v1/datasets/${id}/tiles`, { body }).then((r) => r.job),
    /** Signed links to a dataset's tiles for a map renderer (plain GETs); 409 for a table dataset whose data was replaced since its tiles were cut. */
    tileLinks: (id: string) => this.request<{ item: TileLinks }>('GET', `/v1/datasets/${id}/tiles/link`).then((r) => r.item),
    /** Runs a live dataset's query again as a background job; answered at once (still ready on its current data) with the job. */
    refresh: (id: string) => this.request<{ item: Dataset; job: Job }>('POST', `/v1/datasets/${id}/refresh`),
    /** When a live dataset refreshes by itself: `hourly`, `daily`, a cron expression (UTC) or null; and its max age on open. */
    setRefreshSchedule: (id: string, body: DatasetRefreshUpdate) => this.request<{ item: Dataset }>('PUT', `/v1/datasets/${id}/refresh-schedule`, { body }).then((r) => r.item),
    /** Rows `offset` to `offset + limit` (at most 10,000) of a ready dataset, and the row count. */
    preview: (id: string, offset: number, limit: number, signal?: AbortSignal) =>
      this.request<{ items: Record<string, unknown>[]; total: number }>('GET', `/v1/datasets/${id}/preview`, { query: { offset, limit }, signal }),
    /** The dataset's kept snapshots (#51), newest first: data replaced and kept for the retention, and data versions pin. */
    snapshots: (id: string) => this.call(datasetSnapshotCalls.list, { params: { id } }).then((r) => r.items),
    /** Maps that use the dataset and that the caller can read. */
    maps: (id: string) => this.request<Page<StudioRecord>>('GET', `/v1/datasets/${id}/maps`),
    /** The lines a "skip bad rows" upload left out, as CSV (line, column, error, reason, text). */
    rejectedLines: (id: string) => this.raw('GET', `/v1/datasets/${id}/rejected-lines`).then((r) => r.blob()),
    /**
     * The stored data for downloads: CSV, GeoJSON, Parquet (GeoParquet), an Arrow IPC stream or FlatGeobuf. `spreadsheet`
     * 'safe': a CSV a person opens in a spreadsheet (formula-like text neutralised); exact values otherwise.
     */
    data: (id: string, format: DatasetDownloadFormat = 'csv', spreadsheet?: SpreadsheetForm) =>
      this.raw('GET', `/v1/datasets/${id}/data`, { query: format === 'csv' ? { spreadsheet } : { format } }).then((r) => r.blob()),
    /**
     * The request that uploads a file as a new dataset (no `datasetId`) or replaces a dataset's data:
     * method, URL and headers, so a caller that needs upload progress (XMLHttpRequest) sends the same
     * request `upload` does.
     */
    uploadRequest: (file: UploadFileOptions, datasetId?: string) => {
      const read = {
        delimiter: file.read?.delimiter,
        header: file.read?.header,
        encoding: file.read?.encoding,
        layer: file.layer,
        columnTypes: file.read?.columnTypes && Object.keys(file.read.columnTypes).length ? JSON.stringify(file.read.columnTypes) : undefined,
      };
      return {
        method: datasetId ? 'PUT' : 'POST',
        url: datasetId
          ? this.url(`/v1/datasets/${datasetId}/data`, { skipBadRows: file.skipBadRows || undefined, ...read })
          : this.url(file.eachLayer ? '/v1/datasets/data/layers' : '/v1/datasets/data', { name: file.name, description: file.description, skipBadRows: file.skipBadRows || undefined, ...read }),
        headers: {
          authorization: `Bearer ${this.token}`,
          'content-type': file.contentType,
          ...(file.contentEncoding ? { 'content-encoding': file.contentEncoding } : {}),
          ...(file.background ? { prefer: 'respond-async' } : {}),
        } as Record<string, string>,
      };
    },
    /** Uploads (or, with `datasetId`, replaces) data; answers the ingested dataset or raises the ingestion error. */
    upload: async (body: BodyInit, file: UploadFileOptions, datasetId?: string) => (await this.sendUpload(body, file, datasetId)).item,
    /** Stores the file and answers at once: the dataset pending and the job that ingests it (GET /v1/jobs/{id} follows it). */
    uploadInBackground: (body: BodyInit, file: Omit<UploadFileOptions, 'background'>, datasetId?: string) =>
      this.sendUpload(body, { ...file, background: true }, datasetId) as Promise<{ item: Dataset; job: Job }>,
    delete: (id: string) => this.request<void>('DELETE', `/v1/datasets/${id}`),
  };

  // --- query pipelines (catalog §3, §9) ------------------------------------------------------------
  /** Pipelines over datasets and temporary views, and SQL over them: what a workbook's cells run. */
  pipelines = {
    /** The pipeline's result as an Arrow IPC stream (column types included); `x-studio-engine` names a warehouse that ran it. */
    arrow: async (pipeline: unknown, signal?: AbortSignal) => {
      const r = await this.raw('POST', '/v1/query', { query: { format: 'arrow' }, body: pipeline, signal });
      return { bytes: new Uint8Array(await r.arrayBuffer()), engine: r.headers.get('x-studio-engine') ?? 'duckdb' };
    },
    /** A temporary view of the caller as a file: CSV, GeoJSON, Parquet (GeoParquet), Arrow IPC or FlatGeobuf. */
    viewData: (name: string, format: DatasetDownloadFormat = 'csv', spreadsheet?: SpreadsheetForm) =>
      this.raw('GET', `/v1/query/views/${name}/data`, { query: { format, spreadsheet: format === 'csv' ? spreadsheet : undefined } }).then((r) => r.blob()),
    /** The pipeline's result as a CSV file. */
    csv: (pipeline: unknown, signal?: AbortSignal) => this.raw('POST', '/v1/query', { query: { format: 'csv' }, body: pipeline, signal }).then((r) => r.blob()),
    /** The pipeline's rows as JSON objects. */
    rows: (pipeline: unknown, signal?: AbortSignal) => this.request<{ items: Record<string, unknown>[] }>('POST', '/v1/query', { query: { format: 'json' }, body: pipeline, signal }).then((r) => r.items),
    /** Keeps the pipeline's result for 60 s as a temporary view that later pipelines name as a dataset uuid (with `preview`, its first rows). */
    /** `replaces`: a view of the caller's that this result supersedes (a cell run again), dropped once it is written. */
    materialize: (pipeline: unknown, opts: { preview?: number; signal?: AbortSignal; replaces?: string } = {}) =>
      this.request<{ item: TempView }>('POST', '/v1/query', { query: { materialize: true, preview: opts.preview || undefined, replaces: opts.replaces }, body: pipeline, signal: opts.signal }).then((r) => r.item),
    /**
     * Runs one SELECT in the SQL sandbox, naming views by `tables` (name → view), and keeps its result as a view in turn;
     * with `pipelines` (name → pipeline) that all run on one warehouse, it runs there in its dialect instead.
     */
    materializeSql: (query: string, tables: Record<string, string>, opts: { preview?: number; signal?: AbortSignal; pipelines?: Record<string, unknown>; replaces?: string } = {}) =>
      this.request<{ item: TempView }>('POST', '/v1/query/sql', { query: { preview: opts.preview || undefined, replaces: opts.replaces }, body: { query, tables, pipelines: opts.pipelines }, signal: opts.signal }).then((r) => r.item),
    /** A new dataset: the Parquet snapshot of a SELECT over datasets and the caller's temporary views. */
    saveAsDataset: (query: string, name: string) => this.request<{ item: Dataset }>('POST', '/v1/datasets/query', { body: { query, name } }).then((r) => r.item),
  };

  private async sendUpload(body: BodyInit, file: UploadFileOptions, datasetId?: string): Promise<{ item: Dataset; job?: Job }> {
    const r = this.datasets.uploadRequest(file, datasetId);
    const response = await this.fetchImpl(r.url, { method: r.method, headers: r.headers, body, duplex: 'half' } as RequestInit);
    await checkStatus(response, r.url, this.onError);
    return (await response.json()) as { item: Dataset; job?: Job };
  }

  // --- map assets (catalog §3): map styles and color palettes -----------------------------------
  mapAssets = {
    list: (type: MapAssetType, p: ListParams = {}) => this.collection('/v1/map-assets', { query: { type } }).list(p) as Promise<Page<MapAsset>>,
    get: (id: string) => this.request<{ item: MapAsset }>('GET', `/v1/map-assets/${id}`).then((r) => r.item),
    create: (body: MapAssetCreateBody) => this.request<{ item: MapAsset }>('POST', '/v1/map-assets', { body }).then((r) => r.item),
    update: (id: string, body: MapAssetUpdateBody) => this.request<{ item: MapAsset }>('PUT', `/v1/map-assets/${id}`, { body }).then((r) => r.item),
    delete: (id: string) => this.request<void>('DELETE', `/v1/map-assets/${id}`),
    /** Uploads a map style's style file (a MapLibre style JSON, checked by the server: 422 when it is not one). */
    uploadStyleFile: async (id: string, file: BodyInit) => {
      const { item } = await this.call(mapAssetCalls.filePolicy, { params: { id }, body: { assetContentType: 'application/json' } });
      return this.uploadWithPolicy(item, file);
    },
    uploadThumbnail: async (id: string, image: Blob, contentType: AssetThumbnailType = 'image/png') => {
      const { item } = await this.call(mapAssetCalls.filePolicy, { params: { id }, body: { thumbnailContentType: contentType } });
      return this.uploadWithPolicy(item, image);
    },
    /** The style document of a map style: the one saved in the asset, else its uploaded file; null when it has neither. */
    styleOf: async (asset: MapAsset): Promise<Record<string, unknown> | null> => {
      if (asset.style) return asset.style;
      if (!asset.readPath) return null;
      return this.request<Record<string, unknown>>('GET', asset.readPath);
    },
  };

  /** The workspace search: records of every kind whose name holds `q`, grouped by kind (`limit` each). */
  search = (q: string, limit = 5, signal?: AbortSignal) => this.call(searchCalls.search, { query: { q, limit } }, { signal }).then((r) => r.items);

  // --- projects and their folders (catalog §7 Projects) ---------------------------------------------
  projects = {
    ...this.collection('/v1/projects'),
    /** The project with its folders. */
    detail: (id: string) => this.request<{ item: StudioRecord & { folders: Folder[] } }>('GET', `/v1/projects/${id}`).then((r) => r.item),
    ...projectFoldersClient(this),
    /** The project's picture (CAT-137): PNG, JPEG or WebP, at most THUMBNAIL_MAX_BYTES. */
    uploadThumbnail: (id: string, image: Blob, contentType: ImageType) =>
      this.request<{ item: StudioRecord }>('PUT', `/v1/projects/${id}/thumbnail`, { rawBody: image, contentType }).then((r) => r.item),
  };

  // --- maps: kepler.gl files and publishing (catalog §7 Maps) ---------------------------------------
  maps = mapsClient(this);


  // --- data connections: create, edit, test, browse; their queries, saved queries and templates -------------
  connections = connectionsClient(this);
  templates = templatesClient(this);
  bookmarks = bookmarksClient(this);

  // --- dashboards (insights): widget rows, parameter choices, publications and reports -------------------
  dashboards = {
    /** Rows of a saved dashboard's widget, under the dashboard owner's access. */
    runWidget: (id: string, widgetId: string, body: Partial<WidgetRunBody>, signal?: AbortSignal) =>
      this.request<{ item: WidgetResult }>('POST', `/v1/dashboards/${id}/widgets/${widgetId}/query`, { body, signal }).then((r) => r.item),
    /** Several widgets of a saved dashboard in one request: `onLine` gets each widget's result or error as it is ready. */
    runWidgets: async (id: string, body: WidgetBatchBody, onLine: (line: WidgetBatchLine) => void, signal?: AbortSignal) =>
      readLines(await this.raw('POST', `/v1/dashboards/${id}/widgets/query`, { body, signal }), onLine),
    /** Rows of a draft widget (not saved yet), under the caller's own access. */
    runDraft: (widget: Widget, parameterDefs: Parameter[], body: Partial<WidgetRunBody>, signal?: AbortSignal) =>
      this.request<{ item: WidgetResult }>('POST', '/v1/dashboards/widget-query', { body: { ...body, widget, parameterDefs }, signal }).then((r) => r.item),
    /** CSV of a widget (up to 1M rows): a saved one when `id` is given, else the draft; `spreadsheet` as for datasets.data. */
    widgetCsv: (id: string | null, widget: Widget, parameterDefs: Parameter[], body: Partial<WidgetRunBody>, spreadsheet?: SpreadsheetForm) =>
      id
        ? this.raw('POST', `/v1/dashboards/${id}/widgets/${widget.id}/query`, { body, query: { format: 'csv', spreadsheet } })
        : this.raw('POST', '/v1/dashboards/widget-query', { body: { ...body, widget, parameterDefs }, query: { format: 'csv', spreadsheet } }),
    parameterValues: (id: string, parameterId: string, search?: string) =>
      this.request<{ items: string[] }>('GET', `/v1/dashboards/${id}/parameters/${parameterId}/values`, { query: { search } }).then((r) => r.items),
    draftParameterValues: (parameter: Parameter, search?: string) =>
      this.request<{ items: string[] }>('POST', '/v1/dashboards/parameter-values', { body: { parameter, search } }).then((r) => r.items),
    publish: (id: string, uploadOptions: UploadOptions) =>
      this.request<{ item: PublicationInfo }>('POST', `/v1/insights/${id}/publish/resources`, { body: { uploadOptions } }).then((r) => r.item),
    unpublish: (id: string) => this.request<void>('DELETE', `/v1/insights/${id}/unpublish`),
    publication: (id: string) =>
      this.request<{ item: PublicationInfo }>('GET', `/v1/insights/${id}/published-insight`, { query: { infoOnly: true } }).then((r) => r.item),
  };

  /** Published dashboards and reports, for readers (no sign-in needed; a grant after the password). */
  publications = {
    open: (kind: PublicationKind, id: string, grant?: string) =>
      this.request<{ item: Publication }>('GET', publicationPath(kind, id), { headers: grantHeader(grant) }).then((r) => r.item),
    unlock: (kind: PublicationKind, id: string, password: string) =>
      this.request<{ item: Publication; grant: { token: string; expiresAt: string } | null }>('POST', `${publicationPath(kind, id)}/password`, { body: { password } }),
    runWidget: (kind: PublicationKind, id: string, widgetId: string, body: Partial<WidgetRunBody>, grant?: string, signal?: AbortSignal) =>
      this.request<{ item: WidgetResult }>('POST', `${publicationPath(kind, id)}/widgets/${widgetId}/query`, { body, signal, headers: grantHeader(grant) }).then((r) => r.item),
    /** Several widgets of a publication in one request: `onLine` gets each widget's result or error as it is ready. */
    runWidgets: async (kind: PublicationKind, id: string, body: WidgetBatchBody, onLine: (line: WidgetBatchLine) => void, grant?: string, signal?: AbortSignal) =>
      readLines(await this.raw('POST', `${publicationPath(kind, id)}/widgets/query`, { body, signal, headers: grantHeader(grant) }), onLine),
    /** CSV of a published widget (up to 1M rows); `spreadsheet` as for datasets.data. */
    widgetCsv: (kind: PublicationKind, id: string, widgetId: string, body: Partial<WidgetRunBody>, grant?: string, spreadsheet?: SpreadsheetForm) =>
      this.raw('POST', `${publicationPath(kind, id)}/widgets/${widgetId}/query`, { body, query: { format: 'csv', spreadsheet }, headers: grantHeader(grant) }),
    parameterValues: (kind: PublicationKind, id: string, parameterId: string, grant?: string) =>
      this.request<{ items: string[] }>('GET', `${publicationPath(kind, id)}/parameters/${parameterId}/values`, { headers: grantHeader(grant) }).then((r) => r.items),
    sendReport: (insightId: string, opts: Omit<UploadOptions, 'insightId'> = {}, datasets?: string[]) =>
      this.request<{ item: PublicationInfo }>('POST', '/v1/reports/published/resources', { body: { datasets, uploadOptions: { ...opts, insightId } } }).then((r) => r.item),
    invite: (reportId: string, emails: string[], description = '') =>
      this.request<{ items: { email: string; url: string; sent: boolean }[] }>('POST', `/v1/reports/published/${reportId}/invite`, { body: { emails, description } }).then((r) => r.items),
  };

  /** Analytic sets (analytics-and-admin §7 Analytics service, Business-intelligence configs). */
  analytics = analyticsClient(this);
}
