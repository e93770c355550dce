import type { z } from 'zod';
import { pathOf, type Answer, type CallArgs, type Contract } from '@studio/schema';
import { checkStatus, type AppErrorHandler } from './errors';

export const NOT_SIGNED_IN = 'not-signed-in';

export interface ClientOptions {
  /** Origin of the studio, e.g. http://127.0.0.1:8080; empty for same-origin in the browser. */
  baseUrl?: string;
  token?: string;
  fetch?: typeof fetch;
  onError?: AppErrorHandler;
}

export type QueryValues = Record<string, string | number | boolean | string[] | undefined>;

export interface RequestOptions {
  query?: QueryValues;
  body?: unknown;
  /** A raw body (file, blob, stream) sent with `contentType` instead of JSON. */
  rawBody?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Validate the answer with a shared validator before handing it out. */
  schema?: z.ZodType;
}

/** What a call sends besides its contract's parameters, query and body. */
export type CallOptions = Pick<RequestOptions, 'headers' | 'signal' | 'rawBody' | 'contentType'>;

/** HTTP for the typed client: the bearer token, the error handling, and calls made from their contracts. */
export class HttpClient {
  token: string;
  protected readonly baseUrl: string;
  protected readonly fetchImpl: typeof fetch;
  protected readonly onError?: AppErrorHandler;

  constructor(opts: ClientOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? '').replace(/\/$/, '');
    this.token = opts.token ?? NOT_SIGNED_IN;
    this.fetchImpl = opts.fetch ?? ((...args) => fetch(...args));
    this.onError = opts.onError;
  }

  url(path: string, query?: RequestOptions['query']): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
    }
    const s = qs.toString();
    return `${this.baseUrl}${path}${s ? `?${s}` : ''}`;
  }

  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const url = this.url(path, opts.query);
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...opts.headers };
    let body: BodyInit | undefined;
    if (opts.rawBody !== undefined) {
      body = opts.rawBody;
      if (opts.contentType) headers['content-type'] = opts.contentType;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const response = await this.fetchImpl(url, { method, headers, body, signal: opts.signal });
    await checkStatus(response, url, this.onError);
    return response;
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const response = await this.raw(method, path, opts);
    if (response.status === 204) return undefined as T;
    const json: unknown = await response.json();
    return (opts.schema ? opts.schema.parse(json) : json) as T;
  }

  /** The request of a call (its path filled in, its query and body), answered as the server sent it. */
  callRaw<C extends Contract>(contract: C, args: CallArgs<C>, opts: CallOptions = {}): Promise<Response> {
    const { params, query, body } = args as { params?: Record<string, unknown>; query?: QueryValues; body?: unknown };
    return this.raw(contract.method, pathOf(contract.url, params), { ...opts, query, body });
  }

  /** One call of the API, typed by its contract in @studio/schema: what it takes and what it answers. */
  async call<C extends Contract>(contract: C, args: CallArgs<C>, opts: CallOptions = {}): Promise<Answer<C>> {
    const response = await this.callRaw(contract, args, opts);
    if (response.status === 204) return undefined as Answer<C>;
    return (await response.json()) as Answer<C>;
  }
}
