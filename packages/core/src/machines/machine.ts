import { AppError, withArticle } from '../errors.js';
import { ormOf, type SqlTx, type Tx } from '../db/database.js';

export interface TransitionContext<E, I = unknown> {
  entity: E;
  from: string;
  to: string;
  input: I;
  tx: Tx;
}

export interface Transition<E, S extends string> {
  from: readonly S[] | '*';
  to: S;
  /** Returns a reason (or throws) when the move is not allowed for this entity right now. */
  guard?: (ctx: TransitionContext<E, any>) => string | void | Promise<string | void>;
  /** Runs after the state changed, in the same transaction. */
  effect?: (ctx: TransitionContext<E, any>) => void | Promise<void>;
  /** Published through the outbox when the move commits; data from `eventData` or the machine's. */
  event?: string;
}

export interface MachineDefinition<E, S extends string> {
  name: string;
  /** The entity property that holds the state. */
  field: keyof E & string;
  states: readonly S[];
  transitions: Record<string, Transition<E, S>>;
  eventData?: (entity: E) => Record<string, unknown>;
}

export interface Machine<E, S extends string> extends MachineDefinition<E, S> {
  can(entity: E, action: string): boolean;
  /**
   * Moves `entity` by `action` or throws 409 INVALID_STATE_TRANSITION. On an ORM-free transaction
   * (`Database.sqlFirst`) a move with a guard or an effect starts the ORM on it (`ormOf`).
   */
  apply(tx: Tx | SqlTx, entity: E, action: string, input?: unknown): Promise<E>;
  availableActions(entity: E): string[];
}

/** A declarative state machine: states, transitions, guards, effects and events. */
export function defineMachine<E, S extends string>(definition: MachineDefinition<E, S>): Machine<E, S> {
  for (const [action, t] of Object.entries(definition.transitions)) {
    const states = [...(t.from === '*' ? [] : t.from), t.to];
    const unknown = states.find((s) => !definition.states.includes(s));
    if (unknown) throw new Error(`Machine ${definition.name}: transition "${action}" names unknown state "${unknown}"`);
  }
  const stateOf = (entity: E) => String(entity[definition.field]);
  const allows = (t: Transition<E, S>, state: string) => t.from === '*' || (t.from as readonly string[]).includes(state);

  return {
    ...definition,
    can(entity, action) {
      const t = definition.transitions[action];
      return Boolean(t) && allows(t, stateOf(entity));
    },
    availableActions(entity) {
      return Object.entries(definition.transitions)
        .filter(([, t]) => allows(t, stateOf(entity)))
        .map(([action]) => action);
    },
    async apply(tx, entity, action, input) {
      const t = definition.transitions[action];
      if (!t) throw new Error(`Machine ${definition.name} has no transition "${action}"`);
      const from = stateOf(entity);
      if (!allows(t, from)) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action} ${withArticle(definition.name)} that is ${from}`, [
          { message: `allowed from: ${t.from === '*' ? 'any state' : t.from.join(', ')}`, from, action },
        ]);
      }
      const ctx: TransitionContext<E> | undefined = t.guard || t.effect ? { entity, from, to: t.to, input, tx: await ormOf(tx) } : undefined;
      const reason = ctx && (await t.guard?.(ctx));
      if (reason) throw new AppError(409, 'INVALID_STATE_TRANSITION', reason, [{ message: reason, from, action }]);
      (entity as Record<string, unknown>)[definition.field] = t.to;
      if (ctx) await t.effect?.(ctx);
      if (t.event) tx.publish(t.event, definition.eventData?.(entity) ?? { id: (entity as { id?: string }).id, status: t.to });
      return entity;
    },
  };
}
