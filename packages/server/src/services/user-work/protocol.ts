import { DuckDBListValue, listValue, type DuckDBValue } from '@duckdb/node-api';
import type { ConvertOptions, ConvertedFormat, ConvertedInto } from '@studio/engine';
import { StudioError, isStudioError } from '@studio/schema';

/**
 * The messages between the API process and a user-work process (worker-main.ts). Every message is a
 * structured clone (`serialization: 'advanced'`), so BigInt and Date values of query rows cross as they are.
 */

/** What the child is started with (its first argument, as JSON). */
export interface WorkerOptions {
  /** The child's own folder: its locked instances' folders and spill go below it; the parent removes it when the child ends. */
  dir: string;
  /** DuckDB memory of all the child's sandbox instances together (split evenly between them). */
  memoryLimit: string;
  /** Locked instances the child keeps open at once. */
  maxInstances: number;
  /** The most one instance may spill to disk (DuckDB's max_temp_directory_size). */
  spillLimit: string;
  /** Threads the child gives the H3 functions (the server's STUDIO_H3_WORKERS; null: the default). */
  h3Workers: number | null;
}

/** The work a child does: user SQL on locked DuckDB instances, and the conversion of uploaded files. */
export type WorkRequest =
  | { op: 'compile'; query: string }
  | { op: 'parameterNames'; sql: string; files: string[] }
  | { op: 'copyToParquet'; sql: string; files: string[]; params: WireParams; file: string }
  | { op: 'readRows'; sql: string; files: string[]; params: WireParams }
  | { op: 'convert'; format: ConvertedFormat; input: string; outBase: string; options?: ConvertOptions };

/** What each request answers. */
export interface WorkAnswers {
  compile: { sql: string; files: [string, string][] };
  parameterNames: string[];
  copyToParquet: number;
  readRows: unknown[][];
  convert: { files: string[]; into: ConvertedInto };
}

/** An error as it crosses: a StudioError keeps its status; anything else is the engine's message. */
export interface WireError {
  status?: number;
  message: string;
  details?: string;
}

/** An error as it crosses, either way (a child's failure, the API's answer to a `resolve`). */
export const toWire = (e: unknown): WireError =>
  isStudioError(e) ? { status: e.status, message: e.message, ...(e.details !== undefined && { details: e.details }) } : { message: String((e as Error)?.message ?? e) };

/** A crossed error as thrown again: a StudioError keeps its status; the engine's own errors become plain Errors. */
export const fromWire = (e: WireError): Error => (e.status !== undefined ? new StudioError(e.status, e.message, e.details) : new Error(e.message));

export type ToWorker =
  | { type: 'call'; id: number; request: WorkRequest }
  | { type: 'cancel'; id: number }
  /** The answer to a child's `resolve`: a table name the query wrote, as the caller may read it. */
  | { type: 'resolved'; id: number; rid: number; path?: string; error?: WireError };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; error: WireError }
  | { type: 'resolve'; id: number; rid: number; name: string };

/**
 * Bound values as they cross: a structured clone keeps numbers, BigInt, strings and booleans, but not the class
 * of DuckDB's LIST values (the one kind of value the studio binds that is not plain), so lists are tagged.
 */
type WireValue = DuckDBValue | { list: WireValue[] };
export type WireParams = Record<string, WireValue>;

const toWireValue = (v: DuckDBValue): WireValue => (v instanceof DuckDBListValue ? { list: v.items.map(toWireValue) } : v);
const fromWireValue = (v: WireValue): DuckDBValue =>
  v !== null && typeof v === 'object' && 'list' in v && Array.isArray(v.list) && Object.keys(v).length === 1 ? listValue(v.list.map(fromWireValue)) : (v as DuckDBValue);

export const paramsToWire = (p: Record<string, DuckDBValue>): WireParams => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, toWireValue(v)]));
export const paramsFromWire = (p: WireParams): Record<string, DuckDBValue> => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, fromWireValue(v)]));
