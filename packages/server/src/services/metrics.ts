import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sql } from 'kysely';
import type { Engine } from '@studio/engine';
import type { Db } from '../store/db';

/**
 * Metrics for Prometheus (prom-client), one registry per studio: request counts and latencies by route
 * pattern (not by URL, so ids do not multiply the series), long work waiting in the catalog (ingestions
 * pending, query executions running), DuckDB's memory, and Node's process metrics. `GET /metrics` serves
 * them to administrators (Prometheus sends an admin's API key as its bearer token).
 */
export class StudioMetrics {
  private readonly register = new Registry();
  private readonly requests = new Counter({ name: 'studio_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'] as const, registers: [this.register] });
  private readonly latency = new Histogram({
    name: 'studio_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.register],
  });

  constructor(db: Db, engine: Engine) {
    collectDefaultMetrics({ register: this.register, prefix: 'studio_' });
    new Gauge({
      name: 'studio_work_waiting',
      help: 'Long work in the catalog, by kind: dataset ingestions pending, query executions running',
      labelNames: ['kind'] as const,
      registers: [this.register],
      async collect() {
        const pending = await sql<{ n: string | number }>`SELECT count(*) AS n FROM resources WHERE type = 'dataset' AND attrs->>'status' = 'pending'`.execute(db);
        const running = await sql<{ n: string | number }>`SELECT count(*) AS n FROM query_executions WHERE status IN ('queued', 'running')`.execute(db);
        this.set({ kind: 'ingestions' }, Number(pending.rows[0]?.n ?? 0));
        this.set({ kind: 'executions' }, Number(running.rows[0]?.n ?? 0));
      },
    });
    new Gauge({
      name: 'studio_duckdb_memory_bytes',
      help: "Memory DuckDB's buffer manager holds on this node",
      registers: [this.register],
      async collect() {
        const [row] = await engine.query('SELECT sum(memory_usage_bytes) AS bytes FROM duckdb_memory()');
        this.set(Number(row?.bytes ?? 0));
      },
    });
  }

  /** One answered request: `route` is the route's pattern (e.g. /v1/datasets/:id), 'unmatched' for none. */
  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }

  readonly contentType = this.register.contentType;

  /** The exposition text Prometheus scrapes. */
  text(): Promise<string> {
    return this.register.metrics();
  }
}
