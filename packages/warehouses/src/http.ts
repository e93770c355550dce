import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StudioError } from '@studio/schema';
import { cancelled } from './driver';
import type { Reach } from './driver';
import { answerLookup } from './pinned';

/**
 * JSON over HTTP(S) for the drivers whose warehouse speaks REST (Databricks' Statement Execution API,
 * Kinetica, Planet). The socket goes to the address the network rule checked, while TLS still verifies
 * the name; redirects are never followed; the connect timeout and the caller's abort apply.
 */

export interface Endpoint {
  /** http or https */
  protocol: 'http:' | 'https:';
  host: string;
  port: number;
}

export interface JsonRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** A download: a 2xx body is streamed to this file (memory stays flat) and the answer is its byte count. */
  toFile?: string;
}

export interface JsonAnswer<T> {
  status: number;
  body: T;
}

export class HttpClient {
  private constructor(
    private readonly endpoint: Endpoint,
    private readonly address: string,
    private readonly connectTimeoutMs: number,
    private readonly requestTimeoutMs: number,
  ) {}

  /** Checks the endpoint's host with the network rule once; every request goes to that address. */
  static async connect(endpoint: Endpoint, reach: Reach, timeouts: { connectTimeoutMs: number; statementTimeoutMs: number }): Promise<HttpClient> {
    const address = await reach.check(endpoint.host, endpoint.port);
    return new HttpClient(endpoint, address, timeouts.connectTimeoutMs, timeouts.statementTimeoutMs);
  }

  get origin(): string {
    const host = isIP(this.endpoint.host) === 6 ? `[${this.endpoint.host}]` : this.endpoint.host;
    return `${this.endpoint.protocol}//${host}:${this.endpoint.port}`;
  }

  /** One request; any status is answered (the caller reads the warehouse's own error body). */
  request<T>(req: JsonRequest): Promise<JsonAnswer<T>> {
    if (req.signal?.aborted) return Promise.reject(cancelled());
    const lib = this.endpoint.protocol === 'https:' ? https : http;
    const lookup: LookupFunction = (_host, opts, cb) => answerLookup(this.address, opts, cb);
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    return new Promise<JsonAnswer<T>>((resolve, reject) => {
      let connected = false;
      const r = lib.request(
        {
          host: this.endpoint.host,
          port: this.endpoint.port,
          method: req.method ?? 'GET',
          path: req.path,
          lookup,
          servername: isIP(this.endpoint.host) ? undefined : this.endpoint.host,
          headers: {
            accept: 'application/json',
            ...(payload && { 'content-type': 'application/json', 'content-length': String(payload.length) }),
            ...req.headers,
          },
          timeout: this.requestTimeoutMs,
          signal: req.signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (req.toFile && status >= 200 && status < 300) {
            let bytes = 0;
            res.on('data', (c: Buffer) => (bytes += c.length));
            pipeline(res, createWriteStream(req.toFile)).then(() => resolve({ status, body: bytes as T }), reject);
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : null;
            } catch {
              // not JSON: the text itself (an error page of a proxy, say)
            }
            resolve({ status, body: body as T });
          });
        },
      );
      const connectTimer = setTimeout(() => {
        if (!connected) r.destroy(new StudioError(422, `Could not connect: ${this.endpoint.host}:${this.endpoint.port} did not answer within ${this.connectTimeoutMs} ms`));
      }, this.connectTimeoutMs);
      r.on('socket', (socket) => {
        const done = () => {
          connected = true;
          clearTimeout(connectTimer);
        };
        if (!socket.connecting) done();
        else socket.once(this.endpoint.protocol === 'https:' ? 'secureConnect' : 'connect', done);
      });
      r.on('timeout', () => r.destroy(new StudioError(422, 'The warehouse did not answer in time')));
      r.on('error', (e) => {
        clearTimeout(connectTimer);
        if (req.signal?.aborted) return reject(cancelled());
        if (e instanceof StudioError) return reject(e);
        reject(new StudioError(422, `Could not connect: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      });
      r.on('close', () => clearTimeout(connectTimer));
      r.end(payload);
    });
  }
}
