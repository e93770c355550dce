import fs from 'node:fs';
import path from 'node:path';
import {
  FOOT_TRAFFIC_GROUP_ID, MemoryLruBacking, RedisBacking, ResultCache, defaultParameters, footTrafficGroup,
  generateSamplePanel, labelsOf, runQuery, validateBoundData, validateTemplate, type AnalyticTemplate, type BuiltQuery, type QueryCacheKey, type DatasetBinding, type PanelLabels,
  type PanelTables,
} from '@studio/analytics';
import { StudioError, badInput, forbidden, notFound, quoteLiteral, reportFailure } from '@studio/schema';
import type { Engine } from '@studio/engine';
import type { Db } from '../store/db';
import type { Caller } from '../http/caller';
import { homeOrgId } from '../http/caller';
import type { AccessService } from './access';
import { engineError, primed } from '../http/streams';
import { joinRun } from './shared-runs';
import { datasetAttrs } from './datasets';
import { BiStore, type AnalyticSetConfigRow, type DatasetIds } from './bi';

const SAMPLE_FILES = { places: 'places.parquet', devices: 'devices.parquet', visits: 'visits.parquet' } as const;
const tablesOf = (files: Record<keyof PanelTables, string>): PanelTables => ({
  places: `read_parquet(${quoteLiteral(files.places)})`,
  devices: `read_parquet(${quoteLiteral(files.devices)})`,
  visits: `read_parquet(${quoteLiteral(files.visits)})`,
});

/** The data one request reads: the organization's bound datasets, or the built-in sample. */
export interface Binding {
  orgId: string;
  /** Cache identity: dataset id@storage key (a replaced file is a new key), or 'default'. */
  datasets: DatasetBinding;
  tables: PanelTables;
  templateParameters: Record<string, unknown>;
  templateOverrides: Record<string, TemplateOverride>;
  config: AnalyticSetConfigRow | null;
}

/** A config's changes to a template: texts and its query parameter list (ids must exist in the base). */
export interface TemplateOverride {
  title?: string;
  description?: string;
  queryParameters?: { id: string; name?: string; description?: string; defaultValue?: unknown }[];
}

export const GROUP_IDS = [FOOT_TRAFFIC_GROUP_ID];
export function assertGroup(groupId: string): void {
  if (!GROUP_IDS.includes(groupId)) throw notFound(`Analytic set group ${groupId} not found`);
}

/** Applies overrides to a template and runs the package's setup check ("Parameter {id} is not listed…"). */
export function applyOverride(t: AnalyticTemplate, o: TemplateOverride | undefined): AnalyticTemplate {
  if (!o) return t;
  let queryParameters = t.queryParameters;
  if (o.queryParameters) {
    queryParameters = o.queryParameters.map((q) => {
      const base = t.queryParameters.find((b) => b.id === q.id);
      if (!base) throw badInput(`Template ${t.id} has no query parameter ${q.id}`);
      return { ...base, ...q };
    });
  }
  return validateTemplate({ ...t, title: o.title ?? t.title, description: o.description ?? t.description, queryParameters });
}

export function validateOverrides(groupId: string, overrides: Record<string, TemplateOverride>): void {
  const templates = footTrafficGroup().templates;
  for (const [id, o] of Object.entries(overrides)) {
    const t = templates.find((x) => x.id === id);
    if (!t) throw badInput(`Group ${groupId} has no template ${id}`);
    applyOverride(t, o);
  }
}

export interface AnalyticsOptions {
  /** Folder of the built-in sample panel (places/devices/visits.parquet). */
  sampleDir: string;
  cache?: ResultCache;
}

export class AnalyticsService {
  readonly bi: BiStore;
  cache: ResultCache;
  sampleDir: string;

  constructor(db: Db, private readonly engine: Engine, private readonly access: AccessService, opts: AnalyticsOptions) {
    this.bi = new BiStore(db);
    this.sampleDir = opts.sampleDir;
    this.cache = opts.cache ?? new ResultCache({ backing: new MemoryLruBacking() });
  }

