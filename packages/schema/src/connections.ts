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

/**
 * TLS to a PostgreSQL-protocol warehouse, as libpq names it: `disable` (plain), `require` (encrypted, the
 * server's certificate not checked), `verify-full` (the certificate checked against the system's
 * authorities, or `caCertificate`, and the host name against it).
 */
export const SSL_MODES = ['disable', 'require', 'verify-full'] as const;
const PemCertificate = z
  .string()
  .trim()
  .max(20_000)
  .regex(/^(-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*)+$/, 'CA certificate must be PEM text (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)');
/** An SSH host key's SHA-256 fingerprint as `ssh-keygen -l` prints it. */
const SshFingerprint = z.string().trim().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SSH host key fingerprint must look like SHA256:… (ssh-keygen -l -f <host key>)');
/** Through a bastion: the warehouse's host and port are reached from the SSH server. */
const SSH_TUNNEL = { sshHost: Host.optional(), sshPort: Port.default(22), sshUser: Text.optional(), sshHostKey: SshFingerprint.optional() };
const PG_TLS = { sslmode: z.enum(SSL_MODES).default('verify-full'), caCertificate: PemCertificate.optional() };

/** Per-kind settings a user fills in; none of them is secret. */
export const CONNECTION_CONFIGS = {
  snowflake: z.object({ account: Text, warehouse: Text, database: Text.optional(), schema: Text.optional(), role: Text.optional(), user: Text, endpoint: HttpUrl.optional() }),
  bigquery: z.object({ projectId: Text, dataset: Text.optional(), location: Text.optional(), endpoint: HttpUrl.optional() }),
  athena: z.object({ region: Region, workgroup: Text.optional(), catalog: Text.optional(), database: Text.optional(), outputLocation: Text.optional(), endpoint: HttpUrl.optional() }),
  postgres: z.object({ host: Host, port: Port.default(5432), database: Text, user: Text, ...PG_TLS, ...SSH_TUNNEL }),
  presto: z.object({ host: Host, port: Port.default(8080), catalog: Text, schema: Text.optional(), user: Text, ssl: z.boolean().default(true) }),
  redshift: z.object({ host: Host, port: Port.default(5439), database: Text, user: Text, ...PG_TLS, ...SSH_TUNNEL }),
  databricks: z.object({ host: Host, httpPath: Text, catalog: Text.optional(), schema: Text.optional(), port: Port.default(443), ssl: z.boolean().default(true) }),
  motherduck: z.object({ database: Text }),
  kinetica: z.object({ url: HttpUrl, user: Text, schema: Text.optional() }),
  s3: z.object({ bucket: Bucket, region: Region, prefix: z.string().max(1024).optional(), endpoint: HttpUrl.optional() }),
  gcs: z.object({ bucket: Bucket, region: Region.optional(), prefix: z.string().max(1024).optional(), endpoint: HttpUrl.optional() }),
  planet: z.object({ apiUrl: HttpUrl.optional(), orderId: Text.optional() }),
} as const satisfies Record<ConnectionType, z.ZodObject>;

export const CONNECTION_LABELS: Record<ConnectionType, string> = {
  snowflake: 'Snowflake', bigquery: 'BigQuery', athena: 'Amazon Athena', postgres: 'PostgreSQL', presto: 'Presto / Trino',
  redshift: 'Amazon Redshift', databricks: 'Databricks', motherduck: 'MotherDuck', kinetica: 'Kinetica', s3: 'Amazon S3',
  gcs: 'Google Cloud Storage', planet: 'Planet',
};

const FIELD_LABELS: Record<string, string> = {
  sslmode: 'TLS (sslmode)', caCertificate: 'CA certificate (PEM)', sshHost: 'SSH host (bastion)', sshPort: 'SSH port', sshUser: 'SSH user',
  sshHostKey: 'SSH host key fingerprint (SHA256:…)',
  ssl: 'Use TLS (SSL)', httpPath: 'HTTP path', projectId: 'Project id', apiUrl: 'API URL', url: 'URL', orderId: 'Order id', outputLocation: 'Output location (s3://…)' };

/** One field of a connection form, read from the kind's schema: the form and the server check the same thing. */
export interface ConnectionFormField {
  name: string;
  label: string;
  input: 'text' | 'number' | 'checkbox' | 'select' | 'textarea';
  required: boolean;
  defaultValue?: string | number | boolean;
  /** A select's choices. */
  options?: readonly string[];
}

/** Fields typed as several lines (a certificate), not one. */
const MULTILINE_FIELDS = new Set(['caCertificate']);

