// The history relay: publishes the world's history to a Kafka topic for analysts
// (docs/history-topic.md). The history written with each change is the outbox: the relay
// reads it in id order after the last id it published, sends a batch, and only then
// records the new position durably in the store. So nothing is lost (a change never waits
// for Kafka; a relay that stops, or a broker that is down, resumes from its position),
// and nothing is published out of order; a crash between sending and recording sends a
// batch again (consumers deduplicate by id).
//
// Where history ids can become visible out of order (several writers, and batches in
// flight at once, on Cassandra), a gap in the ids holds the relay back for GAP_GRACE_MS
// from the moment the relay first meets it: longer than a write can take to be
// acknowledged or to fail, so an id still missing then was never used (a failed write)
// and is passed over.
import type { HistoryEvent, Store } from '../../actors/ports/store';

export const HISTORY_SCHEMA = 1;
export const RELAY_POSITION = 'history_relay_position';
export const RELAY_BATCH = 500;
export const RELAY_IDLE_MS = 200;
export const RELAY_RETRY_MS = 1_000;
export const GAP_GRACE_MS = 60_000;

/** One record of the history topic: the event as GET /api/events gives it, with the schema version. */
export function historyRecord(e: HistoryEvent): { key: string; value: string } {
  const record = {
    schema: HISTORY_SCHEMA, id: e.id, day: e.day, category: e.category, agent_id: e.agent_id, organization_ids: e.organization_ids,
    summary: e.summary, data: e.data ?? {}, created_at: e.created_at,
  };
  return { key: historyKey(e), value: JSON.stringify(record) };
}

/** One organization's events keep their order: an event is keyed by the first organization it names; world-wide events share one key. */
export const historyKey = (e: Pick<HistoryEvent, 'organization_ids'>) => (e.organization_ids.length ? `organization:${e.organization_ids[0]}` : 'world');

export interface RelayStatus {
  /** The last id published. */
  published_id: number;
  /** The newest id in the history. */
  latest_id: number;
  /** Events committed but not yet published. */
  lag: number;
  /** Why the relay is stuck, if it is. */
  error: string | null;
}

export class HistoryRelay {
  private running = false;
  private loop: Promise<void> | null = null;
  private position = 0;
  private latest = 0;
  private error: string | null = null;
  private wake: (() => void) | null = null;
  /** The missing id the relay is waiting for, and since when. */
  private gap: { id: number; since: number } | null = null;

  constructor(
    private readonly store: Store,
    private readonly send: (records: Array<{ key: string; value: string }>) => Promise<void>,
    private readonly log: (line: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  status(): RelayStatus {
    return { published_id: this.position, latest_id: Math.max(this.latest, this.position), lag: Math.max(0, this.latest - this.position), error: this.error };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }

  /** One pass: publishes what is ready. Returns the number of events published. */
  async pass(): Promise<number> {
    const events = await this.store.historySince(this.position, RELAY_BATCH);
    this.latest = Math.max(this.latest, await this.store.lastHistoryId());
    const ready: HistoryEvent[] = [];
    let expected = this.position + 1;
    for (const e of events) {
      if (e.id !== expected) {
        if (this.gap?.id !== expected) this.gap = { id: expected, since: this.now() };
        if (this.now() - this.gap.since < GAP_GRACE_MS) break;
        this.log(`history relay: id ${expected}${e.id > expected + 1 ? `..${e.id - 1}` : ''} never appeared within ${GAP_GRACE_MS / 1000} s; passing over it`);
      }
      ready.push(e);
      expected = e.id + 1;
    }
    if (ready.length === 0) return 0;
    await this.send(ready.map(historyRecord));
    this.position = ready[ready.length - 1].id;
    await this.store.setSetting(RELAY_POSITION, String(this.position));
    return ready.length;
  }

  private async run(): Promise<void> {
    // Where it stopped last time; nothing is published before that is known.
    while (this.running) {
      try {
        this.position = Number(await this.store.setting(RELAY_POSITION) ?? 0);
        break;
      } catch (e) {
        this.error = `the relay cannot read its position: ${(e as Error)?.message ?? e}`;
        await this.sleep(RELAY_RETRY_MS);
      }
    }
    while (this.running) {
      try {
        const sent = await this.pass();
        if (this.error) this.log(`history relay: publishing again from id ${this.position + 1}`);
        this.error = null;
        if (sent === 0) await this.sleep(RELAY_IDLE_MS);
      } catch (e) {
        const reason = `${(e as Error)?.message ?? e}`;
        if (reason !== this.error) this.log(`history relay: stuck after id ${this.position} (${reason}); trying again`);
        this.error = reason;
        await this.sleep(RELAY_RETRY_MS);
      }
    }
  }
}
