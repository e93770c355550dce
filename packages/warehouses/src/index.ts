import { DATABASE_CONNECTION_TYPES, STORAGE_CONNECTION_TYPES, badInput, isDatabaseConnectionType } from '@studio/schema';
import type { WarehouseDriver } from './driver';
import { athenaDriver } from './athena';
import { bigqueryDriver } from './bigquery';
import { snowflakeDriver } from './snowflake';
import { databricksDriver } from './databricks';
import { kineticaDriver } from './kinetica';
import { motherduckDriver } from './motherduck';
import { postgresDriver } from './postgres';
import { trinoDriver } from './trino';
import { s3Driver } from './s3';
import { planetDriver } from './planet';
import { gcsDriver } from './gcs';
import type { StorageDriver } from './storage';

export * from './driver';
export * from './storage';
export { namedParameters, positionalParameters } from './parameters';
export { trinoLiteral } from './trino/literals';
export { duckTypeOf as trinoDuckType } from './trino';
export { databricksDuckType } from './databricks';
export { bigqueryDuckType } from './bigquery';
export { snowflakeDuckType } from './snowflake';
export { kineticaCall, kineticaDuckType, kineticaTarget, type KineticaEnvelope } from './kinetica';
/** Closes the warehouse sessions drivers keep between runs (the server stopping). */
export { closePostgresSessions as closeWarehouseSessions } from './postgres/sessions';

/** One driver per warehouse kind of catalog §1 (the type makes a missing kind a compile error). */
const DRIVERS: Record<(typeof DATABASE_CONNECTION_TYPES)[number], WarehouseDriver> = {
  snowflake: snowflakeDriver,
  bigquery: bigqueryDriver,
  athena: athenaDriver,
  postgres: postgresDriver,
  presto: trinoDriver,
  redshift: postgresDriver,
  databricks: databricksDriver,
  motherduck: motherduckDriver,
  kinetica: kineticaDriver,
};

/** The driver of a database connection's kind; a storage kind is a 422. */
export function driverFor(type: string): WarehouseDriver {
  if (!isDatabaseConnectionType(type)) throw badInput('Not a database connection');
  return DRIVERS[type as keyof typeof DRIVERS];
}

/** One driver per storage kind. */
const STORAGE: Record<(typeof STORAGE_CONNECTION_TYPES)[number], StorageDriver> = {
  s3: s3Driver,
  gcs: gcsDriver,
  planet: planetDriver,
};

/** The driver of a storage connection's kind; a warehouse kind is a 422. */
export function storageDriverFor(type: string): StorageDriver {
  if (isDatabaseConnectionType(type)) throw badInput('Not a storage connection');
  const driver = STORAGE[type as keyof typeof STORAGE];
  if (!driver) throw badInput(`Unknown connection type ${type}`);
  return driver;
}
