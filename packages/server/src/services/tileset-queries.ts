import { TILE_QUANTILE_LEVELS, badInput } from '@studio/schema';
import { executeDuckDB } from '@studio/pipeline';
import { quantileList, quantileValues } from '@studio/tiles';
import type { Caller } from '../http/caller';
import { engineError, primed } from '../http/streams';
import { compileForCaller, type PipelineDeps } from './pipelines';
import { archiveOf, metadataOf, tileDatasetsOf } from './hextiles';
import type { RecordService } from './records';

type Compiled = { sql: string; params: unknown[] };

/**
 * Pipelines over hex tiles (POST /v1/tileset and its metadata and quantiles): compiled for the caller, run on
 * the engine. The routes parse and answer; what runs on DuckDB is here.
 */
export class TilesetQueries {
  constructor(private readonly s: PipelineDeps & { records: RecordService }) {}

  /** Compiles a pipeline that must read at least one hex-tile dataset. */
  async compile(caller: Caller, body: unknown): Promise<Compiled> {
    const compiled = await compileForCaller(this.s, caller, body);
    if (!tileDatasetsOf(body).size) throw badInput('The pipeline reads no hex-tile dataset: use hexTile, tileExtract, tileJoin or tileQuantiles nodes');
    return compiled;
  }

  /** The result as Arrow IPC, its first piece pulled so that a failing query is an error status, not a cut stream. */
  async arrow(caller: Caller, body: unknown, signal: AbortSignal): Promise<AsyncGenerator<Uint8Array>> {
    const compiled = await this.compile(caller, body);
    return primed(this.s.engine.arrowStream({ sql: compiled.sql, params: compiled.params }, { signal }));
  }

  /** The result's columns and the metadata of each hex-tile dataset the pipeline reads. */
  async metadata(caller: Caller, body: unknown) {
    const fields = await this.fields(await this.compile(caller, body));
    const sources = [];
    for (const id of tileDatasetsOf(body)) {
      const row = (await this.s.records.get(id))!;
      sources.push(metadataOf(await archiveOf(this.s, row), id));
    }
    return { fields, sources };
  }

  /** Quantile boundaries (minimum, deciles, maximum) of each numeric column of the result. */
  async quantiles(caller: Caller, body: unknown) {
    const compiled = await this.compile(caller, body);
    const fields = await this.fields(compiled);
    const [row] = await this.runSmall(`SELECT ${quantileList(fields)} FROM (${compiled.sql}) AS r`, compiled.params);
    return { levels: TILE_QUANTILE_LEVELS, quantiles: quantileValues(row ?? {}, fields) };
  }

  private async fields(compiled: Compiled) {
    const rows = await this.runSmall(`DESCRIBE ${compiled.sql}`, compiled.params);
    return rows.map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
  }

  /** Rows of a compiled pipeline's description, or its quantiles: small answers, read whole. */
  private async runSmall(sql: string, params: unknown[]) {
    try {
      return await this.s.engine.withConnection((c) => executeDuckDB(c, { sql, params }));
    } catch (e) {
      throw engineError(e);
    }
  }
}
