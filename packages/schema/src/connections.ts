import { z } from 'zod';
import { Id } from './common';

/** Connection kinds of catalog §1: warehouses first, then storage. */
export const DATABASE_CONNECTION_TYPES = ['snowflake', 'bigquery', 'athena', 'postgres', 'presto', 'redshift', 'databricks', 'motherduck', 'kinetica'] as const;
export const STORAGE_CONNECTION_TYPES = ['s3', 'gcs', 'planet'] as const;
export const CONNECTION_TYPES = [...DATABASE_CONNECTION_TYPES, ...STORAGE_CONNECTION_TYPES] as const;
export const ConnectionType = z.enum(CONNECTION_TYPES);
export type ConnectionType = z.infer<typeof ConnectionType>;
export const isDatabaseConnectionType = (t: string): boolean => (DATABASE_CONNECTION_TYPES as readonly string[]).includes(t);

const Text = z.string().trim().min(1).max(1000);
const Host = z.string().trim().min(1).max(255).regex(/^[\w.-]+$/, 'Host must be a host name or address');
const Port = z.coerce.number().int().min(1).max(65535);
const Region = z.string().trim().min(1).max(64).regex(/^[a-z0-9-]+$/, 'Region must be like us-east-1');
const Bucket = z.string().trim().min(3).max(222).regex(/^[a-z0-9][a-z0-9._-]*$/, 'Bucket must be a bucket name');
const HttpUrl = z.string().max(2048).refine((s) => /^https?:\/\/\S+$/i.test(s) && URL.canParse(s), 'Must be an http(s) URL');

/** Per-kind settings a user fills in; none of them is secret. */
export const CONNECTION_CONFIGS = {
  snowflake: z.object({ account: Text, warehouse: Text, database: Text.optional(), schema: Text.optional(), role: Text.optional(), user: Text }),
  bigquery: z.object({ projectId: Text, dataset: Text.optional(), location: Text.optional() }),
  athena: z.object({ region: Region, workgroup: Text.optional(), catalog: Text.optional(), database: Text.optional(), outputLocation: Text.optional() }),
  postgres: z.object({ host: Host, port: Port.default(5432), database: Text, user: Text, ssl: z.boolean().default(true) }),
  presto: z.object({ host: Host, port: Port.default(8080), catalog: Text, schema: Text.optional(), user: Text, ssl: z.boolean().default(true) }),
  redshift: z.object({ host: Host, port: Port.default(5439), database: Text, user: Text, ssl: z.boolean().default(true) }),
  databricks: z.object({ host: Host, httpPath: Text, catalog: Text.optional(), schema: Text.optional() }),
  motherduck: z.object({ database: Text }),
  kinetica: z.object({ url: HttpUrl, user: Text, schema: Text.optional() }),
  s3: z.object({ bucket: Bucket, region: Region, prefix: z.string().max(1024).optional(), endpoint: HttpUrl.optional() }),
  gcs: z.object({ bucket: Bucket, region: Region.optional(), prefix: z.string().max(1024).optional() }),
  planet: z.object({ apiUrl: HttpUrl.optional(), orderId: Text.optional() }),
} as const satisfies Record<ConnectionType, z.ZodObject>;

/** Secrets of a connection: stored encrypted, never answered (the wire says hasCredentials). */
export const ConnectionCredentials = z
  .object({
    password: z.string().min(1).max(4096).optional(),
    privateKey: z.string().min(1).max(20_000).optional(),
    serviceAccountKey: z.record(z.string(), z.unknown()).optional(),
    token: z.string().min(1).max(4096).optional(),
    accessKeyId: z.string().min(1).max(256).optional(),
    secretAccessKey: z.string().min(1).max(4096).optional(),
  })
  .strict()
  .refine((c) => Object.keys(c).length > 0, 'Credentials must not be empty');
export type ConnectionCredentials = z.infer<typeof ConnectionCredentials>;

const Name = z.string().trim().min(1, 'Name must not be empty').max(500);
const common = {
  name: Name,
  description: z.string().max(10_000).default(''),
  /** A child connection (e.g. one schema of a warehouse) names its parent. */
  parentId: Id.nullable().optional(),
  /** Omitted on a save: kept. null: removed. */
  credentials: ConnectionCredentials.nullable().optional(),
};

const member = <T extends ConnectionType>(type: T) => CONNECTION_CONFIGS[type].extend({ type: z.literal(type), ...common });

export const DataConnectionBody = z.discriminatedUnion('type', [
  member('snowflake'), member('bigquery'), member('athena'), member('postgres'), member('presto'), member('redshift'),
  member('databricks'), member('motherduck'), member('kinetica'), member('s3'), member('gcs'), member('planet'),
]);
export type DataConnectionBody = z.infer<typeof DataConnectionBody>;

/** What `attrs` of a data-connection row hold. */
export const StoredConnection = z.object({
  type: ConnectionType,
  config: z.record(z.string(), z.unknown()),
  credentials: z.string().nullable().optional(),
  parentId: Id.nullable().optional(),
});
export type StoredConnection = z.infer<typeof StoredConnection>;

export const ConnectionFields = z.object({
  connectionType: ConnectionType,
  config: z.record(z.string(), z.unknown()),
  hasCredentials: z.boolean(),
  parentId: Id.nullable(),
  isDatabase: z.boolean(),
});

/** `types` may repeat in the query string: ?types=postgres&types=s3. */
export const ConnectionListQuery = z.object({
  types: z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(ConnectionType).max(CONNECTION_TYPES.length)).optional(),
});

/** A saved connection whose address the studio's network rule (STUDIO_CONNECTION_HOSTS) now refuses. */
export const RefusedConnection = z.object({
  id: Id,
  name: z.string(),
  connectionType: ConnectionType,
  ownerId: Id,
  host: z.string(),
  port: z.number().int(),
  /** The refusal, as a user testing the connection reads it. */
  reason: z.string(),
});
export type RefusedConnection = z.infer<typeof RefusedConnection>;
