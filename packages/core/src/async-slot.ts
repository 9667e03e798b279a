import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Every slot rides in this one storage. On Node 20 each `AsyncLocalStorage` in use costs every
 * promise, tick, timer and socket write of the whole process a property copy (async hooks), not
 * only the calls that read it: one storage for all of core's slots keeps that to one copy.
 */
const frames = new AsyncLocalStorage<Frame>();

/** The values of every slot, as seen by the running call; a new frame per `run`, never changed after. */
type Frame = Readonly<Record<symbol, unknown>>;

/**
 * A value that follows a call and everything it awaits (a request's scope, a transaction's
 * attempt), like an `AsyncLocalStorage` of its own, without one's cost: all slots share one
 * storage. A plugin that needs a value of its own along its calls makes an `AsyncSlot` rather than
 * a new `AsyncLocalStorage`.
 */
export class AsyncSlot<T> {
  private readonly key: symbol;

  constructor(name: string) {
    this.key = Symbol(name);
  }

  /** The value `run` set for the running call, or undefined outside any. */
  get(): T | undefined {
    return frames.getStore()?.[this.key] as T | undefined;
  }

  /** Runs `fn` with this slot set to `value` (undefined: unset), every other slot as it is. */
  run<R>(value: T | undefined, fn: () => R): R {
    return frames.run({ ...frames.getStore(), [this.key]: value }, fn);
  }
}
