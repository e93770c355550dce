export { buildStudio, type Studio } from './app';
export { configFromEnv, type StudioConfig } from './config';
export { ensureFirstAdmin } from './bootstrap';
export { createUser, createOrganization } from './services/users';
export type { RouteDef } from './http/route';
export { ensureSampleDatasets, SAMPLE_DATASETS } from './samples/datasets';
