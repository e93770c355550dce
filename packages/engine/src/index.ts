export { Engine, type EngineOptions, type Source } from './engine';
export { LocalObjectStore, checkKey, type ObjectStore } from './store';
export { assertSupportedContentType, type IngestOptions } from './ingest';
export type { StreamOptions } from './stream';
export { BufferPool } from './buffers';
export type { PooledConnection } from './pool';
export { quoteIdent } from './sql';
export type { IngestResult, IngestColumn, ColumnStats, ColumnRole, SpecColumnType } from './types';
export { specType } from './types';