  /**
   * REDIS_URL set: results shared by every API node through Redis, under the installation's STUDIO_REDIS_PREFIX
   * (two installations on one Redis share nothing); else an in-process LRU.
   */
  static cacheFor(config: { redisUrl: string | null; redisPrefix: string }): ResultCache {
    return new ResultCache({
      backing: config.redisUrl ? new RedisBacking(`${config.redisPrefix}analytics:`, { lazyConnect: true }, config.redisUrl) : new MemoryLruBacking(),
    });
  }

  sampleReady(): boolean {
    return Object.values(SAMPLE_FILES).every((f) => fs.existsSync(path.join(this.sampleDir, f)));
  }

  /** First start: a small deterministic panel, generated once (skipped when present). */
  async ensureSample(opts: { visits?: number } = {}): Promise<boolean> {
    if (this.sampleReady()) return false;
    const tmp = `${this.sampleDir}.tmp-${process.pid}`;
    await fs.promises.rm(tmp, { recursive: true, force: true });
    await generateSamplePanel({ dir: tmp, visits: opts.visits ?? 200_000 });
    await fs.promises.rm(this.sampleDir, { recursive: true, force: true });
    await fs.promises.mkdir(path.dirname(this.sampleDir), { recursive: true });
    await fs.promises.rename(tmp, this.sampleDir);
    return true;
  }

  /** The organization whose config answers: the caller's own, or (administrators only) an impersonated one. */
  orgOf(caller: Caller, impersonate: string | undefined): string | null {
    if (impersonate) {
      if (!caller.isAdmin) throw forbidden('Only administrators may impersonate an organization');
      return impersonate;
    }
    return homeOrgId(caller);
  }

