import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { embeddableResource } from './security-headers';
import { normalizeIP } from '@fastify/rate-limit';
import { z } from 'zod';
import { PUBLICATION_GRANT_HEADER, PUBLICATION_PASSWORD_HEADER, StudioError, badInput, unauthorized, type Access, type AuthMode, type Contract, type HttpMethod, type ResourceGuard, type ResourceType } from '@studio/schema';
import { MAP_GRANT_HEADER, MAP_PASSWORD_HEADER } from '../services/publishing';
import type { Selectable } from 'kysely';
import type { ResourcesTable } from '../store/tables';
import { assertReaches, type Caller } from './caller';
import type { Services } from '../services';
import { zodMessage } from './errors';
import { TooManyRequests, type RouteLimitName } from '../services/rate-limits';
import { assertStorableText } from './text-check';
import { jsonTooDeep, tooDeep } from '@studio/engine';
import { answerSerializationSchema } from './answer-schema';

/** Route tags whose writes change who a caller is or what they may do. */
const IDENTITY_TAGS = new Set(['users', 'admin', 'api-keys', 'auth']);

export type { AuthMode, HttpMethod, ResourceGuard };

export interface RouteContext<P, Q, B> {
  req: FastifyRequest;
  reply: FastifyReply;
  caller: Caller | null;
  params: P;
  query: Q;
  body: B;
  /** Present when the route has a resource guard: the row and the caller's access to it. */
  resource: Selectable<ResourcesTable> | null;
  access: Access;
  adminMode: boolean;
  services: Services;
}

/** Caller is non-null on every route but `public` ones; this narrows it for handlers. */
export function requireCaller(ctx: { caller: Caller | null }): Caller {
  if (!ctx.caller) throw unauthorized();
  return ctx.caller;
}

/** A route: its call's declaration (the contract fields, packages/schema/src/api/contract.ts) and how the server runs it. */
export interface RouteDef<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> extends Contract<P, Q, B> {
  /**
   * Calls allowed per caller (the user when signed in, else the address) in a window, from
   * `config.rateLimits.routes`; beyond it 429 with Retry-After. Counted after authentication.
   */
  rateLimit?: RouteLimitName;
  /**
   * Default: every write (not GET, not a raw body) runs in one unit of work, so its writes and its audit
   * record commit together or not at all (store/unit-of-work.ts). `false` for handlers that spend their
   * time outside the catalog (DuckDB, scrypt, the network) or whose progress others must see while they
   * run (an ingestion's pending state): they group their writes with `atomically` themselves.
   */
  transaction?: false;
  /**
   * Published content another site may embed (published maps and insights, their tiles, the basemaps):
   * answered to any origin (CORS `*`, no cookies are involved: callers send grants in headers), with a
   * preflight that allows the grant and password headers. A protected map still needs its grant.
   */
  embeddable?: true;
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>;
  /** Built from a contract: Fastify writes the JSON answer from its schema (fields it does not declare are left out). */
  serializeAnswer?: boolean;
}

/** What the server adds to a call's contract (packages/schema/src/api/): how it is answered and run. */
export interface RouteImpl<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends Pick<RouteDef, 'rateLimit' | 'transaction' | 'embeddable'> {
  /** The answer as the contract's response accepts it, or the handler's own (a reply it sent, a stream, bytes). */
  handler: (ctx: RouteContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<HandlerAnswer<R>>;
}
type OwnAnswer = FastifyReply | Buffer | NodeJS.ReadableStream | undefined;
type HandlerAnswer<R extends z.ZodType> = [R] extends [z.ZodNever] ? unknown : z.input<R> | OwnAnswer;

/**
 * A route: a call's contract and its handler (`defineRoute(tagCalls.update, { handler })`), or (routes not
 * moved to a contract yet) the whole declaration inline.
 */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(contract: Contract<P, Q, B, R>, impl: RouteImpl<P, Q, B, R>): RouteDef;
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef;
export function defineRoute(def: Contract | RouteDef, impl?: RouteImpl<z.ZodType, z.ZodType, z.ZodType, z.ZodType>): RouteDef {
  if (!impl) return def as RouteDef;
  return { ...def, ...impl, serializeAnswer: true } as RouteDef;
}

const empty = z.object({}).passthrough();

function parse(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  assertStorableText(value, where);
  const result = (schema ?? empty).safeParse(value ?? {});
  if (!result.success) throw new StudioError(422, `Invalid ${where}: ${zodMessage(result.error)}`);
  return result.data;
}

/** Registers every route with one pipeline: authenticate, validate, authorize, handle. */
export function registerRoutes(app: FastifyInstance, routes: RouteDef[], services: Services): void {
  const parsed = routes.filter((r) => !r.rawBody);
  const raw = routes.filter((r) => r.rawBody);
  addRoutes(app, parsed, services);
  // Raw-body routes live in their own context where no parser runs: whatever the content type (JSON
  // included), the handler gets the request stream, so uploads never buffer in memory.
  app.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    addRoutes(child, raw, services);
  });
}

