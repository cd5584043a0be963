// The HTTP server, built from the route table. For each request: the key (401/403), then
// path, query and body through their io-ts codecs (422, every problem at once), then the
// handler, whose refusals carry their own status. Nothing else reaches the client: no
// stack trace, no unformatted error.
import restify from 'restify';
import type { Socket } from 'net';
import * as E from 'fp-ts/Either';
import { detailItem, detailItems, type DetailItem, type Place } from '../codecs/report';
import type { Field } from '../codecs/primitives';
import { ADMIN_KEY_HEADER, AGENT_KEY_HEADER, HEADER_MAX, SPECTATOR_KEY_HEADER, checkOperatorKey, keyHashOf, requireActive, resolveAgent, type Caller } from './auth';
import { IDEMPOTENCY_HEADER, IdempotencyKey, REPLAYED_HEADER, actOnce, fingerprintOf, randomKeyOnly, readIdempotencyKey } from './idempotency';
import { HttpError, invalid } from './errors';
import { registerMcp } from './mcp';
import { relayToken } from './rate-limit';
import { registerOpenApi } from './openapi';
import { answerLowLevelErrors } from './low-level-errors';
import { findKeysInText, foldOlderKey } from './key-in-text';
import { JsonPage, Page, nextPageUrl } from './paging';
import { queryParser } from './query-string';
import { ClientGoneError, MAX_BODY_BYTES, bodyText, findLoneSurrogates, readBody } from './request-body';
import type { Route } from './route';
import type { Services } from './services';
import { StoreUnavailableError } from '../actors/ports/store';
import { serveHistoryStream, type LiveStreams, type StreamLimits } from './stream';
import { serveSpectatorPage } from './spectator-page';
import { FixedJson, JsonText, ReadCache, type KeptAnswer } from './read-cache';
import { gzipFixedFor, gzipFor } from './compression';

export interface ServerHandle {
  server: restify.Server;
  /** The token of MCP tool calls relayed to this server by itself: the rate limits count their caller. */
  relayToken: string;
  setReady(services: Services): void;
  /**
   * Something the world needs cannot be reached (the store): /healthz and every /api
   * endpoint answer 503 with the reason until it is cleared with null.
   */
  setUnavailable(reason: string | null): void;
  /**
   * Something the world can live without for a while is missing (the message bus): the
   * API keeps serving, and /healthz answers 200 with status "degraded" and the reason.
   */
  setDegraded(reason: string | null): void;
  /** More facts /healthz reports (the bus, the history relay's lag). */
  setHealthFacts(facts: () => Record<string, unknown>): void;
  /** The open streams of GET /api/events/stream; close them before the server. */
  streams: LiveStreams;
  /**
   * Stops listening and resolves once every connection has closed: an idle one at once, one
   * serving a request as soon as it has answered (a kept-alive connection would otherwise
   * hold the close for KEEP_ALIVE_MS).
   */
  close(): Promise<void>;
}

/** What a request that met an unreachable store is told. */
export const STORE_UNAVAILABLE = "the world's store cannot be reached right now; try again shortly (if you were changing something, read the current state first: it may or may not have happened)";

function decode<A>(codec: Field<A> | undefined, input: unknown, place: Place, problems: DetailItem[]): A {
  if (!codec) return undefined as A;
  const r = codec.decode(input);
  if (E.isLeft(r)) {
    problems.push(...detailItems(place, r.left));
    return undefined as A;
  }
  return r.right;
}

function parseJson(raw: string, problems: DetailItem[]): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    problems.push(detailItem(['body', at ? Number(at[1]) : 0], 'json_invalid', 'JSON decode error', raw.length > 200 ? `${raw.slice(0, 200)}…` : raw, { error: message }));
    return undefined;
  }
}

/** Beyond these, a 422 item does not echo its input (a hostile body could not be serialized back). */
const ECHO_MAX_DEPTH = 32;
const ECHO_MAX_NODES = 10_000;

/** Whether `value` is small and shallow enough to echo back as a 422 item's `input`. */
function echoable(value: unknown): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  let nodes = 0;
  while (pending.length) {
    const [v, depth] = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= ECHO_MAX_DEPTH || ++nodes > ECHO_MAX_NODES) return false;
    for (const child of Object.values(v)) pending.push([child, depth + 1]);
  }
  return true;
}

