import type { z } from 'zod';
import type { Action } from '../permissions';
import type { ResourceType } from '../records';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * Who may call a route at all. `public`: anyone; `user`: any signed-in caller; `admin`: administrators.
 * Finer checks on one resource go through `resource`, so that every call states its rule in its contract
 * and the permission matrix test can read it.
 */
export type AuthMode = 'public' | 'user' | 'admin';

export interface ResourceGuard {
  /** The resource kind, fixed or read from the path (e.g. /v1/permissions/{resourceType}/{id}). */
  type: ResourceType | { param: string };
  /** The path parameter holding the resource id. */
  param: string;
  action: Action;
  /** Hot reads (tiles): a granted check is reused for STUDIO_AUTH_CACHE_MS per credential and resource. */
  reuse?: boolean;
}

/**
 * One call of the API, declared once: the server validates with it and serializes its answer from it, the
 * OpenAPI document is generated from it, and the typed client derives its request and answer types from it.
 */
export interface Contract<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  /** Row ids of ../shared/spec/endpoints.tsv this call answers. */
  spec?: string[];
  method: HttpMethod;
  /** The path with `{name}` parameters, e.g. /v1/tags/{id}. */
  url: string;
  summary: string;
  tag: string;
  auth: AuthMode;
  resource?: ResourceGuard;
  params?: P;
  query?: Q;
  body?: B;
  /** The body is the raw request stream (uploads); `body` validation is skipped. */
  rawBody?: boolean;
  /** The JSON answer: the server writes only its fields. Every call declares its answer: this, `produces`, or `status: 204`. */
  response?: R;
  /** Media types of an answer that is not JSON (tiles, images, exports), without parameters. */
  produces?: readonly string[];
  /** Status of a successful answer; 204: the call answers nothing. */
  status?: number;
}

/** Declares a call; the literal types are kept so the server's handler and the client's call are typed by it. */
export const contract = <P extends z.ZodType = z.ZodNever, Q extends z.ZodType = z.ZodNever, B extends z.ZodType = z.ZodNever, R extends z.ZodType = z.ZodNever>(
  c: Contract<P, Q, B, R>,
): Contract<P, Q, B, R> => c;

type Field<S, Name extends string, IO extends 'in' | 'out'> = [S] extends [z.ZodNever] ? {} : S extends z.ZodType ? { [K in Name]: IO extends 'in' ? z.input<S> : z.output<S> } : {};

/** What a client sends for a call: its path parameters, query and body, each as the schema accepts it. */
export type CallArgs<C> = C extends Contract<infer P, infer Q, infer B, z.ZodType>
  ? Field<P, 'params', 'in'> & Partial<Field<Q, 'query', 'in'>> & Field<B, 'body', 'in'>
  : never;
/** What a call answers (undefined for a 204). */
export type Answer<C> = C extends Contract<z.ZodType, z.ZodType, z.ZodType, infer R> ? ([R] extends [z.ZodNever] ? void : z.output<R>) : never;
/** A call's request body as the client sends it. */
export type BodyOf<C> = C extends Contract<z.ZodType, z.ZodType, infer B, z.ZodType> ? z.input<B> : never;
/** A call's query as the client sends it. */
export type QueryOf<C> = C extends Contract<z.ZodType, infer Q, z.ZodType, z.ZodType> ? z.input<Q> : never;

/** The path of a call with its parameters filled in (each encoded). */
export function pathOf(url: string, params: Record<string, unknown> = {}): string {
  return url.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) throw new Error(`${url}: the path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
}
