/** The web app's route table, for issues that replace a placeholder screen. */
export { routes, ANALYTIC_VIEWS } from './routes';
export { COLLECTIONS, type CollectionConfig } from './list/collections';
