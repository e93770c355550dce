import type { Store } from 'redux';
import { removeDataset, replaceDataInMap } from '@kepler.gl/actions';
import { StudioApiError } from '@studio/client';
import { isFinished, type DataDraw, type Dataset, type Job } from '@studio/schema';
import { client } from '../../app/api';
import { errorMessage } from '../../app/useLoad';
import { JOB_POLL_MS, jobStatusText } from '../../jobs/jobText';
import { boundsOf, loadArrowDataset, type KeplerDataset } from '../datasets';
import { isVectorTileDataset, vectorTileDataset } from '../vector-tiles';
import { addDatasets, datasetIdsOnMap } from '../kepler/actions';
import { drawChoice, tileThreshold, tileable, type DrawChoice } from './choice';
import { addKeepingStyle, captureStyle, type SavedLayer } from './keep-style';

/** What the layer panel shows of one dataset: how it is drawn and why, and the cut of its tiles while it runs. */
export interface LayerDraw {
  name: string;
  choice: DrawChoice;
  /** The dataset-tiles job cutting its tiles for the map, as last seen. */
  job?: Job;
  /** Why it is not on the map (its tiles could not be cut, say). */
  error?: string;
  /** Drawn from its low zooms while the rest is cut (#50, low zooms first). */
  early?: boolean;
}

