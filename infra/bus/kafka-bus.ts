// The bus over Apache Kafka (kafkajs). Publishing goes through one idempotent producer
// (acks from every in-sync replica, one request in flight, so retries never reorder or
// duplicate on the broker); each subscription is a consumer group of its own, reading its
// topic from the beginning (a subscriber skips what it has already handled) and taking a
// message again when the handler fails. The topics are created at start-up when missing.
//
// A broker that is down never stops the service: the bus connects in the background and
// keeps trying; until it can, `ready` and `publish` reject with BusUnavailableError saying
// why, and the consumers join once the broker answers.
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type LogEntry, type Producer } from 'kafkajs';
import { BusClosedError, BusUnavailableError, type Bus, type Handler } from '../../actors/ports/bus';
import { immediateSockets } from './kafka-socket';
import { ensureTopics, whileTopicsSettle, type TopicSpec } from './kafka-topics';

export type { TopicSpec } from './kafka-topics';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** Consumer groups of this node are named `<groupPrefix>.<topic>`. */
  groupPrefix: string;
  /** Created at start-up when missing. */
  topics: TopicSpec[];
  /** Topic names as the domain publishes them (TOPICS.days) → the configured names. */
  rename?: Record<string, string>;
  log?: (line: string) => void;
}

export const CONNECT_RETRY_MS = 2_000;
const FIRST_RETRY_MS = 100;

export class KafkaBus implements Bus {
  private readonly kafka: Kafka;
  private producer: Producer;
  /** A send failed: the idempotent producer's sequence may be out of step with the broker, so the next send starts a new one. */
  private producerSpoiled = false;
  private readonly admin: Admin;
  private readonly consumers: Consumer[] = [];
  private readonly log: (line: string) => void;
  private connected = false;
  private closed = false;
  private lastError: string | null = null;
  private connecting: Promise<void>;
  private readonly pending: Array<{ topic: string; handler: Handler<any> }> = [];

  constructor(private readonly opts: KafkaBusOptions) {
    this.log = opts.log ?? (() => undefined);
    const seen = new Set<string>();
    // kafkajs logs every failed attempt; the bus says once what is wrong, and when it is right again.
    const logCreator = () => ({ level, log }: LogEntry) => {
      if (level > logLevel.ERROR || !log?.message) return;
      const line = `kafka: ${log.message}`;
      if (!seen.has(line)) { seen.add(line); if (seen.size > 100) seen.clear(); this.log(line); }
    };
    this.kafka = new Kafka({
      clientId: opts.clientId, brokers: opts.brokers, logLevel: logLevel.ERROR, logCreator,
      connectionTimeout: 3_000, requestTimeout: 10_000, retry: { retries: 3, initialRetryTime: 300, maxRetryTime: 3_000 }, socketFactory: immediateSockets,
    });
    this.producer = this.newProducer();
    this.admin = this.kafka.admin();
    this.connecting = this.connectLoop();
  }

  private newProducer(): Producer {
    return this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  }

  private name(topic: string): string {
    return this.opts.rename?.[topic] ?? topic;
  }

  /** Connects and creates the topics, trying again until it works or the bus closes. */
  private async connectLoop(): Promise<void> {
    // The first retries come quickly (a topic another node has just created settles within
    // a second); a broker that stays away is asked every CONNECT_RETRY_MS.
    for (let retry = FIRST_RETRY_MS; !this.closed; retry = Math.min(retry * 2, CONNECT_RETRY_MS)) {
      try {
        await this.admin.connect();
        await ensureTopics(this.admin, this.opts.topics);
        await this.producer.connect();
        this.connected = true;
        if (this.lastError) this.log(`bus: Kafka at ${this.opts.brokers.join(', ')} answers again`);
        this.lastError = null;
        // Each subscription leaves the waiting list only once its consumer runs.
        while (this.pending.length) {
          await this.startConsumer(this.pending[0].topic, this.pending[0].handler);
          this.pending.shift();
        }
        return;
      } catch (e) {
        const reason = `Kafka at ${this.opts.brokers.join(', ')} cannot be reached: ${(e as Error)?.message ?? e}`;
        if (reason !== this.lastError) this.log(`bus: ${reason}; trying again (every ${CONNECT_RETRY_MS / 1000} s at most)`);
        this.lastError = reason;
        await new Promise((r) => setTimeout(r, retry));
      }
    }
  }

  /** Resolves once the topics exist and the producer is connected (for tests and tools). */
  whenConnected(): Promise<void> {
    return this.connecting;
  }

  async publish<M>(topic: string, message: M, key?: string): Promise<void> {
    await this.send(this.name(topic), [{ key: key ?? null, value: JSON.stringify(message) }]);
  }

