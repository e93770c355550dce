import { badInput, isDatabaseConnectionType, type ConnectionType } from '@studio/schema';
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

/** One driver per warehouse kind; storage kinds (s3, gcs, planet) are browsed by the storage drivers. */
const DRIVERS: Partial<Record<ConnectionType, WarehouseDriver>> = {
  postgres: postgresDriver,
  redshift: postgresDriver,
  presto: trinoDriver,
  motherduck: motherduckDriver,
  databricks: databricksDriver,
  athena: athenaDriver,
  kinetica: kineticaDriver,
  bigquery: bigqueryDriver,
  snowflake: snowflakeDriver,
};

/** The driver of a database connection's kind, or a 422 naming what the kind is. */
export function driverFor(type: string): WarehouseDriver {
  if (!isDatabaseConnectionType(type)) throw badInput('Not a database connection');
  const driver = DRIVERS[type as ConnectionType];
  if (!driver) throw badInput(`Connections of type ${type} have no driver on this server`);
  return driver;
}

const STORAGE: Partial<Record<ConnectionType, StorageDriver>> = {
  s3: s3Driver,
  planet: planetDriver,
  gcs: gcsDriver,
};

/** The driver of a storage connection's kind, or a 422 naming what the kind is. */
export function storageDriverFor(type: string): StorageDriver {
  if (isDatabaseConnectionType(type)) throw badInput('Not a storage connection');
  const driver = STORAGE[type as ConnectionType];
  if (!driver) throw badInput(`Connections of type ${type} have no driver on this server`);
  return driver;
}