/** A raw-body route's whole body, refused past `maxBytes` (413) before reading on; null when there is no stream. */
export async function readBodyBytes(stream: unknown, maxBytes: number): Promise<Buffer | null> {
  if (!stream || typeof (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== 'function') return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new StudioError(413, 'Request body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads a small JSON body from a raw-body route's stream (e.g. a thumbnail policy request). */
export async function readJsonBody(stream: unknown, maxBytes = 64 * 1024): Promise<unknown> {
  const bytes = await readBodyBytes(stream, maxBytes);
  if (bytes === null) return undefined;
  if (jsonTooDeep(bytes)) throw badInput(tooDeep());
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new StudioError(422, 'Invalid request: the body is not valid JSON');
  }
  assertStorableText(value, 'request body');
  return value;
}

/** A route's per-caller limit, checked once the caller is known (the plugin's own hooks run before that). */
function routeLimiter(app: FastifyInstance, def: RouteDef, services: Services) {
  if (!def.rateLimit) return null;
  const { max, windowMs } = services.config.rateLimits.routes[def.rateLimit];
  const keys = new WeakMap<FastifyRequest, string>();
  const route = `${def.method} ${def.url}`;
  const limiter = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: (req) => `${route}|${keys.get(req)}` });
  return async (req: FastifyRequest, caller: Caller | null) => {
    keys.set(req, caller ? `user:${caller.user.id}` : `ip:${normalizeIP(req.ip)}`);
    const r = await limiter(req);
    if (!r.isAllowed && r.isExceeded) throw new TooManyRequests(r.ttl, 'Too many requests');
  };
}

/** Headers a page on another origin may send to embeddable routes: content type and the publication grants. */
const EMBED_REQUEST_HEADERS = ['content-type', MAP_GRANT_HEADER, MAP_PASSWORD_HEADER, PUBLICATION_GRANT_HEADER, PUBLICATION_PASSWORD_HEADER].join(', ');

/** CORS for embeddable routes: any origin reads the answer, and its request id and back-off. */
function allowEmbedding(reply: FastifyReply): void {
  embeddableResource(reply);
  reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'x-request-id, retry-after');
}

function addRoutes(app: FastifyInstance, routes: RouteDef[], services: Services): void {
  // One preflight answer per embeddable path, whatever methods it has.
  const preflights = new Map<string, Set<string>>();
  for (const def of routes.filter((r) => r.embeddable)) {
    const url = def.url.replace(/\{(\w+)\}/g, ':$1');
    preflights.set(url, (preflights.get(url) ?? new Set()).add(def.method));
  }
  for (const [url, methods] of preflights) {
    app.options(url, async (_req, reply) => {
      allowEmbedding(reply);
      return reply
        .code(204)
        .header('access-control-allow-methods', [...methods, 'OPTIONS'].join(', '))
        .header('access-control-allow-headers', EMBED_REQUEST_HEADERS)
        .header('access-control-max-age', '600')
        .send();
    });
  }
  for (const def of routes) {
    const limit = routeLimiter(app, def, services);
    app.route({
      method: def.method,
      url: def.url.replace(/\{(\w+)\}/g, ':$1'),
      ...(def.serializeAnswer && def.response && def.status !== 204 && { schema: { response: { [String(def.status ?? 200)]: answerSerializationSchema(def.response) } } }),
      handler: async (req, reply) => {
        if (def.embeddable) allowEmbedding(reply);
        try {
          return await handle(def, limit, services, req, reply);
        } catch (e) {
          if (e instanceof TooManyRequests) reply.header('retry-after', String(e.retryAfterSeconds));
          throw e;
        }
      },
    });
  }
}

