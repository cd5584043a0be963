// The live feed: GET /api/events/stream, Server-Sent Events of the history as it is
// written (docs/live.md). The store is the single source: each stream reads the history
// after the last id it has passed, so one node and many serve the same feed, and a client
// that comes back with Last-Event-ID continues exactly where it stopped. One watch per
// process polls the newest history id and wakes the streams that are behind it.
//
// Bounded: a stream reads more only once the client has taken what was written, so it
// holds at most one event beyond the socket's buffer; a client that takes nothing for
// `slowClientMs` is dropped. The open streams of a node are capped (503 beyond the cap).
import type restify from 'restify';
import * as E from 'fp-ts/Either';
import { boundedInt, boundedString, object, optional } from '../codecs/primitives';
import { detailItem, detailItems, type DetailItem } from '../codecs/report';
import type { HistoryEvent, ReadModel } from '../actors/ports/store';
import type { Services } from './services';

export const STREAM_PATH = '/api/events/stream';

/** The filters of GET /api/events, and where to begin when no Last-Event-ID is sent. */
export const StreamQuery = object('StreamQuery', {
  category: optional(boundedString(2, 40)),
  agent_id: optional(boundedInt(1, undefined, 'text')),
  organization_id: optional(boundedInt(1, undefined, 'text')),
  after_id: optional(boundedInt(0, undefined, 'text')),
});

export interface StreamLimits {
  /** Streams one node serves at once; one more is refused with 503 (WORLD_STREAMS_MAX). */
  maxStreams: number;
  /** A heartbeat comment is written after this long without any other write (WORLD_STREAM_HEARTBEAT_SECONDS). */
  heartbeatMs: number;
  /** A client that has not taken what was written to it within this long is dropped (WORLD_STREAM_SLOW_SECONDS). */
  slowClientMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxStreams: 100, heartbeatMs: 15_000, slowClientMs: 30_000 };

/** How often the watch reads the newest history id while any stream waits. */
export const STREAM_POLL_MS = 250;
/** Events read from the store at a time by one stream. */
export const STREAM_BATCH = 200;
/**
 * Where ids can become visible out of order (several writers on Cassandra), a missing id
 * holds a stream back this long from when it was first met, as it holds the history
 * relay: longer than a write can take to succeed or fail. On SQLite ids appear in order.
 */
export const STREAM_GAP_GRACE_MS = 60_000;
/** The reconnection delay a browser is told to use (the SSE `retry` field). */
export const STREAM_RETRY_MS = 3_000;

export interface HistoryFilter {
  category?: string;
  agent_id?: number;
  organization_id?: number;
}

/** Whether an event passes the filters, as GET /api/events applies them. */
export function matchesFilter(e: HistoryEvent, f: HistoryFilter): boolean {
  return (f.category === undefined || e.category === f.category)
    && (f.agent_id === undefined || e.agent_id === f.agent_id)
    && (f.organization_id === undefined || e.organization_ids.includes(f.organization_id));
}

export interface Gap {
  /** The id the stream is waiting for. */
  id: number;
  /** When it was first missed (ms). */
  since: number;
}

/**
 * Of the events read after `position` (in id order), the run that may be passed now: up
 * to the first missing id, unless that id has been missing for `graceMs` already (a write
 * that failed: it never comes). Answers the gap still waited for, if any.
 */
export function readyRun(events: HistoryEvent[], position: number, gap: Gap | null, now: number, graceMs: number): { ready: HistoryEvent[]; gap: Gap | null } {
  const ready: HistoryEvent[] = [];
  let expected = position + 1;
  for (const e of events) {
    if (e.id !== expected) {
      const waiting = gap?.id === expected ? gap : { id: expected, since: now };
      if (now - waiting.since < graceMs) return { ready, gap: waiting };
    }
    ready.push(e);
    expected = e.id + 1;
  }
  return { ready, gap: null };
}

