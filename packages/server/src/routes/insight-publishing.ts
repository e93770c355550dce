import { z } from 'zod';
import {
  Id,
  PUBLICATION_GRANT_HEADER,
  PUBLICATION_PASSWORD_HEADER,
  Publication,
  PublicationGrant,
  PublicationInfo,
  QueryBool,
  SPREADSHEET_SUMMARY,
  StudioError,
  UploadOptions,
  WidgetBatchBody,
  WidgetRunBody,
  itemOf,
  itemsOf,
  notFound,
  type PublicationKind,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ReaderKey } from '../services/dashboards/publications';
import { canReadRecord, header } from '../http/publication-access';
import { parameterOf, widgetOf } from '../services/dashboards/widgets';
import { PARAMETER_VALUES_ANSWER, WIDGET_BATCH_ANSWER, WIDGET_ROWS_ANSWER, WidgetFormat, answerWidget, answerWidgets, ownerOf } from '../http/dashboard-answers';
import type { Caller } from '../http/caller';
import { sendInvitations } from '../services/dashboards/invitations';

/**
 * Published insights (catalog §7 Insights, the maps' pattern) and reports (catalog §7 Reports). A
 * publication is a snapshot of a dashboard; anyone with its link reads it without signing in (a
 * password, when set, is asked of callers who cannot read the dashboard itself) and runs only the
 * snapshot's widget queries, under the dashboard owner's access, over the datasets the snapshot names.
 */
const IdParam = z.object({ id: Id });
const PasswordBody = z.object({ password: z.string().min(1).max(200) });
/** What {x} of POST /v1/insights/{id}/publish/{x} may be: `insight` snapshots the dashboard's saved state. */
export const INSIGHT_PUBLISH_KINDS = ['insight'] as const;

type Ctx = RouteContext<unknown, unknown, unknown>;

/** The reader's way in: read access to the dashboard itself, a grant, or the password (throttled per address). */
const readerKey = (ctx: Ctx) => async (insightId: string): Promise<ReaderKey> => ({
  canBypass: await canReadRecord(ctx, insightId, 'insight'),
  password: header(ctx, PUBLICATION_PASSWORD_HEADER),
  grant: header(ctx, PUBLICATION_GRANT_HEADER),
  address: ctx.req.ip,
});

const opened = (ctx: Ctx, id: string, kind: PublicationKind, countView: boolean): Promise<Publication> =>
  ctx.services.publications.open(id, kind, readerKey(ctx), countView);

/**
 * Whose access a publication's queries run under (the dashboard owner's), after checking that the
 * snapshot lets its readers reach `datasetId` (a report may leave some of the dashboard's datasets out).
 */
async function publishedGrantee(ctx: Ctx, pub: Publication, datasetId: string | null) {
  assertInSnapshot(pub, datasetId);
  return publicationOwner(ctx, pub);
}

/** A report may leave some of the dashboard's datasets out: what reads them answers 404. */
function assertInSnapshot(pub: Publication, datasetId: string | null | undefined): void {
  if (datasetId && !pub.datasetIds.includes(datasetId)) throw notFound('Dataset not found');
}

async function publicationOwner(ctx: Ctx, pub: Publication): Promise<Caller> {
  const insight = await ctx.services.records.get(pub.insightId);
  if (!insight) throw notFound('Published insight not found');
  return ownerOf(ctx, insight.owner_id);
}

/** The insight behind a report, for calls that change the report: the caller must be able to share it. */
async function reportInsight(ctx: Ctx, reportId: string) {
  const info = await ctx.services.publications.info(reportId, 'report');
  if (!info) throw notFound('Report not found');
  const { resource } = await ctx.services.access.guard(requireCaller(ctx), 'insight', info.insightId, 'share', ctx.adminMode);
  return { info, insight: resource };
}

/** Published insights are public by choice and may be embedded; reports go to invited readers only. */
const embeddableIf = (kind: PublicationKind): true | undefined => (kind === 'insight' ? true : undefined);

