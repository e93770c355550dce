import type { TileSource } from '@studio/pipeline';
import type { TileArchive } from './archive';

type CellsOpts = { within?: readonly string[]; interval?: string };

/** See TileArchive.source(): records what the compiler asks for, then answers it from local files. */
export class PreparedSource implements TileSource {
  recording = true;
  private readonly wanted = new Set<string>();
  private readonly files = new Map<string, string>();
  private readonly wantedQuantiles = new Set<string>();
  private readonly loaded = new Map<string, Record<string, number[] | null> | null>();

  constructor(private readonly archive: TileArchive) {}

  get resolutionOffset() { return this.archive.meta.resolutionOffset; }
  get minRes() { return this.archive.meta.minRes; }
  get maxRes() { return this.archive.meta.maxRes; }
  get fields() { return this.archive.meta.fields.map((f) => f.name); }
  get timeIntervals() { return this.archive.meta.timeIntervals; }

  cells(res: number, opts: CellsOpts): string {
    const names = this.archive.entriesFor(res, opts);
    if (this.recording) {
      for (const n of names) this.wanted.add(n);
      return '(SELECT 1)';
    }
    return this.archive.relation(names.map((n) => {
      const f = this.files.get(n);
      if (!f) throw new Error(`tile entry ${n} was not prepared`);
      return f;
    }), Boolean(opts.interval));
  }

  quantiles(res: number, interval: string) {
    const steps = Object.entries(this.archive.index.time[interval] ?? {});
    if (this.recording) {
      for (const [step] of steps) this.wantedQuantiles.add(`${res}/${step}`);
      return [];
    }
    // A step whose quantile entry failed to load answers null for each field (catalog §8).
    return steps.flatMap(([step, s]) => {
      const q = this.loaded.get(`${res}/${step}`) ?? null;
      return this.fields.map((field) => ({ path: step, time: s.start, field, quantiles: q?.[field] ?? null }));
    });
  }

  /** Copies out the recorded entries and loads the recorded quantiles; then answers for real. */
  async prepare(): Promise<void> {
    for (const n of this.wanted) if (!this.files.has(n)) this.files.set(n, await this.archive.file(n));
    for (const k of this.wantedQuantiles) {
      if (this.loaded.has(k)) continue;
      const [res, step] = k.split('/');
      this.loaded.set(k, await this.archive.quantiles(Number(res), step));
    }
    this.recording = false;
  }
}