function withSafeInputs(items: DetailItem[]): DetailItem[] {
  return items.map((item) => {
    if (!('input' in item) || echoable(item.input)) return item;
    const { input: _omitted, ...rest } = item;
    return rest;
  });
}

/** The body of an HttpError's answer. */
const errorBody = (e: HttpError) => ({ detail: typeof e.detail === 'string' ? e.detail : withSafeInputs(e.detail) });

function header(req: restify.Request, name: string, problems: DetailItem[]): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  const value = Array.isArray(v) ? v[0] : v;
  if (value.length > HEADER_MAX) {
    problems.push(detailItem(['header', name], 'string_too_long', `String should have at most ${HEADER_MAX} characters`, undefined, { max_length: HEADER_MAX }));
    return undefined;
  }
  return value;
}

/** restify's JSON formatter (JSON.stringify, Content-Length), with answers already in JSON sent as they are. */
function formatJson(_req: restify.Request, res: restify.Response, body: unknown): string {
  let data: string;
  try {
    data = body instanceof JsonText ? body.text : JSON.stringify(body) ?? 'null';
  } catch {
    throw new HttpError(500, 'internal error');
  }
  res.setHeader('Content-Length', Buffer.byteLength(data));
  return data;
}

/**
 * An answer in JSON already (kept, or to be kept), with its page's Link. One whose text was
 * sent before (a kept answer asked for again, a page of rows the store kept across commits),
 * or one that never changes (FixedJson), goes gzipped to a client that takes gzip,
 * compressed once (compression.ts).
 */
function sendKept(req: restify.Request, res: restify.Response, status: number, answer: KeptAnswer): void {
  if (answer.link) res.header('Link', answer.link);
  // Whether an answer is compressed depends on the request's Accept-Encoding: caches in between must know.
  res.header('Vary', 'Accept-Encoding');
  const packed = answer.body instanceof FixedJson ? gzipFixedFor(req, answer.body, answer.body.text)
    : answer.body.sent ? gzipFor(req, answer.body, answer.body.text) : null;
  answer.body.sent = true;
  if (packed) {
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', packed.length);
    res.sendRaw(status, packed);
    return;
  }
  res.send(status, answer.body);
}

/** How long an idle keep-alive connection is kept open (longer than the 60 s idle timeout of common load balancers). */
export const KEEP_ALIVE_MS = 65_000;

