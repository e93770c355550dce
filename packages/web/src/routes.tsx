import { lazyScreen } from './app/lazyScreen';
import { ANALYTIC_VIEWS } from './analytics/view-list';
import { Navigate, type RouteObject } from 'react-router-dom';
import { RequireUser, WorkspaceLayout } from './app/Layout';
import { LegalConsentGate } from './app/LegalConsentGate';
import { useUser } from './app/session';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage, SignInPage } from './pages/AuthPages';
import { NotFoundPage } from './pages/NotFound';
import { ErrorPage } from './pages/ErrorPage';
import { RecordList } from './list/RecordList';
import { COLLECTIONS } from './list/collections';
import { HomePage } from './home/HomePage';
import { MapPreviewRoute, MapRoute, PublicMapRoute, testBuildRoutes } from './map/routes';
import { DatasetDetailsRedirect, DatasetPage } from './datasets/DatasetPage';

// Screens past the workspace's lists and the dataset page load when first opened (app/lazyScreen.tsx).
const TagsPage = lazyScreen(() => import('./list/TagsPage').then((m) => m.TagsPage));
const OrganizationsPage = lazyScreen(() => import('./admin/AdminPages').then((m) => m.OrganizationsPage));
const RefusedConnectionsPage = lazyScreen(() => import('./admin/AdminPages').then((m) => m.RefusedConnectionsPage));
const AuditLogPage = lazyScreen(() => import('./admin/AuditLogPage').then((m) => m.AuditLogPage));
const InvitePage = lazyScreen(() => import('./admin/InvitePage').then((m) => m.InvitePage));
const PublishedMapsPage = lazyScreen(() => import('./admin/PublishedMapsPage').then((m) => m.PublishedMapsPage));
const OwnershipPage = lazyScreen(() => import('./admin/OwnershipPage').then((m) => m.OwnershipPage));
const QuotasPage = lazyScreen(() => import('./admin/QuotasPage').then((m) => m.QuotasPage));
const ClientErrorsPage = lazyScreen(() => import('./admin/ClientErrorsPage').then((m) => m.ClientErrorsPage));
const LegalPage = lazyScreen(() => import('./admin/LegalPage').then((m) => m.LegalPage));
const HistoryPage = lazyScreen(() => import('./admin/HistoryPage').then((m) => m.HistoryPage));
const PreviewRoute = lazyScreen(() => import('./dashboard/PreviewRoute').then((m) => m.PreviewRoute));
const JobsPage = lazyScreen(() => import('./jobs/JobsPage').then((m) => m.JobsPage));
const ConnectorPage = lazyScreen(() => import('./connectors/ConnectorPage').then((m) => m.ConnectorPage));
const NewConnectorPage = lazyScreen(() => import('./connectors/ConnectorPage').then((m) => m.NewConnectorPage));
const SavedQueryPage = lazyScreen(() => import('./sql/SqlPages').then((m) => m.SavedQueryPage));
const NewQueryPage = lazyScreen(() => import('./sql/SqlPages').then((m) => m.NewQueryPage));
const AnalyticsView = lazyScreen(() => import('./analytics/AnalyticsView').then((m) => m.AnalyticsView));
const DashboardPage = lazyScreen(() => import('./dashboard/DashboardPage').then((m) => m.DashboardPage));
const PublicDashboardPage = lazyScreen(() => import('./dashboard/PublicDashboardPage').then((m) => m.PublicDashboardPage));
const MapStyleEditorPage = lazyScreen(() => import('./map-assets/MapStyleEditor').then((m) => m.MapStyleEditorPage));
const PaletteEditorPage = lazyScreen(() => import('./map-assets/PaletteEditor').then((m) => m.PaletteEditorPage));
const WorkbookPage = lazyScreen(() => import('./workbook/WorkbookPage').then((m) => m.WorkbookPage));
const ApiKeysPage = lazyScreen(() => import('./account/ApiKeysPage').then((m) => m.ApiKeysPage));
const NewProjectPage = lazyScreen(() => import('./projects/ProjectPage').then((m) => m.NewProjectPage));
const ProjectPage = lazyScreen(() => import('./projects/ProjectPage').then((m) => m.ProjectPage));
const SearchPage = lazyScreen(() => import('./search/SearchPage').then((m) => m.SearchPage));
const UsersPage = lazyScreen(() => import('./admin/UsersPage').then((m) => m.UsersPage));
const AccountPage = lazyScreen(() => import('./account/AccountPage').then((m) => m.AccountPage));