/** One call: authenticate, limit, validate, authorize, handle. */
async function handle(def: RouteDef, limit: ReturnType<typeof routeLimiter>, services: Services, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const caller = await services.auth.authenticate(req.headers.authorization);
  assertReaches(caller, def.url);
  if (def.auth !== 'public' && !caller) throw unauthorized();
  if (def.auth === 'admin' && !caller?.isAdmin) throw new StudioError(403, 'Administrators only');
  await limit?.(req, caller);
  const params = parse(def.params, req.params, 'path parameters') as Record<string, unknown>;
  const adminMode = Boolean(caller?.isAdmin) && String((req.query as Record<string, unknown>)?.isAdmin) === 'true';
  let resource: Selectable<ResourcesTable> | null = null;
  let access: Access = 'none';
  // Authorize before reading query and body: a caller without access learns nothing from a 422.
  if (def.resource) {
    const guard = def.resource;
    const type = typeof guard.type === 'string' ? guard.type : (params[guard.type.param] as ResourceType);
    const id = params[guard.param] as string;
    ({ resource, access } = guard.reuse
      ? await services.access.guardReused(caller, type, id, guard.action, adminMode)
      : await services.access.guard(caller, type, id, guard.action, adminMode));
  }
  const query = parse(def.query, req.query, 'query parameters') as Record<string, unknown>;
  const body = def.rawBody ? req.body : parse(def.body, req.body, 'request body');
  const context = { req, reply, caller, params, query, body, resource, access, adminMode, services };
  const inUnit = def.method !== 'GET' && !def.rawBody && def.transaction !== false;
  const result = inUnit ? await services.units.run(() => def.handler(context)) : await def.handler(context);
  // Writes to identity (users, memberships, keys, admin rights) must not be hidden by cached credentials.
  if (def.method !== 'GET' && IDENTITY_TAGS.has(def.tag)) services.auth.forget();
  if (services.config.checkAnswers) checkAnswer(def, result, reply);
  if (reply.sent) return reply;
  if (result === undefined) return reply.code(def.status === 200 || !def.status ? 204 : def.status).send();
  if (def.status && reply.statusCode === 200) reply.code(def.status);
  return result;
}

type AnswerDeclaration = Pick<RouteDef, 'method' | 'url' | 'response' | 'produces' | 'status'>;

/** Whether a route says what it answers: JSON (`response`), another media type (`produces`), or nothing (204). */
export const declaresAnswer = (def: AnswerDeclaration): boolean => Boolean(def.response || def.produces?.length || def.status === 204);

/** A handler's own answer (a reply it sent, a stream, a buffer) rather than a value to serialize as JSON. */
const isOwnAnswer = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && (Buffer.isBuffer(result) || typeof (result as { pipe?: unknown }).pipe === 'function' || 'sent' in result);

/**
 * With STUDIO_CHECK_ANSWERS=on (config.checkAnswers; the test suites set it) every answer is checked against its
 * route's declaration (the JSON schema, the media types, or nothing for a 204), and one outside it fails the call.
 * What the OpenAPI document says of the answers is then what the whole API suite saw them be, not a comment that drifts.
 */
export function checkAnswer(def: AnswerDeclaration, result: unknown, reply?: FastifyReply): void {
  const where = `${def.method} ${def.url}`;
  const status = reply?.statusCode ?? 200;
  // Redirects, 304s and answers the handler chose to fail (a 503 of readiness) are not the declared success.
  if (status < 200 || status >= 300) return;
  if (def.status === 204 && result !== undefined && !reply?.sent) throw new Error(`${where} is declared to answer nothing (204) but answered a value`);
  if (def.produces && reply && isOwnAnswer(result)) {
    // Fastify sends a buffer or stream without a type as application/octet-stream.
    const type = String(reply.getHeader('content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
    if (status !== 204 && !def.produces.includes(type)) throw new Error(`${where} answered ${type}, not one of its declared ${def.produces.join(', ')}`);
    return;
  }
  if (result === null || typeof result !== 'object' || isOwnAnswer(result)) return;
  if (!def.response) {
    if (def.produces && !def.produces.includes('application/json')) throw new Error(`${where} answered JSON, not one of its declared ${def.produces.join(', ')}`);
    return;
  }
  const checked = def.response.safeParse(result);
  if (!checked.success) throw new Error(`${where} answered outside its declared response: ${z.prettifyError(checked.error)}`);
}
