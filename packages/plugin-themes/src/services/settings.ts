import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';
import { isTimeZone } from './time-zone.js';

const Env = z.object({
  QHATU_THEMES_TIME_ZONE: z.string().refine(isTimeZone, 'must be an IANA time zone, e.g. America/Lima').default('America/Lima'),
});

export interface ThemesSettings {
  /** The time zone of a store that has not chosen one. */
  defaultTimeZone: string;
}

export const THEMES_SETTINGS = Symbol.for('qhatu.themes.settings');

export function readSettings(config: QhatuConfig): ThemesSettings {
  return { defaultTimeZone: parseEnvironment(config.environment, Env).QHATU_THEMES_TIME_ZONE };
}
