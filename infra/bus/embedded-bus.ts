// The embedded bus: subscribers in this process. A message is delivered in the
// background, to each subscriber in turn; a subscriber that fails gets it again after a
// pause, until it succeeds or the bus closes (at least once, as over Kafka).
import { BusClosedError, type Bus, type Handler } from '../../actors/ports/bus';

export const REDELIVERY_MS = 1_000;

export class EmbeddedBus implements Bus {
  private readonly handlers = new Map<string, Handler<any>[]>();
  /** Messages are delivered one after another per topic, in the order published. */
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly log: (line: string) => void = () => undefined) {}

  async publish<M>(topic: string, message: M): Promise<void> {
    if (this.closed) throw new BusClosedError();
    const previous = this.queues.get(topic) ?? Promise.resolve();
    const next = previous.then(() => this.deliver(topic, message));
    this.queues.set(topic, next);
  }

  private async deliver<M>(topic: string, message: M): Promise<void> {
    for (const handler of this.handlers.get(topic) ?? []) {
      while (!this.closed) {
        try {
          await handler(message);
          break;
        } catch (e) {
          this.log(`bus: a subscriber of ${topic} failed (${(e as Error)?.message}); delivering again in ${REDELIVERY_MS} ms`);
          await new Promise((r) => setTimeout(r, REDELIVERY_MS));
        }
      }
    }
  }

  async subscribe<M>(topic: string, handler: Handler<M>): Promise<void> {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  async ready(): Promise<void> {
    // Always: it lives in this process.
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.queues.values()).catch(() => undefined);
    this.handlers.clear();
  }
}
