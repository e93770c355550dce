import { RecordBatchReader } from 'apache-arrow';
import type { Engine, ExportFormat, ExportLocation, ExportShape, Source, StreamOptions } from '@studio/engine';

/** The answers a query route gives: Arrow IPC, CSV, or JSON `{items: [...]}`. */
export type QueryAnswerFormat = 'arrow' | 'csv' | 'json';

/** JSON `{items: [...]}` streamed from Arrow batches: rows are decoded one batch at a time. */
async function* jsonFromArrow(arrow: AsyncGenerator<Uint8Array>): AsyncGenerator<string> {
  const reader = await RecordBatchReader.from(arrow);
  yield '{"items":[';
  let first = true;
  for await (const batch of reader) {
    const parts: string[] = [];
    for (const row of batch) parts.push(JSON.stringify(row?.toJSON() ?? null, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    if (parts.length) {
      yield (first ? '' : ',') + parts.join(',');
      first = false;
    }
  }
  yield ']}';
}

/**
 * Compiled queries' rows rendered in the format a client asked for, by the data engine. Routes prime what these
 * answer (the first chunk read before headers are set) so a failing query still answers its error as JSON.
 */
export class QueryResults {
  constructor(private readonly engine: Engine) {}

  /** `source`'s rows as Arrow IPC or CSV bytes. */
  bytes(source: Source, format: 'arrow' | 'csv', opts: { signal?: AbortSignal } = {}): AsyncGenerator<Uint8Array> {
    return format === 'csv' ? this.engine.csvStream(source, opts) : this.engine.arrowStream(source, opts);
  }

  /** Arrow IPC bytes (already primed or not) as the JSON answer's text. */
  json(arrow: AsyncGenerator<Uint8Array>): AsyncGenerator<string> {
    return jsonFromArrow(arrow);
  }

  /** `source`'s rows in any answer format: what a small result is rendered with, read whole. */
  render(source: Source, format: QueryAnswerFormat): AsyncGenerator<Uint8Array | string> {
    return format === 'json' ? jsonFromArrow(this.engine.arrowStream(source)) : this.bytes(source, format);
  }

  /** A local Parquet file (a temporary view) in a download format. */
  exportFile(file: string, format: ExportFormat, opts: StreamOptions & { location?: ExportLocation; shape: ExportShape }): AsyncGenerator<Uint8Array> {
    return this.engine.exportFileStream(file, format, opts);
  }
}
