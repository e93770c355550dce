import { ANALYTIC_VIEWS } from './analytics/view-list';
import { TagsPage } from './list/TagsPage';
import { Navigate, type RouteObject } from 'react-router-dom';
import { RequireUser, WorkspaceLayout } from './app/Layout';
import { LegalConsentGate } from './app/LegalConsentGate';
import { useUser } from './app/session';
import { AcceptInvitationPage, ForgotPasswordPage, ResetPasswordPage, SignInPage } from './pages/AuthPages';
import { NotFoundPage } from './pages/NotFound';
import { ErrorPage } from './pages/ErrorPage';
import { RecordList } from './list/RecordList';
import { COLLECTIONS } from './list/collections';
import { OrganizationsPage, RefusedConnectionsPage } from './admin/AdminPages';
import { AuditLogPage } from './admin/AuditLogPage';
import { InvitePage } from './admin/InvitePage';
import { HomePage } from './home/HomePage';
import { PublishedMapsPage } from './admin/PublishedMapsPage';
import { OwnershipPage } from './admin/OwnershipPage';
import { QuotasPage } from './admin/QuotasPage';
import { ClientErrorsPage } from './admin/ClientErrorsPage';
import { LegalPage } from './admin/LegalPage';
import { BaselineCsvRoute, MapPreviewRoute, MapRoute, PublicMapRoute } from './map/routes';
import { PreviewRoute } from './dashboard/PreviewRoute';
import { DatasetDetailsRedirect, DatasetPage } from './datasets/DatasetPage';
import { JobsPage } from './jobs/JobsPage';
import { ConnectorPage, NewConnectorPage, SavedQueryPage } from './connectors/ConnectorPage';
import { AnalyticsView } from './analytics/AnalyticsView';
import { DashboardPage } from './dashboard/DashboardPage';
import { PublicDashboardPage } from './dashboard/PublicDashboardPage';
import { MapStyleEditorPage } from './map-assets/MapStyleEditor';
import { PaletteEditorPage } from './map-assets/PaletteEditor';
import { WorkbookPage } from './workbook/WorkbookPage';
import { ApiKeysPage } from './account/ApiKeysPage';
import { NewProjectPage, ProjectPage } from './projects/ProjectPage';
import { SearchPage } from './search/SearchPage';
import { UsersPage } from './admin/UsersPage';
import { AccountPage } from './account/AccountPage';

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
        ],
      },
      { path: 'new', element: <MapRoute /> },
      { path: 'bench/kepler-csv/:mapId', element: <BaselineCsvRoute /> },
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
