export * from './errors';
export * from './client';
export * from './history';
export * from './analytics';
export * from './connections';
export * from './map-publishing';
export * from './permissions';