export function buildServer(routes: Route[], log: (line: string) => void = () => undefined, options: { streams?: StreamLimits } = {}): ServerHandle {
  let services: Services | null = null;
  let unavailable: string | null = null;
  let degraded: string | null = null;
  let facts: () => Record<string, unknown> = () => ({});
  const server = restify.createServer({
    name: 'worldsim', handleUncaughtExceptions: false, ignoreTrailingSlash: true,
    // restify's JSON formatter, which also sends an answer already in JSON (a kept read) as it is.
    formatters: { 'application/json': formatJson },
  } as restify.ServerOptions);
  const reads = new ReadCache();
  // restify's own logger would print whole requests (keys included) on some failures: keep it quiet.
  (server.log as unknown as { level: string }).level = 'silent'; // restify 11 logs through pino
  // req.query as restify's queryParser (qs) reads it, the common queries without qs's cost.
  server.use(queryParser());
  answerLowLevelErrors(server.server, log);
  // An idle keep-alive connection is kept a minute, not Node's 5 s: a client that reuses a
  // connection the server is closing at that moment gets a reset (ECONNRESET) for a request
  // the world never saw, and a proxy in front that keeps idle connections longer than the
  // server answers 502 (load balancers commonly keep them 60 s). docs/operations.md.
  server.server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  // The open connections, so that a close can end those that never sent a byte (a browser's
  // or a client pool's opened ahead): Node does not count them idle, and would wait
  // headersTimeout for them.
  const connections = new Set<Socket>();
  server.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  server.on('restifyError', (req: restify.Request, _res: restify.Response, err: any, cb: () => void) => {
    const status = err.statusCode ?? 500;
    const detail = status === 404 ? `no endpoint ${req.method} ${req.path()}`
      : status === 405 ? `${req.method} is not allowed on ${req.path()}`
        : status < 500 ? String(err.message || 'the request could not be read') : 'internal error';
    err.toJSON = () => ({ detail });
    err.toString = () => detail;
    if (status >= 500) log(`error on ${req.method} ${req.url}: ${err?.stack ?? err}`);
    return cb();
  });

  // HEAD is answered wherever GET is, as GET would be but without the body.
  const healthz: restify.RequestHandler = (_req, res, next) => {
    if (unavailable) res.send(503, { status: services ? 'unavailable' : 'starting', detail: unavailable });
    else if (!services) res.send(503, { status: 'starting' });
    else if (degraded) res.send(200, { status: 'degraded', detail: degraded, ...facts() });
    else res.send(200, { status: 'ok', ...facts() });
    return next();
  };
  server.get('/healthz', healthz);
  server.head('/healthz', healthz);

  // The live feed and the spectator page are served beside the route table (docs/live.md).
  const streams = serveHistoryStream(server, () => ({ services, unavailable }), options.streams, log);
  serveSpectatorPage(server);

  for (const r of routes) {
    const path = r.path.replace(/\{(\w+)\}/g, ':$1');
    const handler = async (req: restify.Request, res: restify.Response) => {
      try {
        if (unavailable) throw new HttpError(503, unavailable);
        if (!services) throw new HttpError(503, 'the world is starting; try again in a moment');
        const problems: DetailItem[] = [];
        const rawBytes = r.method === 'GET' ? Buffer.alloc(0) : await readBody(req);
        const raw = rawBytes.toString('utf8'); // as the Idempotency-Key fingerprint has always read it

        // Keys first: a caller without the right key learns nothing about the input.
        let caller: Caller | null = null;
        // Only the headers a route uses are read: a public route ignores whatever key is sent.
        const agentKey = r.auth.startsWith('agent') ? header(req, AGENT_KEY_HEADER, problems) : undefined;
        const agentKeyHash = agentKey ? keyHashOf(req, agentKey) : undefined;
        // A read answers again what it answered while nothing has been committed since
        // (read-cache.ts), for the same address and key: in that generation of the read
        // model the key found the same caller, with the same rights, and the address decoded
        // the same. An agent's key is hashed but not looked up again; an operator's is
        // checked below, as ever, before its kept answer is looked up.
        const generation = r.method === 'GET' ? services.store.readGeneration?.() : undefined;
        const keptKey = generation === undefined || problems.length ? undefined : `${agentKeyHash ?? ''} ${req.url}`;
        const kept = keptKey !== undefined && (r.auth === 'none' || r.auth.startsWith('agent')) ? reads.get(generation!, keptKey) : undefined;
        if (kept) {
          sendKept(req, res, r.success, kept);
          return;
        }
        if (r.auth === 'agent' || r.auth === 'agent-read') {
          if (problems.length) throw invalid(problems);
          caller = await resolveAgent(services.read, agentKey, agentKeyHash);
          foldOlderKey(services, caller);
          if (r.auth === 'agent') requireActive(caller);
        } else if (r.auth === 'agent-optional' && agentKey) {
          caller = await resolveAgent(services.read, agentKey, agentKeyHash);
          foldOlderKey(services, caller);
        } else if (r.auth === 'admin') {
          const given = header(req, ADMIN_KEY_HEADER, problems);
          if (problems.length) throw invalid(problems);
          checkOperatorKey(given, services.operatorKeyHashes.admin, 'X-Admin-Key');
        } else if (r.auth === 'spectator') {
          const given = header(req, SPECTATOR_KEY_HEADER, problems);
          if (problems.length) throw invalid(problems);
          checkOperatorKey(given, services.operatorKeyHashes.spectator, 'X-Spectator-Key');
        }

        // Idempotency-Key (any route that changes something): its caller's, checked with the rest of the input.
        const idempotencyKey = r.method === 'GET' ? undefined : readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER], problems, randomKeyOnly(r.auth));
        const params = decode(r.params, req.params ?? {}, 'path', problems);
        const query = decode(r.query, req.query ?? {}, 'query', problems);
        let body: unknown;
        if (r.body) {
          // Not UTF-8, not JSON, or a lone surrogate: one problem for the body, its shape unchecked.
          const text = bodyText(rawBytes, problems);
          if (text !== undefined) {
            const json = parseJson(text, problems);
            const before = problems.length;
            findLoneSurrogates(text, json, ['body'], problems);
            if (problems.length === before && !problems.some((p) => p.type === 'json_invalid')) body = decode(r.body, json, 'body', problems);
          }
        }
        if (problems.length) throw invalid(problems);
        if (r.body) {
          await findKeysInText(body, services.read, caller?.key ?? null, ['body'], problems, [services.operatorKeyHashes.admin, services.operatorKeyHashes.spectator]);
          if (problems.length) throw invalid(problems);
        }
        if (idempotencyKey !== undefined) {
          const scope = caller ? `agent:${caller.keyHash}` : r.auth === 'admin' || r.auth === 'spectator' ? r.auth : 'public';
          const fingerprint = fingerprintOf({ method: r.method, route: r.path, params: req.params ?? {}, query: req.query ?? {}, body: raw });
          const answer = await actOnce(services, new IdempotencyKey(scope, idempotencyKey), idempotencyKey, fingerprint,
            async (scoped) => ({ status: r.success, body: await r.handle({ params, query, body, caller }, scoped) }), errorBody);
          if (answer.replayed) res.header(REPLAYED_HEADER, 'true');
          res.send(answer.status, answer.body);
          return;
        }
        if (generation !== undefined && keptKey !== undefined) {
          let answer = reads.get(generation, keptKey);
          if (!answer) {
            const value = await r.handle({ params, query, body, caller }, services);
            const page = value instanceof Page || value instanceof JsonPage ? value : null;
            answer = {
              body: value instanceof JsonText ? value : value instanceof JsonPage ? value.body : new JsonText(JSON.stringify(value instanceof Page ? value.items : value) ?? 'null'),
              link: page?.next ? `<${nextPageUrl(req.url ?? r.path, page.next)}>; rel="next"` : undefined,
            };
            reads.put(generation, keptKey, answer);
          }
          sendKept(req, res, r.success, answer);
          return;
        }
        const value = await r.handle({ params, query, body, caller }, services);
        if (value instanceof FixedJson) {
          sendKept(req, res, r.success, { body: value });
          return;
        }
        if (value instanceof Page || value instanceof JsonPage) {
          if (value.next) res.header('Link', `<${nextPageUrl(req.url ?? r.path, value.next)}>; rel="next"`);
          res.send(r.success, value instanceof JsonPage ? value.body : value.items);
          return;
        }
        res.send(r.success, value);
      } catch (e) {
        if (e instanceof HttpError) {
          if (e.status === 413) res.setHeader('connection', 'close');
          res.send(e.status, errorBody(e));
        } else if (e instanceof ClientGoneError) {
          // Nobody is left to answer; one quiet line, no stack.
          log(`${req.method} ${req.path()}: ${e.message}`);
        } else if (e instanceof StoreUnavailableError) {
          log(`${req.method} ${req.path()}: ${e.message}`);
          res.send(503, { detail: STORE_UNAVAILABLE });
        } else {
          log(`error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? e}`);
          res.send(500, { detail: 'internal error' });
        }
      }
    };
    if (r.method === 'GET') {
      server.get(path, handler);
      server.head(path, handler);
    } else if (r.method === 'POST') server.post(path, handler);
    else server.patch(path, handler);
  }
  registerOpenApi(server, routes);
  // The token MCP tool calls carry when the server sends them on to itself (http/rate-limit.ts).
  const relay = relayToken();
  registerMcp(server, routes, MAX_BODY_BYTES, log, relay);

  return {
    server,
    relayToken: relay,
    setReady: (s) => { services = s; },
    setUnavailable: (reason) => { unavailable = reason; },
    setDegraded: (reason) => { degraded = reason; },
    setHealthFacts: (f) => { facts = f; },
    streams,
    async close() {
      const idle = setInterval(() => {
        server.server.closeIdleConnections();
        for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
      }, 100);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearInterval(idle);
    },
  };
}
