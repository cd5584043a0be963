// The bus port, owned by the domain: how the daily tick (and later other broadcasts)
// reach every node. It promises what Kafka can: a published message reaches every
// subscriber at least once (possibly twice), and `publish` resolves when the bus holds
// it, not when subscribers have handled it. Whether a day has been handled is a separate
// question, answered by the settlements port below. The embedded adapter
// (infra/bus/embedded-bus.ts) delivers in this process; infra/bus/kafka-bus.ts over Kafka.
export type Handler<M> = (message: M) => Promise<void>;

/** The bus cannot take messages now (a broker that is down); says why. */
export class BusUnavailableError extends Error {
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'BusUnavailableError';
  }
}

/** The bus has been closed (the service is stopping): nothing more can be published. */
export class BusClosedError extends Error {
  constructor() {
    super('the bus is closed');
    this.name = 'BusClosedError';
  }
}

export interface Bus {
  /**
   * Hands a message to the bus: every subscriber of the topic receives it at least once.
   * Resolves once the bus holds it durably (Kafka: the broker acknowledged it); rejects
   * with BusUnavailableError when it cannot.
   */
  publish<M>(topic: string, message: M, key?: string): Promise<void>;
  /** Delivers the topic's messages to the handler, in order; a handler that fails gets the message again later. */
  subscribe<M>(topic: string, handler: Handler<M>): Promise<void>;
  /** Resolves when the bus can take messages now; rejects with BusUnavailableError saying why. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export const TOPICS = {
  /** {day}: a new world day has begun; every node settles its entities for it. */
  days: 'world.days',
} as const;

/**
 * Which days have been settled. Each settler (a node, for the entities it hosts) records
 * the last day it settled, durably; the clock waits until every settler has settled a
 * day before it says the day has begun. A day already settled is never settled again,
 * however often it is delivered.
 */
export interface DaySettlements {
  /** The last day this settler settled, or null when it has never recorded one. */
  lastSettled(): Promise<number | null>;
  /** Records that this settler has settled `day`. */
  record(day: number): Promise<void>;
  /** The last day the world's own initiative (seeded quests, newcomers) was taken, or null. */
  lastInitiative(): Promise<number | null>;
  recordInitiative(day: number): Promise<void>;
  /** Resolves once every settler has settled `day`; rejects after `timeoutMs`. */
  waitFor(day: number, timeoutMs: number): Promise<void>;
}