/** A publication's widget rows and parameter choices, for readers without an account. */
function readerRoutes(kind: PublicationKind, base: string, tag: string): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      url: `${base}/widgets/query`,
      embeddable: embeddableIf(kind),
      summary: `Rows of several widgets of the ${kind} at once (no sign-in; the grant when protected): body {parameters, crossFilters, widgets: [{id, page, sort}]}; answers NDJSON lines {index, widgetId, item | error} as each widget is ready`,
      tag,
      auth: 'public',
      transaction: false,
      params: IdParam,
      body: WidgetBatchBody,
      ...WIDGET_BATCH_ANSWER,
      handler: async (ctx) => {
        const generic = ctx as Ctx;
        const pub = await opened(generic, ctx.params.id, kind, false);
        let owner: Promise<Caller> | undefined;
        return answerWidgets(generic, pub.latestState, ctx.body, async (widget) => {
          assertInSnapshot(pub, widget.query?.datasetId);
          return (owner ??= publicationOwner(generic, pub));
        });
      },
    }),
    defineRoute({
      method: 'POST',
      url: `${base}/widgets/{widgetId}/query`,
      embeddable: embeddableIf(kind),
      summary: `Rows of one widget of the ${kind} (no sign-in; the password's grant in ${PUBLICATION_GRANT_HEADER} when protected): the snapshot's query with the given parameter values and cross-filters; format=csv downloads up to 1M rows. ${SPREADSHEET_SUMMARY}`,
      tag,
      auth: 'public',
      transaction: false,
      params: z.object({ id: Id, widgetId: z.string().max(64) }),
      query: WidgetFormat,
      body: WidgetRunBody,
      ...WIDGET_ROWS_ANSWER,
      handler: async (ctx) => {
        const generic = ctx as Ctx;
        const pub = await opened(generic, ctx.params.id, kind, false);
        const widget = widgetOf(pub.latestState, ctx.params.widgetId);
        const grantee = await publishedGrantee(generic, pub, widget.query?.datasetId ?? null);
        return answerWidget(generic, grantee, pub.latestState, widget, ctx.body, ctx.query.format, ctx.query.spreadsheet);
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${base}/parameters/{parameterId}/values`,
      embeddable: embeddableIf(kind),
      summary: `The choices of one parameter of the ${kind} (no sign-in; the grant when protected)`,
      tag,
      auth: 'public',
      params: z.object({ id: Id, parameterId: z.string().max(64) }),
      query: z.object({ search: z.string().max(200).optional() }),
      ...PARAMETER_VALUES_ANSWER,
      handler: async (ctx) => {
        const generic = ctx as Ctx;
        const pub = await opened(generic, ctx.params.id, kind, false);
        const p = parameterOf(pub.latestState, ctx.params.parameterId);
        const grantee = await publishedGrantee(generic, pub, p.source.kind === 'STATIC' ? null : p.source.datasetId);
        return { items: await ctx.services.widgets.parameterValues(grantee, p, ctx.query.search) };
      },
    }),
  ];
}

/** The publication for its password (403 when wrong, 429 while wrong attempts back off), with a grant for later calls. */
function passwordRoute(kind: PublicationKind, url: string, tag: string, spec: string[]): RouteDef {
  return defineRoute({
    spec,
    method: 'POST',
    url,
    summary: `The ${kind} when the password matches (403 otherwise), and a grant {token, expiresAt} later calls send in ${PUBLICATION_GRANT_HEADER}. Wrong passwords back off per address (429 with Retry-After)`,
    tag,
    auth: 'public',
    params: IdParam,
    body: PasswordBody,
    rateLimit: 'publishedPassword',
    response: itemOf(Publication).extend({ grant: PublicationGrant.nullable() }),
    handler: async (ctx) => {
      const { publication, grant } = await ctx.services.publications.unlock(ctx.params.id, kind, ctx.body.password, ctx.req.ip);
      return { item: publication, grant };
    },
  });
}

export const insightPublishingRoutes: RouteDef[] = [
  defineRoute({
    spec: ['CAT-147'],
    method: 'GET',
    url: '/v1/insights/published',
    summary: "Publications of the caller's insights",
    tag: 'insights',
    auth: 'user',
    response: itemsOf(PublicationInfo),
    handler: async (ctx) => {
      const items = await ctx.services.publications.ofOwner(requireCaller(ctx).user.id, 'insight');
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-150'],
    method: 'GET',
    url: '/v1/insights/published/list',
    summary: 'Publication info (no state) of the insights named in insights=id,id,…; insights not published are left out',
    tag: 'insights',
    auth: 'user',
    query: z.object({ insights: z.string().max(40_000).default('') }),
    response: itemsOf(PublicationInfo),
    handler: async (ctx) => {
      const wanted = ctx.query.insights.split(',').map((s) => s.trim()).filter(Boolean);
      if (wanted.some((w) => !Id.safeParse(w).success)) throw new StudioError(422, 'Invalid query parameters: insights must be insight ids separated by commas');
      const items = await ctx.services.publications.infos(wanted.slice(0, 500));
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-148'],
    method: 'GET',
    url: '/v1/insights/{id}/published-insight',
    embeddable: true,
    summary: `The published insight, without signing in. infoOnly=true: the info without state (never asks the password). A protected one answers 401 with details passwordRequired unless the caller can read the insight or sends a grant in ${PUBLICATION_GRANT_HEADER}`,
    tag: 'insights',
    auth: 'public',
    params: IdParam,
    query: z.object({ infoOnly: QueryBool.optional() }),
    // infoOnly=true: the info without the state.
    response: itemOf(z.union([Publication, PublicationInfo])),
    handler: async (ctx) => {
      if (ctx.query.infoOnly) {
        const item = await ctx.services.publications.info(ctx.params.id, 'insight');
        if (!item) throw notFound('Published insight not found');
        return { item };
      }
      return { item: await opened(ctx as Ctx, ctx.params.id, 'insight', true) };
    },
  }),
  passwordRoute('insight', '/v1/insights/{id}/published-insight/password', 'insights', ['CAT-149']),
  defineRoute({
    spec: ['CAT-151'],
    method: 'POST',
    url: '/v1/insights/{id}/publish/resources',
    summary: 'Publish the insight with upload options {password, title, description}: snapshots its saved state and the datasets its widgets read',
    tag: 'insights',
    auth: 'user',
    params: IdParam,
    body: z.object({ uploadOptions: UploadOptions.default({}) }).strict(),
    resource: { type: 'insight', param: 'id', action: 'share' },
    status: 201,
    response: itemOf(PublicationInfo),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const o = ctx.body.uploadOptions;
      if (o.insightId && o.insightId !== ctx.resource!.id) throw new StudioError(422, 'uploadOptions.insightId names another insight than the path');
      const item = await ctx.services.publications.publish(ctx.resource!, 'insight', caller.user.id, o);
      await ctx.services.audit.record(caller, 'insight.publish', 'insight', ctx.resource!.id, { passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-152'],
    method: 'POST',
    url: '/v1/insights/{id}/publish/{x}',
    summary: `Publish the insight: x=${INSIGHT_PUBLISH_KINDS.join('|')} snapshots its saved state. Body {password?}: a string sets it, null removes it, absent keeps it`,
    tag: 'insights',
    auth: 'user',
    params: z.object({ id: Id, x: z.string().max(50) }),
    body: z.object({ password: z.string().max(200).nullable().optional() }).strict().optional(),
    resource: { type: 'insight', param: 'id', action: 'share' },
    status: 201,
    response: itemOf(PublicationInfo),
    handler: async (ctx) => {
      if (!(INSIGHT_PUBLISH_KINDS as readonly string[]).includes(ctx.params.x)) throw new StudioError(422, `Unknown publication kind: ${ctx.params.x}`, `One of: ${INSIGHT_PUBLISH_KINDS.join(', ')}`);
      const caller = requireCaller(ctx);
      const item = await ctx.services.publications.publish(ctx.resource!, 'insight', caller.user.id, { password: ctx.body?.password });
      await ctx.services.audit.record(caller, 'insight.publish', 'insight', ctx.resource!.id, { passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-153'],
    method: 'DELETE',
    url: '/v1/insights/{id}/unpublish',
    summary: 'Withdraw the publication of the insight',
    tag: 'insights',
    auth: 'user',
    params: IdParam,
    resource: { type: 'insight', param: 'id', action: 'share' },
    status: 204,
    handler: async (ctx) => {
      if (!(await ctx.services.publications.unpublish(ctx.resource!.id))) throw notFound('Published insight not found');
      await ctx.services.audit.record(ctx.caller, 'insight.unpublish', 'insight', ctx.resource!.id);
      return undefined;
    },
  }),
  ...readerRoutes('insight', '/v1/insights/{id}/published-insight', 'insights'),

  // --- reports -------------------------------------------------------------------------------
  defineRoute({
    spec: ['CAT-168'],
    method: 'POST',
    url: '/v1/reports/published/resources',
    summary: 'Send a dashboard as a report: body {datasets (ids among those it reads; default all), uploadOptions {insightId, password, title, description}}; a new snapshot with its own id each time',
    tag: 'reports',
    auth: 'user',
    body: z.object({ datasets: z.array(Id).max(1024).optional(), uploadOptions: UploadOptions }).strict(),
    status: 201,
    response: itemOf(PublicationInfo),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { insightId, ...options } = ctx.body.uploadOptions;
      if (!insightId) throw new StudioError(422, 'uploadOptions.insightId is required: the dashboard to report');
      const { resource } = await ctx.services.access.guard(caller, 'insight', insightId, 'share', ctx.adminMode);
      const item = await ctx.services.publications.publish(resource, 'report', caller.user.id, { ...options, datasets: ctx.body.datasets });
      await ctx.services.audit.record(caller, 'report.publish', 'insight', insightId, { reportId: item.id, passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-167'],
    method: 'GET',
    url: '/v1/reports/published/{id}',
    summary: `A report, without signing in; a protected one answers 401 with details passwordRequired unless the caller can read its dashboard or sends a grant in ${PUBLICATION_GRANT_HEADER} (or the password in ${PUBLICATION_PASSWORD_HEADER})`,
    tag: 'reports',
    auth: 'public',
    params: IdParam,
    response: itemOf(Publication),
    handler: async (ctx) => ({ item: await opened(ctx as Ctx, ctx.params.id, 'report', true) }),
  }),
  passwordRoute('report', '/v1/reports/published/{id}/password', 'reports', []),
  defineRoute({
    spec: ['CAT-169'],
    method: 'POST',
    url: '/v1/reports/published/{id}',
    summary: "Update a report: re-snapshots its dashboard's current state; body {datasets, uploadOptions {password, title, description}} (absent fields are kept)",
    tag: 'reports',
    auth: 'user',
    params: IdParam,
    body: z.object({ datasets: z.array(Id).max(1024).optional(), uploadOptions: UploadOptions.default({}) }).strict(),
    response: itemOf(PublicationInfo),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { info, insight } = await reportInsight(ctx as Ctx, ctx.params.id);
      const { insightId, ...options } = ctx.body.uploadOptions;
      if (insightId && insightId !== info.insightId) throw new StudioError(422, "A report's dashboard cannot change: send a new report instead");
      const item = await ctx.services.publications.update(info, insight, caller.user.id, { ...options, datasets: ctx.body.datasets });
      await ctx.services.audit.record(caller, 'report.update', 'insight', info.insightId, { reportId: item.id });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-170'],
    method: 'POST',
    url: '/v1/reports/published/{id}/invite',
    summary: "Invite readers to a report: body {emails, description}. With SMTP_URL set each address is mailed the report's link; without, the answer carries the links for the inviter to pass on",
    tag: 'reports',
    auth: 'user',
    params: IdParam,
    body: z.object({ emails: z.array(z.string().trim().toLowerCase().email().max(320)).min(1).max(100), description: z.string().max(5000).default('') }).strict(),
    response: z.object({ items: z.array(z.object({ email: z.string(), url: z.string(), sent: z.boolean() })) }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { info } = await reportInsight(ctx as Ctx, ctx.params.id);
      const emails = [...new Set(ctx.body.emails)];
      await ctx.services.publications.invite(info.id, emails, ctx.body.description, caller.user.id);
      const items = await sendInvitations(ctx.services.config, { report: info, emails, description: ctx.body.description, from: caller.user });
      await ctx.services.audit.record(caller, 'report.invite', 'insight', info.insightId, { reportId: info.id, emails });
      return { items };
    },
  }),
  ...readerRoutes('report', '/v1/reports/published/{id}', 'reports'),
];
