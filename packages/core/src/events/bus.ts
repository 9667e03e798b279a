import { EventEmitter } from 'eventemitter3';
import type { Logger } from 'pino';

/** A domain event: what happened, to which tenant, with which data. Also the outbox row's shape. */
export interface DomainEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  source: string;
  tenantId: string;
  time: Date;
  data: T;
}

type Handler = (event: DomainEvent) => void | Promise<void>;

/**
 * In-process bus. Events are emitted only after their transaction committed; a handler's failure is
 * logged and never reaches the writer. Out-of-process delivery goes through the outbox instead.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  private readonly committedHandlers: Array<(events: DomainEvent[]) => void | Promise<void>> = [];

  constructor(private readonly logger?: Logger) {}

  on(type: string | '*', handler: Handler): () => void {
    const wrapped = (event: DomainEvent) => {
      Promise.resolve()
        .then(() => handler(event))
        .catch((error) => this.logger?.error({ err: error, event: event.type }, 'event handler failed'));
    };
    this.emitter.on(type, wrapped);
    return () => this.emitter.off(type, wrapped);
  }

  /** Called once per commit with everything the transaction published (the outbox relay listens here). */
  onCommitted(handler: (events: DomainEvent[]) => void | Promise<void>): void {
    this.committedHandlers.push(handler);
  }

  async committed(events: DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const event of events) {
      this.emitter.emit(event.type, event);
      this.emitter.emit('*', event);
    }
    for (const handler of this.committedHandlers) {
      try {
        await handler(events);
      } catch (error) {
        this.logger?.error({ err: error }, 'after-commit handler failed');
      }
    }
  }
}
