/** DI tokens of core services that are not classes. */
export const CONFIG = Symbol.for('qhatu.config');
export const ORM = Symbol.for('qhatu.orm');
export const LOGGER = Symbol.for('qhatu.logger');
export const CLOCK = Symbol.for('qhatu.clock');
export const PLUGINS = Symbol.for('qhatu.plugins');

/** The one clock; tests swap it. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