/** A dataset ready to add now, or (its tiles being cut) later. */
type Started = { now: KeplerDataset; later?: never } | { now?: never; later: Promise<KeplerDataset> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One open map's datasets as its layers draw them (#50): each table dataset past the installation's threshold,
 * or set so by its layer, from its own vector tiles — cut on the spot (POST /v1/datasets/{id}/tiles) when none
 * show its current data — and the others from all their rows (Arrow). It never downloads the rows of a dataset
 * drawn from tiles. The layer panel reads it (DrawChoices.tsx); the map saves its overrides in the state's `draw`.
 */
export class MapDraws {
  private entries: Record<string, LayerDraw> = {};
  private listeners = new Set<() => void>();
  private store: Store | null = null;
  /** Each dataset's layers as last drawn each way, for a switch back (what the other way cannot hold). */
  private drawn: Record<string, Partial<Record<DataDraw, SavedLayer[]>>> = {};

  constructor(private readonly overrides: Record<string, DataDraw> = {}) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  };
  snapshot = () => this.entries;

  private set(id: string, change: Partial<LayerDraw> & Pick<LayerDraw, 'name' | 'choice'>) {
    this.entries = { ...this.entries, [id]: { ...change } };
    this.listeners.forEach((fn) => fn());
  }
  private patch(id: string, change: Partial<LayerDraw>) {
    const now = this.entries[id];
    if (now) this.set(id, { ...now, ...change });
  }

  /** The store the map draws in, once kepler has it: overrides redraw there. */
  attach(store: Store) {
    this.store = store;
  }

  /** The overrides of the datasets now on the map, for the saved state. */
  overridesToSave(onMap: string[]): Record<string, DataDraw> {
    return Object.fromEntries(onMap.flatMap((id) => (this.overrides[id] ? [[id, this.overrides[id]]] : [])));
  }

  /** One catalog dataset as its layer draws it, once it can be drawn (its tiles cut, when they are being cut). */
  async load(id: string): Promise<KeplerDataset> {
    const s = await this.start(id);
    return s.now ?? s.later;
  }

  /**
   * One dataset of a map opening on its saved layers: null when its tiles could not be cut (a viewer may not cut
   * them; the panel says why and offers all its rows), so that the map's other datasets still show.
   */
  async opening(id: string): Promise<KeplerDataset | null> {
    const s = await this.start(id);
    return s.now ?? s.later.catch(() => null);
  }

  /**
   * Adds the datasets (kepler's "Add Data"): those ready now at once, those whose tiles are being cut each when its
   * tiles are, so the window closes and the layer panel shows the cut's progress meanwhile.
   */
  async add(store: Store, ids: string[]): Promise<void> {
    const started = await Promise.all(ids.map((id) => this.start(id)));
    await addDatasets(store, started.flatMap((s) => (s.now ? [s.now] : [])));
    for (const s of started) if (s.later) s.later.then((d) => addDatasets(store, [d])).catch(() => undefined); // the error is in the panel
  }

  /**
   * The layer's override: the dataset is taken off the map and drawn again the chosen way, its layers keeping the
   * style the two ways share (keep-style.ts); what only one way has is kept for the way back.
   */
  async setDraw(id: string, draw: DataDraw): Promise<void> {
    this.overrides[id] = draw;
    const store = this.store;
    if (!store) return;
    const style = captureStyle(store, id);
    if (style) this.drawn[id] = { ...this.drawn[id], [style.layers[0]!.type === 'vectorTile' ? 'tiles' : 'rows']: style.layers };
    if (datasetIdsOnMap(store).includes(id)) store.dispatch(removeDataset(id));
    try {
      const dataset = await this.load(id);
      if (style) await addKeepingStyle(store, dataset, style, this.drawn[id]?.[draw]);
      else await addDatasets(store, [dataset]);
    } catch (e) {
      this.patch(id, { error: errorMessage(e) });
    }
  }

  private async start(id: string): Promise<Started> {
    const meta = await client.datasets.get(id);
    if (isVectorTileDataset(meta)) return { now: await vectorTileDataset(meta) };
    const choice = tileable(meta) ? drawChoice(meta, await tileThreshold(), this.overrides[id]) : null;
    if (!choice) return { now: await loadArrowDataset(meta) };
    this.set(id, { name: meta.name, choice });
    if (choice.draw === 'rows') return { now: await loadArrowDataset(meta) };
    const tiles = await currentTiles(meta);
    // Only its low zooms so far (another page's cut under way): drawn now, and again once whole.
    if (tiles && meta.metadata.vectorTile?.cutMaxZoom !== undefined) void this.untilWhole(meta);
    if (tiles) return { now: tiles };
    const later = this.cut(meta);
    later.catch((e: unknown) => this.patch(id, { error: errorMessage(e) }));
    return { later };
  }

  /**
   * Cuts the dataset's tiles (or follows the cut already under way), its progress in the panel. Answers as soon as
   * tiles can be drawn: its low zooms once the job serves them (the rest still being cut), else all of them.
   */
  private async cut(meta: Dataset): Promise<KeplerDataset> {
    const active = (await client.jobs.list({ resourceId: meta.id, status: 'active' })).items.find((j) => j.kind === 'dataset-tiles');
    let job = active ?? (await startCut(meta));
    this.patch(meta.id, { job, error: undefined });
    while (!isFinished(job.status)) {
      await sleep(JOB_POLL_MS);
      job = await client.jobs.get(job.id);
      this.patch(meta.id, { job });
      const early = !isFinished(job.status) && (await lowZoomsOnly(meta)) ? await currentTiles(meta) : null;
      if (early) {
        this.patch(meta.id, { early: true });
        void this.untilWhole(meta, job);
        return early;
      }
    }
    if (job.status !== 'succeeded') throw new Error(`The tiles of ${meta.name} were not cut (${jobStatusText(job)})`);
    const tiles = await currentTiles(meta);
    if (!tiles) throw new Error(`The tiles of ${meta.name} were cut, but its data was replaced meanwhile: add it again`);
    return tiles;
  }

  /**
   * The dataset drawn from its low zooms: once the whole pyramid replaces them, the layer reads the new TileJSON
   * (kepler kept the low one's maxzoom and would only enlarge zoom 6), keeping its config (kepler's replaceDataInMap).
   */
  private async untilWhole(meta: Dataset, job?: Job): Promise<void> {
    try {
      // Until the whole pyramid is served, and the job (when this page follows it) has ended.
      for (let low = true; low || (job && !isFinished(job.status)); ) {
        await sleep(JOB_POLL_MS);
        if (job) {
          job = await client.jobs.get(job.id);
          this.patch(meta.id, { job });
          if (isFinished(job.status) && job.status !== 'succeeded') throw new Error(`The rest of its tiles were not cut (${jobStatusText(job)})`);
        }
        if (low && !(await lowZoomsOnly(meta))) {
          low = false;
          this.patch(meta.id, { early: false });
          await this.redrawWhole(meta);
        }
      }
    } catch (e) {
      this.patch(meta.id, { error: errorMessage(e) });
    }
  }

  private async redrawWhole(meta: Dataset): Promise<void> {
    const whole = await currentTiles(meta);
    if (!whole || !this.store || !datasetIdsOnMap(this.store).includes(meta.id)) return;
    const { bounds: _bounds, ...dataset } = whole;
    this.store.dispatch(replaceDataInMap({ datasetToReplaceId: meta.id, datasetToUse: dataset as never, options: { keepExistingConfig: true, centerMap: false, autoCreateLayers: false } }));
  }
}

/** Whether the dataset serves only its low zooms so far (the rest being cut: `metadata.vectorTile.cutMaxZoom`). */
const lowZoomsOnly = async (meta: Dataset) => (await client.datasets.get(meta.id)).metadata.vectorTile?.cutMaxZoom !== undefined;

/** Starts the cut of the dataset's tiles; a caller who may not (a viewer: 403) is told who may. */
async function startCut(meta: Dataset): Promise<Job> {
  try {
    return await client.datasets.buildTiles(meta.id, {});
  } catch (e) {
    if (e instanceof StudioApiError && e.status === 403) throw new Error('It has no tiles of its current data yet, and only its editors may cut them');
    throw e;
  }
}

/**
 * The dataset's own tiles when they show its current data; null when it has none (422) or they were cut from data
 * since replaced (409).
 */
async function currentTiles(meta: Dataset): Promise<KeplerDataset | null> {
  try {
    return { ...(await vectorTileDataset(meta)), bounds: boundsOf(meta) };
  } catch (e) {
    if (e instanceof StudioApiError && (e.status === 409 || e.status === 422)) return null;
    throw e;
  }
}