  /** Several records to one topic in one request, in order. */
  async send(topic: string, messages: Array<{ key: string | null; value: string }>): Promise<void> {
    if (this.closed) throw new BusClosedError();
    if (!this.connected) throw new BusUnavailableError(this.lastError ?? 'Kafka is not connected yet');
    try {
      if (this.producerSpoiled) {
        // A new producer id and sequence: what the old one may have half-sent comes again, and consumers deduplicate.
        await this.producer.disconnect().catch(() => undefined);
        this.producer = this.newProducer();
        await this.producer.connect();
        this.producerSpoiled = false;
      }
      await this.producer.send({ topic, acks: -1, messages });
    } catch (e) {
      this.producerSpoiled = true;
      throw new BusUnavailableError(`Kafka did not take the message: ${(e as Error)?.message ?? e}`, e);
    }
  }

  async subscribe<M>(topic: string, handler: Handler<M>): Promise<void> {
    if (this.connected) await this.startConsumer(this.name(topic), handler);
    else this.pending.push({ topic: this.name(topic), handler });
  }

  /** Subscriptions so far per topic: each has a consumer group of its own, so every subscriber gets every message. */
  private readonly subscriptions = new Map<string, number>();

  private async startConsumer<M>(topic: string, handler: Handler<M>): Promise<void> {
    const n = (this.subscriptions.get(topic) ?? 0) + 1;
    // The first subscription of a topic keeps the plain name (a node's daily settler); later ones are numbered.
    const groupId = n === 1 ? `${this.opts.groupPrefix}.${topic}` : `${this.opts.groupPrefix}.${topic}.${n}`;
    const consumer = this.kafka.consumer({ groupId, maxWaitTimeInMs: 250, retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 500, maxRetryTime: 5_000 } });
    this.consumers.push(consumer);
    // Off the bus's list and disconnected (a consumer that crashed, failed to start, or started too late).
    const drop = async () => {
      const i = this.consumers.indexOf(consumer);
      if (i >= 0) this.consumers.splice(i, 1);
      await consumer.disconnect().catch(() => undefined);
    };
    let started = false;
    // A consumer that crashed for good is started again (kafkajs restarts the ones it can itself).
    consumer.on(consumer.events.CRASH, (event: { payload: { error: Error; restart: boolean } }) => {
      // One that never started is tried again by whoever started it.
      if (event.payload.restart || this.closed || !started) return;
      started = false;
      this.log(`bus: the consumer of ${topic} stopped (${event.payload.error?.message}); starting it again`);
      this.subscriptions.set(topic, n - 1);
      void drop().then(() => this.restartConsumer(topic, handler));
    });
    try {
      await consumer.connect();
      await whileTopicsSettle(() => consumer.subscribe({ topic, fromBeginning: true }));
      await consumer.run({
        // The offset is committed only after the handler succeeds; a failure delivers the message again.
        eachMessage: async ({ message }) => { if (message.value) await handler(JSON.parse(message.value.toString()) as M); },
      });
    } catch (e) {
      // Not started: nothing of it stays (the next attempt makes a consumer of its own).
      await drop();
      throw e;
    }
    if (this.closed) {
      // The bus closed while this consumer started: it would keep the process alive.
      await drop();
      return;
    }
    started = true;
    this.subscriptions.set(topic, n);
  }

  /**
   * Starts a crashed subscription's consumer again, every CONNECT_RETRY_MS until it runs or
   * the bus closes: the broker may be away for longer than one attempt takes, and a day's
   * settlement waits for this consumer.
   */
  private async restartConsumer<M>(topic: string, handler: Handler<M>): Promise<void> {
    let said = false;
    while (!this.closed) {
      await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
      if (this.closed) return;
      try {
        await this.startConsumer(topic, handler);
        if (said) this.log(`bus: the consumer of ${topic} runs again`);
        return;
      } catch (e) {
        if (!said) this.log(`bus: the consumer of ${topic} could not start again (${(e as Error)?.message ?? e}); trying every ${CONNECT_RETRY_MS / 1000} s`);
        said = true;
      }
    }
  }

  async ready(): Promise<void> {
    if (!this.connected) throw new BusUnavailableError(this.lastError ?? 'Kafka is not connected yet');
    try {
      await withTimeout(this.admin.describeCluster(), 3_000, 'Kafka did not answer within 3 s');
    } catch (e) {
      throw new BusUnavailableError(`Kafka at ${this.opts.brokers.join(', ')} cannot be reached: ${(e as Error)?.message ?? e}`, e);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.consumers.map((c) => c.disconnect()));
    await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(message)), ms); })]).finally(() => clearTimeout(timer));
}
