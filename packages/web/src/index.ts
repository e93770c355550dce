/** The web app's route table, for issues that replace a placeholder screen. */
export { routes } from './routes';
export { ANALYTIC_VIEWS } from './analytics/view-list';
export { COLLECTIONS, type CollectionConfig } from './list/collections';
