// The bus port, owned by the domain: how the daily tick (and later other broadcasts)
// reach every node. The embedded adapter (infra/bus/embedded-bus.ts) runs subscribers in
// this process; a distributed bus carries the same messages over Kafka.
export type Handler<M> = (message: M) => Promise<void>;

export interface Bus {
  /** Delivers to every subscriber of the topic; resolves once they have all handled it. */
  publish<M>(topic: string, message: M): Promise<void>;
  subscribe<M>(topic: string, handler: Handler<M>): void;
  close(): Promise<void>;
}

export const TOPICS = {
  /** {day}: a new world day has begun; every node settles its entities for it. */
  days: 'world.days',
} as const;
