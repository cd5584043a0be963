// The live feed over HTTP on a real server: GET /api/events/stream (docs/live.md). The
// history as it is written, in id order, each event under its history id; Last-Event-ID
// resumes without gaps or repeats; the filters of GET /api/events; heartbeats; private
// messages' contents never in it; a slow client dropped; the cap on open streams; bad
// input refused with 422; and the streams end when the world closes.
import assert from 'assert/strict';
import fs from 'fs';
import http from 'http';
import net from 'net';
import { readConfig } from '../../infra/config';
import { matchesFilter, readyRun, type Gap } from '../../http/stream';
import type { HistoryEvent } from '../../actors/ports/store';
import { expect422At, foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';
import { waitFor } from '../support/wait';

interface SseEvent { id: string; data: string }

/** A Server-Sent Events client on a plain HTTP request: what arrived, parsed as the SSE format says. */
class SseClient {
  readonly events: SseEvent[] = [];
  private readonly parsed: HistoryEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  raw = '';
  private buffer = '';
  private req!: http.ClientRequest;
  private readonly waiters = new Set<() => void>();
  readonly ready: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ready = new Promise((resolve, reject) => {
      this.req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
        this.status = res.statusCode ?? 0;
        this.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => { this.raw += chunk; this.buffer += chunk; this.parse(); this.notify(); });
        const end = () => { this.ended = true; this.notify(); };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
        resolve();
      });
      this.req.on('error', (e) => { this.ended = true; this.notify(); reject(e); });
    });
  }

  private parse(): void {
    for (let at = this.buffer.indexOf('\n\n'); at >= 0; at = this.buffer.indexOf('\n\n')) {
      const frame = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + 2);
      let id = '';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length) {
        this.events.push({ id, data: data.join('\n') });
        this.parsed.push(JSON.parse(data.join('\n')));
      }
    }
  }

  private notify(): void { for (const w of [...this.waiters]) w(); }

  /** The parsed history events received so far. */
  history(): HistoryEvent[] { return [...this.parsed]; }

  /** The highest id received (0 before any). */
  lastId(): number { return this.parsed.length ? this.parsed[this.parsed.length - 1].id : 0; }

  /** Waits until `done()` holds (checked on every arrival), or fails after `ms`. */
  async until(done: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (done()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { this.waiters.delete(check); reject(new Error(`timed out waiting for ${what}; received ${this.events.length} events, ended ${this.ended}`)); }, ms);
      const check = () => { if (done()) { clearTimeout(timer); this.waiters.delete(check); resolve(); } };
      this.waiters.add(check);
    });
  }

  untilId(id: number, ms?: number) { return this.until(() => this.lastId() >= id, `event ${id}`, ms); }

  close(): void { this.req.destroy(); }
}

const newestId = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

/** Every event after `afterId`, oldest first, as GET /api/events gives them (paged backward). */
async function historyAfter(w: TestWorld, afterId: number, filter = ''): Promise<HistoryEvent[]> {
  const out: HistoryEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const r = await w.get(`/api/events?limit=100${filter}${before ? `&before_id=${before}` : ''}`);
    assert.equal(r.status, 200, r.text);
    const page = (r.body as HistoryEvent[]).filter((e) => e.id > afterId);
    out.push(...page);
    if (page.length < 100) break;
    before = page[page.length - 1].id;
  }
  return out.reverse();
}

const ascendingById = (list: HistoryEvent[]) => list.every((e, i) => i === 0 || list[i - 1].id < e.id);