/** One SSE event: the history event under its id. JSON escapes line breaks, so one data line holds it. */
export const sseEvent = (e: HistoryEvent) => `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
export const SSE_HEARTBEAT = ': heartbeat\n\n';

type Response = restify.Response;

/** A stream's wait: ends at its timeout or when woken (new history, the client gone, the server closing). */
class Wait {
  private wakeUp: (() => void) | null = null;
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), Math.max(0, ms));
      this.wakeUp = () => { clearTimeout(timer); resolve(); };
    });
  }
  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }
}

class HistoryStream {
  ended = false;
  /** The highest id read so far (the watch wakes the stream when the history grows past it). */
  seen: number;
  private gap: Gap | null = null;
  private lastWrite = Date.now();
  private readonly wait = new Wait();
  private failing = false;

  constructor(
    private readonly res: Response,
    private readonly read: ReadModel,
    private readonly filter: HistoryFilter,
    /** The last id passed (sent, or read and filtered out). */
    private position: number,
    private readonly limits: StreamLimits,
    private readonly log: (line: string) => void,
  ) {
    this.seen = position;
  }

  wake(): void { this.wait.wake(); }

  /** Ends the stream: cleanly (the server closes) or at once (a slow client). */
  end(drop = false): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
    if (drop) {
      this.res.destroy();
      return;
    }
    this.res.end();
    // A client that does not take the end is not waited for long: the server is closing.
    setTimeout(() => this.res.destroy(), 1_000).unref();
  }

  async run(): Promise<void> {
    while (!this.ended) {
      let events: HistoryEvent[];
      try {
        events = await this.read.historySince(this.position, STREAM_BATCH);
        if (this.failing) this.log(`history stream: reading again after id ${this.position}`);
        this.failing = false;
      } catch (e) {
        // The store is away: the stream stays open (heartbeats go on) and reads again.
        if (!this.failing) this.log(`history stream: cannot read the history after id ${this.position} (${(e as Error)?.message ?? e}); trying again`);
        this.failing = true;
        events = [];
      }
      if (events.length) this.seen = Math.max(this.seen, events[events.length - 1].id);
      const { ready, gap } = readyRun(events, this.position, this.gap, Date.now(), STREAM_GAP_GRACE_MS);
      this.gap = gap;
      for (const e of ready) {
        if (this.ended) return;
        this.position = e.id;
        if (matchesFilter(e, this.filter) && !await this.write(sseEvent(e))) return;
      }
      if (!gap && !this.failing && events.length === STREAM_BATCH) continue; // more is waiting
      const heartbeatIn = this.lastWrite + this.limits.heartbeatMs - Date.now();
      if (heartbeatIn <= 0) {
        if (!await this.write(SSE_HEARTBEAT)) return;
        continue;
      }
      // Held at a gap or by a failing store, look again shortly; otherwise the watch wakes it.
      await this.wait.sleep(gap || this.failing ? Math.min(STREAM_POLL_MS * 4, heartbeatIn) : heartbeatIn);
    }
  }

  /** Writes, then waits until the client has taken it; answers false when the stream is over (a slow client is dropped). */
  private async write(text: string): Promise<boolean> {
    if (this.ended) return false;
    this.lastWrite = Date.now();
    if (this.res.write(text)) return true;
    const drained = await new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), this.limits.slowClientMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClose);
    });
    if (!drained && !this.ended) {
      this.log(`history stream: a client took nothing for ${this.limits.slowClientMs / 1000} s (at id ${this.position}); dropped`);
      this.end(true);
    }
    return drained && !this.ended;
  }
}

/** Reads the newest history id while any stream waits, and wakes those behind it. */
class HistoryWatch {
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(private readonly streams: Set<HistoryStream>, private readonly read: () => ReadModel | null) {}

  ensure(): void {
    if (this.timer || this.streams.size === 0) return;
    this.timer = setInterval(() => void this.poll(), STREAM_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    if (this.streams.size === 0) return this.stop();
    const read = this.read();
    if (this.polling || !read) return;
    this.polling = true;
    try {
      const latest = await read.lastHistoryId();
      for (const s of this.streams) if (s.seen < latest) s.wake();
    } catch {
      // Each stream reports a store it cannot read; the watch tries again at its next poll.
    } finally {
      this.polling = false;
    }
  }
}

export interface LiveStreams {
  /** Streams open now. */
  open(): number;
  /** Ends every stream (the server is closing) and refuses new ones. */
  close(): void;
}

export interface StreamState {
  services: Services | null;
  /** Why the world cannot serve now (its store cannot be reached), or null. */
  unavailable: string | null;
}

/** A JSON answer written directly: a client of the stream asks for text/event-stream, which restify's send would not format. */
function answer(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): undefined {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  return undefined;
}

function lastEventId(req: restify.Request, problems: DetailItem[]): number | undefined {
  const raw = req.headers['last-event-id'];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw).trim();
  if (/^\d{1,15}$/.test(value)) return Number(value);
  problems.push(detailItem(['header', 'last-event-id'], 'int_parsing', 'Last-Event-ID should be the id of a history event (a whole number >= 0)', value.slice(0, 100)));
  return undefined;
}

/** Registers GET /api/events/stream on the server. */
export function serveHistoryStream(server: restify.Server, state: () => StreamState, limits: StreamLimits = DEFAULT_STREAM_LIMITS, log: (line: string) => void = () => undefined): LiveStreams {
  const streams = new Set<HistoryStream>();
  const watch = new HistoryWatch(streams, () => state().services?.read ?? null);
  let closing = false;
  /** Streams accepted and reading where to begin. */
  let starting = 0;

  server.get(STREAM_PATH, async (req: restify.Request, res: Response) => {
    try {
      const { services, unavailable } = state();
      if (closing) return answer(res, 503, { detail: 'the service is shutting down' });
      if (unavailable) return answer(res, 503, { detail: unavailable });
      if (!services) return answer(res, 503, { detail: 'the world is starting; try again in a moment' });
      const problems: DetailItem[] = [];
      const resumeFrom = lastEventId(req, problems);
      const decoded = StreamQuery.decode(req.query ?? {});
      if (E.isLeft(decoded)) problems.push(...detailItems('query', decoded.left));
      if (problems.length || E.isLeft(decoded)) return answer(res, 422, { detail: problems });
      if (limits.maxStreams === 0) return answer(res, 503, { detail: 'the live feed is turned off on this node' });
      if (streams.size + starting >= limits.maxStreams) {
        return answer(res, 503, { detail: `this node already serves ${limits.maxStreams} streams, its limit; try again later` }, { 'Retry-After': '30' });
      }
      const { after_id, ...filter } = decoded.right;
      // The slot is taken before the first await, so racing requests cannot pass the cap together.
      starting += 1;
      let start: number;
      let beyond: string | null = null;
      try {
        const newest = await services.read.lastHistoryId();
        const asked = resumeFrom ?? after_id;
        start = asked === undefined ? newest : Math.min(asked, newest);
        // An id beyond the newest (kept from another world, or from before a reset) would wait in silence until the
        // history caught up with it, then skip what came before: the stream continues after the newest, and says so.
        if (asked !== undefined && asked > newest) beyond = `: ${resumeFrom !== undefined ? 'Last-Event-ID' : 'after_id'} ${asked} is beyond the newest event, ${newest}: continuing after ${newest}\n\n`;
      } finally {
        starting -= 1;
      }
      if (closing || res.destroyed) return undefined;
      const stream = new HistoryStream(res, services.read, filter, start, limits, log);
      streams.add(stream);
      res.on('close', () => {
        stream.ended = true;
        stream.wake();
        streams.delete(stream);
      });
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // A stream's connection is its own: when the stream ends, so does the connection.
        Connection: 'close',
        'X-Accel-Buffering': 'no',
      });
      res.write(`retry: ${STREAM_RETRY_MS}\n\n${beyond ?? ''}`);
      watch.ensure();
      await stream.run();
    } catch (e) {
      log(`error on GET ${STREAM_PATH}: ${(e as Error)?.stack ?? e}`);
      if (!res.headersSent) answer(res, 503, { detail: "the world's history cannot be read right now; try again shortly" });
      else res.destroy();
    }
    return undefined;
  });

  return {
    open: () => streams.size,
    close() {
      closing = true;
      watch.stop();
      for (const s of streams) s.end();
    },
  };
}
