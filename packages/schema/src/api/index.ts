// Route contracts, a file per area (house-style §3): each call declared once, read by the server, the
// OpenAPI document and the typed client.
export * from './contract';
export * from './tags';
export * from './api-keys';
export * from './jobs';
export * from './history-admin';
export * from './system';
export * from './dataset-snapshots';
export * from './analytics';
export * from './bi';
export * from './executions';
export * from './gateway';
export * from './map-publishing';
export * from './permissions';
export * from './legal';
export * from './password-resets';
export * from './client-errors';
export * from './auth';
export * from './search';
export * from './locks';
export * from './projects';
export * from './map-assets';
export * from './users';
export * from './admin';
export * from './sdk';