function RequireAdmin({ children }: { children: JSX.Element }) {
  const user = useUser();
  if (!user.isAdmin)
    return (
      <section className="page message-page">
        <h1>Administrators only</h1>
        <p className="lead">This page is for studio administrators.</p>
      </section>
    );
  return children;
}


/**
 * The route table of the whole app, in one place. A screen is routed once it is built: no route leads to
 * a placeholder.
 */
export const routes: RouteObject[] = [
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/accept-invitation', element: <AcceptInvitationPage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  {
    path: '/public/:id',
    element: <PublicMapRoute />,
  },
  { path: '/public/dashboard/:id', element: <PublicDashboardPage kind="insight" /> },
  { path: '/public/report/:id', element: <PublicDashboardPage kind="report" /> },
  {
    path: '/',
    element: (
      <RequireUser>
        <LegalConsentGate>
          <WorkspaceLayout />
        </LegalConsentGate>
      </RequireUser>
    ),
    errorElement: <ErrorPage />,
    children: [
      { index: true, element: <Navigate to="/workspace/maps" replace /> },
      {
        path: 'workspace',
        children: [
          { index: true, element: <HomePage /> },
          ...COLLECTIONS.map((c) => ({ path: c.slug, element: <RecordList key={c.slug} config={c} /> })),
          { path: 'datasets/:id', element: <DatasetPage /> },
          { path: 'search', element: <SearchPage /> },
          { path: 'tags', element: <TagsPage /> },
          { path: 'projects/new', element: <NewProjectPage /> },
          { path: 'projects/:id', element: <ProjectPage /> },
          { path: 'jobs', element: <JobsPage /> },
          { path: 'account', element: <AccountPage /> },
          { path: 'account/api-keys', element: <ApiKeysPage /> },
          { path: 'connectors/new', element: <NewConnectorPage /> },
          { path: 'connectors/:id', element: <ConnectorPage /> },
          { path: 'queries/new', element: <NewQueryPage /> },
          { path: 'queries/:id', element: <SavedQueryPage /> },
          { path: 'basemaps/new', element: <MapStyleEditorPage key="new" /> },
          { path: 'basemaps/:id', element: <MapStyleEditorPage key="saved" /> },
          { path: 'colors/new', element: <PaletteEditorPage key="new" /> },
          { path: 'colors/:id', element: <PaletteEditorPage key="saved" /> },
          // analytics-and-admin §2 links datasets as {datasets base}/details/{id}: the same page.
          { path: 'datasets/details/:id', element: <DatasetDetailsRedirect /> },
          { path: 'admin/organizations', element: <RequireAdmin><OrganizationsPage /></RequireAdmin> },
          { path: 'admin/users', element: <RequireAdmin><UsersPage /></RequireAdmin> },
          { path: 'admin/invite', element: <RequireAdmin><InvitePage /></RequireAdmin> },
          { path: 'admin/audit-log', element: <RequireAdmin><AuditLogPage /></RequireAdmin> },
          { path: 'admin/published-maps', element: <RequireAdmin><PublishedMapsPage /></RequireAdmin> },
          { path: 'admin/ownership', element: <RequireAdmin><OwnershipPage /></RequireAdmin> },
          { path: 'admin/quotas', element: <RequireAdmin><QuotasPage /></RequireAdmin> },
          { path: 'admin/refused-connections', element: <RequireAdmin><RefusedConnectionsPage /></RequireAdmin> },
          { path: 'admin/client-errors', element: <RequireAdmin><ClientErrorsPage /></RequireAdmin> },
          { path: 'admin/legal', element: <RequireAdmin><LegalPage /></RequireAdmin> },
          { path: 'admin/history', element: <RequireAdmin><HistoryPage /></RequireAdmin> },
        ],
      },
      { path: 'new', element: <MapRoute /> },
      ...testBuildRoutes,
      { path: 'dashboard/new', element: <DashboardPage key="new" /> },
      { path: 'dashboard/:id', element: <DashboardPage key="saved" /> },
      { path: 'workbook/new', element: <WorkbookPage key="new" /> },
      { path: 'workbook/:id', element: <WorkbookPage key="saved" /> },
      { path: 'preview/:id', element: <PreviewRoute /> },
      { path: 'analytics/foot-traffic', element: <Navigate to={`/analytics/foot-traffic/${ANALYTIC_VIEWS[0]!.slug}`} replace /> },
      ...ANALYTIC_VIEWS.map((v) => ({ path: `analytics/foot-traffic/${v.slug}`, element: <AnalyticsView key={v.slug} viewId={v.slug} /> })),
      { path: ':mapId', element: <MapRoute /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