describe('the live feed: GET /api/events/stream', () => {
  let w: TestWorld;
  const clients: SseClient[] = [];
  const open = (query = '', headers: Record<string, string> = {}) => {
    const c = new SseClient(`${w.url}/api/events/stream${query}`, headers);
    clients.push(c);
    return c;
  };

  before(async () => { w = await startTestWorld({ streams: { maxStreams: 20, heartbeatMs: 300, slowClientMs: 30_000 } }); });
  afterEach(() => { for (const c of clients.splice(0)) c.close(); });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('sends the history as it is written, in id order, each event under its history id and as GET /api/events has it', async () => {
    const start = await newestId(w);
    const c = open();
    await c.ready;
    assert.equal(c.status, 200);
    assert.match(String(c.headers['content-type']), /^text\/event-stream/);
    const { org } = await foundOrg(w, 'Streamwatch Company');
    await w.tick();
    await w.tick();
    const expected = await historyAfter(w, start);
    assert.ok(expected.length > 10, `a founding and two days write history: ${expected.length}`);
    await c.untilId(expected[expected.length - 1].id);
    const got = c.history();
    assert.deepEqual(got, expected, 'the same events, in the same order, nothing before the stream opened');
    assert.ok(ascendingById(got));
    assert.deepEqual(c.events.map((e) => e.id), got.map((e) => String(e.id)), 'the SSE id is the history id');
    assert.ok(got.some((e) => e.category === 'world' && /Day \d+ began/.test(e.summary)));
    assert.ok(got.some((e) => e.organization_ids.includes(org.id)));
  });

  it('resumes after Last-Event-ID without gaps or repeats, also across a connection lost while history was written', async () => {
    const start = await newestId(w);
    const first = open();
    await first.ready;
    await w.tick();
    await first.until(() => first.events.length >= 3, 'three events');
    first.close();
    const seen = first.history();
    const last = seen[seen.length - 1].id;
    // History written while nobody listens.
    await w.tick();
    await foundOrg(w, 'Resumed Traders');
    const second = open('', { 'Last-Event-ID': String(last) });
    await second.ready;
    await w.tick();
    const expected = await historyAfter(w, start);
    await second.untilId(expected[expected.length - 1].id);
    const joined = [...seen, ...second.history()];
    assert.deepEqual(joined.map((e) => e.id), expected.map((e) => e.id), 'every event once, in order');
    assert.equal(second.history()[0].id, last + 1);
  });

  it('begins after after_id when no Last-Event-ID is sent; Last-Event-ID wins over after_id (a browser reconnecting keeps the URL)', async () => {
    const newest = await newestId(w);
    const from = newest - 5;
    const byQuery = open(`?after_id=${from}`);
    await byQuery.untilId(newest);
    assert.deepEqual(byQuery.history().map((e) => e.id), [1, 2, 3, 4, 5].map((i) => from + i));
    const byHeader = open(`?after_id=${from}`, { 'Last-Event-ID': String(newest - 2) });
    await byHeader.untilId(newest);
    assert.deepEqual(byHeader.history().map((e) => e.id), [newest - 1, newest]);
    const fromStart = open('?after_id=0');
    await fromStart.untilId(newest);
    assert.equal(fromStart.history()[0].id, 1, 'after_id=0: the whole history');
  });

  it('continues after the newest event, saying so, when Last-Event-ID or after_id is beyond it (an id from another world): nothing written after is skipped', async () => {
    const newest = await newestId(w);
    const far = newest + 1000;
    const byHeader = open('', { 'Last-Event-ID': String(far) });
    const byQuery = open(`?after_id=${far}`);
    for (const c of [byHeader, byQuery]) await c.until(() => c.comments.some((l) => l.includes('beyond the newest event')), 'the comment');
    assert.ok(byHeader.comments.includes(`Last-Event-ID ${far} is beyond the newest event, ${newest}: continuing after ${newest}`), byHeader.comments.join(' | '));
    assert.ok(byQuery.comments.some((l) => l.startsWith(`after_id ${far} is beyond`)));
    await foundOrg(w, 'Beyond Traders');
    const now = await newestId(w);
    for (const c of [byHeader, byQuery]) {
      await c.untilId(now);
      assert.equal(c.history()[0].id, newest + 1, 'the first event written after it arrives');
    }
  });

  it('takes the filters of GET /api/events: category, agent_id, organization_id', async () => {
    const start = await newestId(w);
    const { org, agentId } = await foundOrg(w, 'Filtered Holdings');
    const filters = [`?category=world&after_id=${start}`, `?organization_id=${org.id}&after_id=${start}`, `?agent_id=${agentId}&after_id=${start}`];
    const streams = filters.map((q) => open(q));
    await w.tick();
    await w.tick();
    const all = await historyAfter(w, start);
    for (const [i, c] of streams.entries()) {
      const query = filters[i].replace(/&after_id=\d+$/, '').replace('?', '&');
      const expected = await historyAfter(w, start, query);
      assert.ok(expected.length > 0, `history for ${query}`);
      await c.untilId(expected[expected.length - 1].id);
      // Wait for the whole history to have passed, so nothing unexpected could still come.
      await new Promise((r) => setTimeout(r, 600));
      assert.deepEqual(c.history(), expected, `the stream with ${query} sends what GET /api/events with it lists`);
      assert.ok(c.history().length < all.length);
    }
  });

  it('never carries a private message: its body appears nowhere in the stream, only the public fact of its sending as in GET /api/events', async () => {
    const start = await newestId(w);
    const c = open();
    await c.ready;
    const sender = await foundOrg(w, 'Quiet Couriers');
    const recipient = await foundOrg(w, 'Sealed Letters Guild');
    const secret = 'the vault code is 7-1-4-ember-quill';
    const sent = await w.post('/api/messages', { sender_id: sender.org.id, recipient_id: recipient.org.id, body: secret }, sender.key);
    assert.equal(sent.status, 201, sent.text);
    const rumor = 'whispers that the king wears a wooden crown';
    assert.equal((await w.post('/api/messages', { sender_id: sender.org.id, recipient_id: recipient.org.id, body: rumor, kind: 'rumor' }, sender.key)).status, 201);
    await w.tick();
    const expected = await historyAfter(w, start);
    await c.untilId(expected[expected.length - 1].id);
    assert.ok(!c.raw.includes(secret) && !c.raw.includes('vault code'), 'the private body is not in the stream');
    assert.ok(!c.raw.includes(rumor), 'nor a private rumor');
    const notes = c.history().filter((e) => e.category === 'message');
    assert.equal(notes.length, 2, 'the sendings are public history');
    for (const n of notes) assert.equal((n.data as { public: boolean }).public, false);
    assert.deepEqual(c.history(), expected);
  });

  it('sends heartbeats while nothing happens', async () => {
    const c = open();
    await c.until(() => c.comments.filter((x) => x === 'heartbeat').length >= 2, 'two heartbeats', 5_000);
    assert.equal(c.events.length, 0);
    assert.equal(c.ended, false);
  });

  it('refuses bad input with 422 in the detail-list shape, before any stream opens', async () => {
    for (const [query, loc] of [['?category=x', ['query', 'category']], ['?agent_id=0', ['query', 'agent_id']], ['?organization_id=abc', ['query', 'organization_id']], ['?after_id=-1', ['query', 'after_id']]] as const) {
      const r = await w.call('GET', `/api/events/stream${query}`, { headers: { accept: 'text/event-stream' } });
      expect422At(r, [...loc]);
    }
    const r = await w.call('GET', '/api/events/stream', { headers: { 'last-event-id': 'yesterday' } });
    expect422At(r, ['header', 'last-event-id']);
    assert.equal((await w.get('/healthz')).body.streams, 0, 'no stream was opened');
  });
});

