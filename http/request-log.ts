// One record per request, once its answer has gone: a request id (also sent back as
// X-Request-Id), the method, the route, the status, the latency and the client address.
// The records feed the request log and the metrics. A record never holds a header, a
// query, a body or a path as sent: only the route's template, so neither a key nor
// anything a client wrote can reach the log.
import crypto from 'crypto';
import type restify from 'restify';
import type { Logger } from 'pino';

export const REQUEST_ID_HEADER = 'x-request-id';

export interface RequestRecord {
  requestId: string;
  method: string;
  /** The route's template (`/api/organizations/{id}`), or null when no route matched. */
  route: string | null;
  status: number;
  seconds: number;
  client: string;
}

/** An id a proxy in front of the service gave the request is kept when it is a plain token; otherwise a new one. */
const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Each route's template as the specification writes it, made once per route (the routes are few and fixed). */
const templates = new Map<string, string>();

/** The route's template as the specification writes it (`{id}` rather than restify's `:id`). */
function routeOf(req: restify.Request): string | null {
  const path = req.getRoute?.()?.path;
  if (typeof path !== 'string') return null;
  let template = templates.get(path);
  if (template === undefined) {
    template = path.replace(/:(\w+)/g, '{$1}');
    templates.set(path, template);
  }
  return template;
}

/** restify's status for a request whose client went away (as nginx's "client closed request"). */
export const CLIENT_CLOSED = 444;

/**
 * The status a request ended with: the one its client was sent, also when the client went
 * away afterwards (a live stream left, a long answer cut short), which restify records as
 * 444; 444 only when it went away before any answer.
 */
function statusOf(res: restify.Response): number {
  if (res.statusCode !== CLIENT_CLOSED || !res.headersSent) return res.statusCode;
  // Node keeps the head it sent, status line first.
  const sent = /^HTTP\/1\.[01] (\d{3})/.exec(String((res as unknown as { _header?: unknown })._header ?? ''));
  return sent ? Number(sent[1]) : res.statusCode;
}

/** A restify `pre` handler that hands every finished request to the observers. */
export function observeRequests(observers: Array<(record: RequestRecord) => void>): restify.RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const given = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof given === 'string' && GIVEN_ID.test(given) ? given : crypto.randomUUID();
    res.header('X-Request-Id', requestId);
    // 'close' comes after the answer has gone, and also when the client went away first.
    res.once('close', () => {
      const record: RequestRecord = {
        requestId, method: req.method ?? 'UNKNOWN', route: routeOf(req), status: statusOf(res),
        seconds: (performance.now() - started) / 1000, client: req.socket?.remoteAddress ?? 'unknown',
      };
      for (const observe of observers) observe(record);
    });
    return next();
  };
}

/**
 * The request log: one line per request, at `error` for a 5xx, `info` otherwise. A health
 * probe answered 503 (the world still starting, or its store out of reach) is at `warn`:
 * the probe did its work, and what made the world unready has its own line.
 */
export function requestLogger(logger: Logger): (record: RequestRecord) => void {
  return (r) => {
    const line = { request_id: r.requestId, method: r.method, route: r.route, status: r.status, latency_ms: Math.round(r.seconds * 1e4) / 10, client: r.client };
    if (r.status === 503 && r.route === '/healthz') logger.warn(line, 'request');
    else if (r.status >= 500) logger.error(line, 'request');
    else logger.info(line, 'request');
  };
}
