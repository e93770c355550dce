/**
 * The map builder's GeoArrow answer of a stored dataset (geoarrow.ts), kept as a file beside its Arrow copy
 * (`<key>.geoarrows`): building it decodes the whole table and rescans every polygon's text, which under load took
 * longer than sending the GeoJSON text itself (docs/decisions.md, "GeoArrow to the map"). As with the Arrow copy, a
 * storage key never changes content, so a copy is never stale; it goes with its data (replaced, deleted, a snapshot's
 * retention) and is made by the first GeoArrow read. The geometry column is the one ingestion detected, fixed for a key.
 *
 * Concurrent first reads share one build: the first starts it and the others wait for the same bytes, and it goes
 * through a temp file committed under the copy's key (writeCopy), so no reader sees a half-written copy. The build
 * is not the reader's: a reader that leaves does not stop it (the copy is still kept), only the engine's close does.
 */
import { bestEffort } from '@studio/schema';
import { readCopy, writeCopy } from './arrow-copy';
import { geoArrowStream } from './geoarrow';
import type { ObjectStore } from './store';
import { abortError } from './stream';

export const geoArrowCopyKey = (key: string) => `${key}.geoarrows`;

export class GeoArrowCopies {
  /** Builds in flight by storage key: their bytes (null when the copy turned out to exist already). */
  private readonly building = new Map<string, Promise<Uint8Array[] | null>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly tmpDir: string,
    /** The dataset's plain Arrow stream (from its Arrow copy when there is one). */
    private readonly arrow: (key: string, signal: AbortSignal) => AsyncGenerator<Uint8Array>,
    /** Aborted when the engine closes. */
    private readonly closing: AbortSignal,
  ) {}

  /** The GeoArrow stream of `key` with `column` as geometry: the copy's bytes, or the shared first build's. */
  async *stream(key: string, column: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    let job = this.building.get(key);
    // Looked up again after the await: a build may have started meanwhile (one that ended has committed its copy).
    if (!job && !(await this.store.exists(geoArrowCopyKey(key)))) job = this.building.get(key) ?? this.start(key, column);
    const built = job ? await job : null;
    if (signal?.aborted) throw abortError();
    if (built) return yield* built;
    yield* readCopy(await this.store.localPath(geoArrowCopyKey(key)), signal);
  }

  private start(key: string, column: string): Promise<Uint8Array[] | null> {
    const job = (async () => {
      if (await this.store.exists(geoArrowCopyKey(key))) return null;
      // geoArrowStream holds the whole table anyway (one piece): collected first, so a copy past the size cap that
      // writeCopy drops still answers this read.
      const pieces: Uint8Array[] = [];
      for await (const piece of geoArrowStream(this.arrow(key, this.closing), column)) pieces.push(piece);
      // A copy that cannot be stored (a full disk) only costs later reads their build: this one is answered.
      const write = writeCopy(this.store, this.tmpDir, geoArrowCopyKey(key), async function* () {
        yield* pieces;
      });
      await bestEffort(write, `Storing the GeoArrow copy ${key}`);
      return pieces;
    })().finally(() => this.building.delete(key));
    this.building.set(key, job);
    return job;
  }
}