  /** Paths of datasets the caller may read, in the shape the templates take. */
  async datasetTables(caller: Caller, ids: DatasetIds, adminMode: boolean) {
    const files = {} as Record<keyof PanelTables, string>;
    const keys = {} as Record<keyof PanelTables, string>;
    for (const role of ['places', 'devices', 'visits'] as const) {
      const { resource } = await this.access.guard(caller, 'dataset', ids[role], 'read', adminMode);
      const a = datasetAttrs(resource);
      if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${ids[role]} is not ready (status: ${a.status})`);
      files[role] = await this.engine.store.localPath(a.storageKey);
      keys[role] = `${ids[role]}@${a.storageKey}`;
    }
    return { tables: tablesOf(files), keys };
  }

  sampleTables(): PanelTables {
    if (!this.sampleReady()) throw new StudioError(409, 'The built-in sample panel is not ready yet; bind datasets with an analytic-set config or try again shortly');
    return tablesOf({
      places: path.join(this.sampleDir, SAMPLE_FILES.places),
      devices: path.join(this.sampleDir, SAMPLE_FILES.devices),
      visits: path.join(this.sampleDir, SAMPLE_FILES.visits),
    });
  }

  async binding(caller: Caller, groupId: string, impersonate?: string): Promise<Binding> {
    assertGroup(groupId);
    const orgId = this.orgOf(caller, impersonate);
    const config = orgId ? await this.bi.analyticConfigFor(groupId, orgId) : null;
    const templateParameters = (config?.template_parameters ?? {}) as Record<string, unknown>;
    const templateOverrides = (config?.template_overrides ?? {}) as Record<string, TemplateOverride>;
    if (config?.datasets) {
      // Impersonating administrators read as administrators; members read what their organization has.
      const { tables, keys } = await this.datasetTables(caller, config.datasets, Boolean(impersonate) && caller.isAdmin);
      return { orgId: orgId!, datasets: keys, tables, templateParameters, templateOverrides, config };
    }
    return { orgId: orgId ?? 'none', datasets: 'default', tables: this.sampleTables(), templateParameters, templateOverrides, config };
  }

  labels(b: Binding, cacheControl?: string | null): Promise<PanelLabels> {
    return this.cache.labels(b.datasets, () => this.engine.withConnection((c) => labelsOf(c, b.tables)), { cacheControl });
  }

  /** Default query-parameter values: computed from the data, then the group default, then the organization's. */
  async parameterDefaults(groupId: string, orgId: string | null): Promise<Record<string, unknown>> {
    const group = await this.bi.paramConfigFor(groupId, null);
    // The organization's own defaults refine the group's; when they cannot be read, the group's still answer.
    const org = orgId ? await this.bi.paramConfigFor(groupId, orgId).catch((e: unknown) => (reportFailure(`Reading the parameter defaults of organization ${orgId}`, e), null)) : null;
    return { ...(group?.parameters ?? {}), ...(org?.parameters ?? {}) };
  }

  /** GET /v1/analytic-sets/{groupId}: the sets with labels and defaults of the bound data. */
  async group(b: Binding, groupId: string) {
    const labels = await this.labels(b);
    const base = footTrafficGroup(labels);
    const saved = await this.parameterDefaults(groupId, b.orgId === 'none' ? null : b.orgId);
    const sets = base.templates.map((t0) => {
      const t = applyOverride(t0, b.templateOverrides[t0.id]);
      const computed = defaultParameters(t.id, labels) as Record<string, unknown>;
      return {
        ...t,
        queryParameters: t.queryParameters.map((q) => {
          const overridden = b.templateOverrides[t.id]?.queryParameters?.some((o) => o.id === q.id && 'defaultValue' in o);
          const value = q.id in saved ? saved[q.id] : overridden ? q.defaultValue : computed[q.id] ?? q.defaultValue;
          return { ...q, defaultValue: value };
        }),
        templateParameters: t.templateParameters.map((p) => ({ ...p, value: p.id in b.templateParameters ? b.templateParameters[p.id] : p.defaultValue })),
        datasets: { production: b.datasets === 'default' ? [] : Object.values(b.config?.datasets ?? {}), staging: [] },
      };
    });
    return { id: groupId, sets, views: base.views, labels: { firstVisitDate: labels.firstVisitDate, lastVisitDate: labels.lastVisitDate }, source: b.datasets === 'default' ? ('sample' as const) : ('organization' as const) };
  }

  /** A built template query as CSV or Arrow IPC, its first piece pulled so that a failing query is an error status. */
  templateStream(built: BuiltQuery, format: 'csv' | 'arrow', signal: AbortSignal): Promise<AsyncGenerator<Uint8Array>> {
    const source = { sql: built.sql, params: built.values as unknown[] };
    return primed(format === 'csv' ? this.engine.csvStream(source, { signal }) : this.engine.arrowStream(source, { signal }));
  }

  /**
   * A built template query's rows, through the result cache. Identical concurrent requests (same `shareKey`)
   * share one computation: it stops only when every client waiting for it has gone (`signal`), so one aborted
   * request never fails another's answer.
   */
  async templateRows(key: QueryCacheKey, shareKey: string, built: BuiltQuery, cacheControl: string | undefined, signal: AbortSignal) {
    const run = joinRun(shareKey);
    signal.addEventListener('abort', run.leave);
    try {
      return await this.cache.run(key, () => this.engine.withConnection(async (conn) => {
        const stop = () => conn.interrupt();
        run.signal.addEventListener('abort', stop);
        try {
          if (run.signal.aborted) throw new Error('aborted');
          return await runQuery(conn, built);
        } catch (e) {
          throw engineError(e);
        } finally {
          run.signal.removeEventListener('abort', stop);
        }
      }), { cacheControl });
    } finally {
      signal.removeEventListener('abort', run.leave);
      run.done();
    }
  }

  /** The datasets a config binds, checked: readable by the caller, and visits that reference known devices and places. */
  async checkBoundData(caller: Caller, datasets: DatasetIds, adminMode: boolean): Promise<void> {
    const { tables } = await this.datasetTables(caller, datasets, adminMode);
    await this.engine.withConnection((c) => validateBoundData(c, tables));
  }
}
