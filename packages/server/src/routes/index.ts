import type { RouteDef } from '../http/route';
import { systemRoutes } from './system';
import { authRoutes } from './auth';
import { userRoutes } from './users';
import { apiKeyRoutes } from './api-keys';
import { recordRoutes } from './records';
import { permissionRoutes } from './permissions';
import { lockRequestRoutes } from './lock-requests';
import { tagRoutes } from './tags';
import { legalRoutes } from './legal';
import { clientErrorRoutes } from './client-errors';
import { passwordResetRoutes } from './password-resets';
import { adminRoutes } from './admin';
import { uploadRoutes } from './uploads';
import { mapAssetRoutes } from './map-assets';
import { dataConnectionRoutes } from './data-connections';
import { dataQueryRoutes } from './data-queries';
import { storageRoutes } from './storage';
import { dataProxyRoutes } from './data-proxy';
import { projectRoutes } from './projects';
import { stateRoutes } from './states';
import { datasetRoutes } from './datasets';
import { queryRoutes } from './query';
import { tilesetRoutes } from './tilesets';
import { analyticsRoutes } from './analytics';
import { biRoutes } from './bi';
import { publishingRoutes } from './publishing';
import { dashboardRoutes } from './dashboards';
import { insightPublishingRoutes } from './insight-publishing';
import { executionRoutes } from './executions';
import { gatewayRoutes } from './gateway';
import { basemapRoutes } from './basemaps';
import { vectorTileRoutes } from './vector-tiles';
import { jobRoutes } from './jobs';
import { datasetRefreshRoutes } from './dataset-refresh';
import { sdkRoutes } from './sdk';
import { keplerFileRoutes } from './kepler-files';
import { searchRoutes } from './search';
import { historyRoutes } from './history';

/** The route table: every call the server answers, in one list the tests and OpenAPI read. */
export const allRoutes: RouteDef[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...apiKeyRoutes,
  ...publishingRoutes,
  ...insightPublishingRoutes,
  ...dashboardRoutes,
  ...keplerFileRoutes,
  ...recordRoutes,
  ...datasetRoutes,
  ...queryRoutes,
  ...tilesetRoutes,
  ...permissionRoutes,
  ...lockRequestRoutes,
  ...tagRoutes,
  ...legalRoutes,
  ...clientErrorRoutes,
  ...passwordResetRoutes,
  ...adminRoutes,
  ...uploadRoutes,
  ...mapAssetRoutes,
  ...dataConnectionRoutes,
  ...dataQueryRoutes,
  ...storageRoutes,
  ...dataProxyRoutes,
  ...projectRoutes,
  ...stateRoutes,
  ...analyticsRoutes,
  ...biRoutes,
  ...executionRoutes,
  ...gatewayRoutes,
  ...basemapRoutes,
  ...vectorTileRoutes,
  ...jobRoutes,
  ...datasetRefreshRoutes,
  ...sdkRoutes,
  ...searchRoutes,
  ...historyRoutes,
];