export function connectionFormFields(type: ConnectionType): ConnectionFormField[] {
  return Object.entries(CONNECTION_CONFIGS[type].shape).map(([name, schema]) => {
    let t = schema as z.ZodType;
    let required = true;
    let defaultValue: ConnectionFormField['defaultValue'];
    for (;;) {
      const def = t.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
      if (def.type === 'optional') required = false;
      else if (def.type === 'default') defaultValue = (typeof def.defaultValue === 'function' ? def.defaultValue() : def.defaultValue) as ConnectionFormField['defaultValue'];
      else break;
      t = def.innerType!;
    }
    const kind = (t.def as { type: string }).type;
    const label = FIELD_LABELS[name] ?? name.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());
    const options = kind === 'enum' ? (t as z.ZodEnum).options.map(String) : undefined;
    const input = kind === 'boolean' ? 'checkbox' : kind === 'number' ? 'number' : options ? 'select' : MULTILINE_FIELDS.has(name) ? 'textarea' : 'text';
    return { name, label, input, required: required && defaultValue === undefined, ...(defaultValue !== undefined && { defaultValue }), ...(options && { options }) };
  });
}

/** The secrets a kind's form asks for (write-only), as keys of ConnectionCredentials. */
export interface ConnectionSecretField {
  name: 'password' | 'token' | 'accessKeyId' | 'secretAccessKey' | 'privateKey' | 'sshPrivateKey' | 'sshPassword';
  label: string;
  /** Typed as several lines (a private key). */
  multiline?: boolean;
}

const PASSWORD: ConnectionSecretField[] = [{ name: 'password', label: 'Password' }];
/** PostgreSQL-protocol warehouses: the database password, and the bastion's key or password when tunnelled. */
const PG_SECRETS: ConnectionSecretField[] = [...PASSWORD, { name: 'sshPrivateKey', label: 'SSH private key', multiline: true }, { name: 'sshPassword', label: 'SSH password' }];
const AWS_KEYS: ConnectionSecretField[] = [{ name: 'accessKeyId', label: 'Access key id' }, { name: 'secretAccessKey', label: 'Secret access key' }];

export const CONNECTION_SECRET_FIELDS: Record<ConnectionType, ConnectionSecretField[]> = {
  snowflake: PASSWORD, postgres: PG_SECRETS, presto: PASSWORD, redshift: PG_SECRETS, kinetica: PASSWORD,
  bigquery: [{ name: 'privateKey', label: 'Service account key (JSON)' }], gcs: [{ name: 'privateKey', label: 'Service account key (JSON)' }],
  athena: AWS_KEYS, s3: AWS_KEYS,
  databricks: [{ name: 'token', label: 'Personal access token' }],
  motherduck: [{ name: 'token', label: 'MotherDuck token (md: databases)' }],
  planet: [{ name: 'token', label: 'API key' }],
};

/** Secrets of a connection: stored encrypted, never answered (the wire says hasCredentials). */
export const ConnectionCredentials = z
  .object({
    password: z.string().min(1).max(4096).optional(),
    privateKey: z.string().min(1).max(20_000).optional(),
    serviceAccountKey: z.record(z.string(), z.unknown()).optional(),
    token: z.string().min(1).max(4096).optional(),
    accessKeyId: z.string().min(1).max(256).optional(),
    secretAccessKey: z.string().min(1).max(4096).optional(),
    sshPrivateKey: z.string().min(1).max(20_000).optional(),
    sshPassword: z.string().min(1).max(4096).optional(),
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
  /** The owner's switch: queries run only for the connection's editors (readers still see and browse it). Omitted on a save: kept (new: off). */
  runForEditorsOnly: z.boolean().optional(),
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
  runForEditorsOnly: z.boolean().optional(),
});
export type StoredConnection = z.infer<typeof StoredConnection>;

export const ConnectionFields = z.object({
  connectionType: ConnectionType,
  config: z.record(z.string(), z.unknown()),
  hasCredentials: z.boolean(),
  parentId: Id.nullable(),
  isDatabase: z.boolean(),
  runForEditorsOnly: z.boolean(),
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

/** One entry of a storage connection's listing: a folder (key ends with '/') or an object. */
export const StorageItem = z.object({
  name: z.string(),
  key: z.string(),
  type: z.enum(['folder', 'object']),
  size: z.number().optional(),
  lastModified: z.string().optional(),
});
export type StorageItem = z.infer<typeof StorageItem>;

export const StorageListing = z.object({ items: z.array(StorageItem), truncated: z.boolean() });
export type StorageListing = z.infer<typeof StorageListing>;

/** An object of a storage connection (CSV, TSV, Parquet, GeoJSON, NDJSON) imported as a new dataset. */
export const StorageImportBody = z
  .object({
    key: z.string().min(1).max(1024),
    /** Default: the object's file name. */
    name: z.string().trim().min(1).max(500).optional(),
    description: z.string().max(10_000).default(''),
  })
  .strict();
export type StorageImportBody = z.infer<typeof StorageImportBody>;

/** A connection that answered (POST /v1/test-connection). */
export const ConnectionTestResult = z.object({ ok: z.literal(true), serverVersion: z.string() });
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;

/** One entry of a warehouse's schema browser: a schema, a table or view of a schema, or a column of a table. */
export const SchemaBrowseItem = z.object({
  name: z.string(),
  type: z.enum(['schema', 'table', 'view', 'column']),
  dataType: z.string().optional(),
  nullable: z.boolean().optional(),
});
export type SchemaBrowseItem = z.infer<typeof SchemaBrowseItem>;
