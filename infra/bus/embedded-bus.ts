// The embedded bus: subscribers in this process, called one after another.
import type { Bus, Handler } from '../../actors/ports/bus';

export class EmbeddedBus implements Bus {
  private readonly handlers = new Map<string, Handler<any>[]>();

  async publish<M>(topic: string, message: M): Promise<void> {
    for (const handler of this.handlers.get(topic) ?? []) await handler(message);
  }

  subscribe<M>(topic: string, handler: Handler<M>): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