describe('the live feed: limits', () => {
  let w: TestWorld | null = null;
  afterEach(async () => {
    if (w) { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); }
    w = null;
  });

  it('caps the open streams (WORLD_STREAMS_MAX): one more is 503 with Retry-After, and a freed slot is taken again', async () => {
    w = await startTestWorld({ streams: { maxStreams: 2, heartbeatMs: 15_000, slowClientMs: 30_000 } });
    const a = new SseClient(`${w.url}/api/events/stream`);
    const b = new SseClient(`${w.url}/api/events/stream`);
    await Promise.all([a.ready, b.ready]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    const refused = await fetch(`${w.url}/api/events/stream`, { headers: { accept: 'text/event-stream' } });
    assert.equal(refused.status, 503);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const body = await refused.json() as { detail: string };
    assert.match(body.detail, /2 streams/);
    a.close();
    await waitFor(async () => (await w!.get('/healthz')).body.streams === 1, 'the closed stream to be gone');
    const c = new SseClient(`${w.url}/api/events/stream`);
    await c.ready;
    assert.equal(c.status, 200);
    b.close();
    c.close();
  });

  it('is turned off by WORLD_STREAMS_MAX=0: 503, and the rest of the API serves', async () => {
    w = await startTestWorld({ streams: { maxStreams: 0, heartbeatMs: 15_000, slowClientMs: 30_000 } });
    const r = await w.call('GET', '/api/events/stream', { headers: { accept: 'text/event-stream' } });
    assert.equal(r.status, 503);
    assert.match(r.body.detail, /turned off/);
    assert.equal((await w.get('/api/events?limit=1')).status, 200);
  });

  it('drops a client that takes nothing (WORLD_STREAM_SLOW_SECONDS) rather than buffering for it, and serves the others', async () => {
    w = await startTestWorld({ nodes: 1, streams: { maxStreams: 2, heartbeatMs: 15_000, slowClientMs: 1_000 } });
    const { port } = new URL(w.url);
    // A client that asks for the stream and never reads: the socket is paused at once.
    const slow = net.connect(Number(port), '127.0.0.1');
    let slowClosed = false;
    slow.on('close', () => { slowClosed = true; });
    slow.on('error', () => { slowClosed = true; });
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.write('GET /api/events/stream HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n');
    slow.pause();
    await waitFor(async () => (await w!.get('/healthz')).body.streams === 1, 'the slow stream to open');
    const reader = new SseClient(`${w.url}/api/events/stream`);
    await reader.ready;
    // A busy world: some 8 MB of history, far more than the sockets between the two can hold.
    const start = await newestId(w);
    const summary = 'x'.repeat(1000);
    const engine = w.services.store.engine;
    const writes = Array.from({ length: 800 }, (_, i) => engine.persist(
      { key: `stream-test:${i}`, sequenceNumber: 1, data: { events: [{}] }, createdAt: Date.now(), tags: [] } as any,
      { history: Array.from({ length: 10 }, () => ({ day: 1, category: 'chronicle', agent_id: null, organization_ids: [], summary, data: {} })) }));
    await Promise.all(writes);
    const last = await newestId(w);
    assert.equal(last - start, 8000);
    await reader.untilId(last, 30_000);
    assert.deepEqual(reader.history().map((e) => e.id), Array.from({ length: 8000 }, (_, i) => start + 1 + i), 'the reading client got everything');
    await waitFor(async () => (await w!.get('/healthz')).body.streams === 1, 'the slow client to be dropped', 20_000);
    slow.resume();
    await waitFor(async () => slowClosed, 'the slow client\'s connection to close', 10_000);
    reader.close();
  });

  it('ends every stream when the world closes, without waiting for the clients', async () => {
    w = await startTestWorld({ streams: { maxStreams: 5, heartbeatMs: 15_000, slowClientMs: 30_000 } });
    const clients = [new SseClient(`${w.url}/api/events/stream`), new SseClient(`${w.url}/api/events/stream?category=world`)];
    await Promise.all(clients.map((c) => c.ready));
    const started = Date.now();
    await w.close();
    assert.ok(Date.now() - started < 5_000, `closed in ${Date.now() - started} ms`);
    for (const c of clients) await c.until(() => c.ended, 'the stream to end', 2_000);
    fs.rmSync(w.dataDir, { recursive: true, force: true });
    w = null;
  });
});

