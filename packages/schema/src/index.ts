export * from './errors';
export * from './common';
export * from './identity';
export * from './permissions';
export * from './records';
