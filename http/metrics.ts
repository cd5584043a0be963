// The metrics port on prom-client, and GET /metrics in Prometheus's text format. Each world
// has a registry of its own (a test process runs many worlds); the process's own metrics
// (event-loop lag, memory, CPU, garbage collection) are collected once per process and
// served with every world's.
import crypto from 'crypto';
import type restify from 'restify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AskResult, CrossNodeResult, Metrics } from '../actors/ports/metrics';
import { ADMIN_KEY_HEADER, SPECTATOR_KEY_HEADER, hashKey } from './auth';
import type { RequestRecord } from './request-log';
import type { LimitName } from './rate-limit';
import type { OperatorKeyHashes } from './services';

/** Latency buckets (seconds) of requests, asks, persists and commits: 1 ms to 30 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A day's settlement takes from milliseconds (a young world) to minutes (a very large one). */
const DAY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

let processRegistry: Registry | null = null;
/** The process's metrics, started on the first use (there is one event loop, whatever the worlds). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  }
  return processRegistry;
}

export interface MetricSources {
  /** Entity actors awake in this process. */
  actorsAwake(): number;
  /** Persists waiting for the store or on their way to it. */
  storeQueueDepth(): number;
}

export class WorldMetrics implements Metrics {
  readonly registry = new Registry();
  private sources: MetricSources = { actorsAwake: () => 0, storeQueueDepth: () => 0 };
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly asks: Histogram<'kind' | 'result'>;
  private readonly persists: Histogram<'kind' | 'result'>;
  private readonly commits: Histogram<'result'>;
  private readonly committedWrites: Counter<'result'>;
  private readonly days: Histogram;
  private readonly crossNode: Histogram<'result'>;
  private readonly limited: Counter<'limit'>;

  constructor() {
    processMetrics();
    const registers = [this.registry];
    this.requests = new Histogram({
      name: 'worldsim_http_request_duration_seconds', help: 'HTTP requests by method, route (its template) and status, and how long each took to answer (its _count is the number of requests).',
      labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registers,
    });
    this.asks = new Histogram({
      name: 'worldsim_ask_duration_seconds', help: 'Asks answered by the entity actors of this process (from the API, the daily fan-out or another actor), by entity kind and result (ok, refused, unavailable).',
      labelNames: ['kind', 'result'], buckets: LATENCY_BUCKETS, registers,
    });
    this.persists = new Histogram({
      name: 'worldsim_persist_duration_seconds', help: 'Persists of the entity actors (events with their rows and history, one transaction), by entity kind and result (ok, failed), until the store acknowledged them.',
      labelNames: ['kind', 'result'], buckets: LATENCY_BUCKETS, registers,
    });
    this.commits = new Histogram({
      name: 'worldsim_store_commit_duration_seconds', help: 'Group commits of the store (one SQLite transaction or one Cassandra batch), by result (ok, failed), until they were durable.',
      labelNames: ['result'], buckets: LATENCY_BUCKETS, registers,
    });
    this.committedWrites = new Counter({
      name: 'worldsim_store_committed_writes_total', help: 'Persists carried by the store\'s group commits, by result (ok, failed).', labelNames: ['result'], registers,
    });
    this.days = new Histogram({
      name: 'worldsim_day_settle_duration_seconds', help: 'Days settled by this node\'s daily fan-out (the tick), and how long each took.', buckets: DAY_BUCKETS, registers,
    });
    this.crossNode = new Histogram({
      name: 'worldsim_cross_node_ask_duration_seconds', help: 'Asks sent to the node that hosts their entity (many nodes), by result (ok, failed, moved), until the answer came back.',
      labelNames: ['result'], buckets: LATENCY_BUCKETS, registers,
    });
    this.limited = new Counter({
      name: 'worldsim_rate_limited_total', help: 'Requests refused with 429, by the limit that refused them (address, key, registration).', labelNames: ['limit'], registers,
    });
    const sources = () => this.sources;
    new Gauge({
      name: 'worldsim_actors_awake', help: 'Entity actors awake in this process.', registers,
      collect() { this.set(sources().actorsAwake()); },
    });
    new Gauge({
      name: 'worldsim_store_queue_depth', help: 'Persists waiting for the store or on their way to it.', registers,
      collect() { this.set(sources().storeQueueDepth()); },
    });
  }

  /** Where the gauges read from, once the world has its actors and its store. */
  measure(sources: MetricSources): void {
    this.sources = sources;
  }

  request(r: RequestRecord): void {
    this.requests.observe({ method: r.method, route: r.route ?? 'unmatched', status: String(r.status) }, r.seconds);
  }

  rateLimited(limit: LimitName): void {
    this.limited.inc({ limit });
  }

  asked(kind: string, result: AskResult, seconds: number): void {
    this.asks.observe({ kind, result }, seconds);
  }

  persisted(kind: string, ok: boolean, seconds: number): void {
    this.persists.observe({ kind, result: ok ? 'ok' : 'failed' }, seconds);
  }

  committed(writes: number, ok: boolean, seconds: number): void {
    this.commits.observe({ result: ok ? 'ok' : 'failed' }, seconds);
    this.committedWrites.inc({ result: ok ? 'ok' : 'failed' }, writes);
  }

  daySettled(seconds: number): void {
    this.days.observe(seconds);
  }

  crossNodeAsk(result: CrossNodeResult, seconds: number): void {
    this.crossNode.observe({ result }, seconds);
  }

  /** The text a Prometheus scrape reads: this world's metrics, then the process's. */
  async text(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }
}

/** The operator key a scrape carries: X-Admin-Key, X-Spectator-Key, or `Authorization: Bearer <key>` (what Prometheus sends). */
function givenKey(req: restify.Request): string | undefined {
  for (const name of [SPECTATOR_KEY_HEADER, ADMIN_KEY_HEADER]) {
    const v = req.headers[name];
    if (typeof v === 'string' && v !== '') return v;
  }
  const auth = req.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return bearer?.[1];
}

/** Whether a key given is the one kept as `hash` (operator keys are kept only as hashes). */
const isKey = (given: string, hash: string) => {
  const a = Buffer.from(hashKey(given));
  const b = Buffer.from(hash);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
};

/**
 * GET /metrics: for an operator key (the spectator's or the admin's). It is served while
 * the world starts or its store is down (when it is most wanted); it needs the keys,
 * which are known once the store has been read (503 before).
 */
export function serveMetrics(server: restify.Server, metrics: WorldMetrics, keys: () => OperatorKeyHashes | null): void {
  server.get('/metrics', async (req: restify.Request, res: restify.Response) => {
    const known = keys();
    if (!known) {
      res.send(503, { detail: 'the world is starting; its metrics are served once its operator keys are read' });
      return;
    }
    const given = givenKey(req);
    if (!given) {
      res.send(401, { detail: 'the metrics need an operator key: X-Spectator-Key, X-Admin-Key, or Authorization: Bearer <key>' });
      return;
    }
    if (!isKey(given, known.spectator) && !isKey(given, known.admin)) {
      res.send(401, { detail: 'the key given is not an operator key' });
      return;
    }
    const text = await metrics.text();
    res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  });
}