describe('the live feed: its rules and configuration', () => {
  const event = (id: number, over: Partial<HistoryEvent> = {}): HistoryEvent => ({ id, day: 1, category: 'world', agent_id: null, organization_ids: [], summary: `event ${id}`, created_at: '', ...over });

  it('passes events up to a missing id, holds there for the grace, then passes over it', () => {
    const events = [event(5), event(6), event(8), event(9)];
    const held = readyRun(events, 4, null, 1_000, 60_000);
    assert.deepEqual(held.ready.map((e) => e.id), [5, 6]);
    assert.deepEqual(held.gap, { id: 7, since: 1_000 });
    const still = readyRun([event(8), event(9)], 6, held.gap, 30_000, 60_000);
    assert.deepEqual(still.ready, []);
    assert.deepEqual(still.gap, { id: 7, since: 1_000 }, 'the gap keeps the time it was first met');
    const filled = readyRun([event(7), event(8)], 6, still.gap, 40_000, 60_000);
    assert.deepEqual(filled.ready.map((e) => e.id), [7, 8]);
    assert.equal(filled.gap, null);
    const passed = readyRun([event(8), event(9)], 6, { id: 7, since: 1_000 } as Gap, 61_000, 60_000);
    assert.deepEqual(passed.ready.map((e) => e.id), [8, 9], 'an id missing for the whole grace never comes');
  });

  it('filters as GET /api/events does', () => {
    const e = event(1, { category: 'trade', agent_id: 3, organization_ids: [5, 7] });
    assert.ok(matchesFilter(e, {}));
    assert.ok(matchesFilter(e, { category: 'trade', agent_id: 3, organization_id: 7 }));
    assert.ok(!matchesFilter(e, { category: 'world' }));
    assert.ok(!matchesFilter(e, { agent_id: 4 }));
    assert.ok(!matchesFilter(e, { organization_id: 6 }));
  });

  it('reads WORLD_STREAMS_MAX, WORLD_STREAM_HEARTBEAT_SECONDS and WORLD_STREAM_SLOW_SECONDS, and refuses bad values', () => {
    assert.deepEqual(readConfig({}).streams, { maxStreams: 100, heartbeatMs: 15_000, slowClientMs: 30_000 });
    assert.deepEqual(readConfig({ WORLD_STREAMS_MAX: '5', WORLD_STREAM_HEARTBEAT_SECONDS: '2.5', WORLD_STREAM_SLOW_SECONDS: '10' }).streams, { maxStreams: 5, heartbeatMs: 2_500, slowClientMs: 10_000 });
    assert.equal(readConfig({ WORLD_STREAMS_MAX: '0' }).streams?.maxStreams, 0, '0 turns the stream off');
    assert.throws(() => readConfig({ WORLD_STREAMS_MAX: '-1' }), /WORLD_STREAMS_MAX/);
    assert.throws(() => readConfig({ WORLD_STREAMS_MAX: '2.5' }), /WORLD_STREAMS_MAX/);
    assert.throws(() => readConfig({ WORLD_STREAM_HEARTBEAT_SECONDS: '0' }), /WORLD_STREAM_HEARTBEAT_SECONDS/);
    assert.throws(() => readConfig({ WORLD_STREAM_SLOW_SECONDS: 'soon' }), /WORLD_STREAM_SLOW_SECONDS/);
  });
});
