// The metrics port, owned by the domain: what the actors' shell, the daily fan-out, the
// store and the nodes report for operators. The domain only calls it; an adapter
// (http/metrics.ts, on prom-client) turns the calls into Prometheus metrics, and the
// default does nothing, so rules and tests without metrics never see it.

/** How an ask ended: answered, refused by the entity (a 4xx), or not finished (503: a timeout, a failed write). */
export type AskResult = 'ok' | 'refused' | 'unavailable';

/** How a command sent to another node ended: answered, failed (not sent, timed out), or moved (sent again). */
export type CrossNodeResult = 'ok' | 'failed' | 'moved';

export interface Metrics {
  /** An ask an actor of this process answered (from outside or from another actor), and how long it took. */
  asked(kind: string, result: AskResult, seconds: number): void;
  /** An actor's persist (its events with their rows and history), from the call to the store's answer. */
  persisted(kind: string, ok: boolean, seconds: number): void;
  /** A group commit of the store: the persists it carried, whether it was written, how long it took. */
  committed(writes: number, ok: boolean, seconds: number): void;
  /** One day settled by this node's daily fan-out. */
  daySettled(seconds: number): void;
  /** An ask sent to the node that hosts its entity (many nodes). */
  crossNodeAsk(result: CrossNodeResult, seconds: number): void;
}

export const NO_METRICS: Metrics = {
  asked: () => undefined,
  persisted: () => undefined,
  committed: () => undefined,
  daySettled: () => undefined,
  crossNodeAsk: () => undefined,
};

/** Seconds since `started` (a performance.now() reading). */
export const secondsSince = (started: number) => (performance.now() - started) / 1000;
