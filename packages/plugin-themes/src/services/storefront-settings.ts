import { AppError, plainText, type ErrorDetail } from '@qhatu/core';
import type { ThemeSection, ThemeSettings } from '../entities/catalog-theme.js';
import { isScriptUrl, kindOf, sanitizeThemeHtml, urlProblem, type SettingKind } from './markup.js';

/** Keys that name an object's prototype machinery in JavaScript: never a setting, a section or a block. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const URL_INVALID = 'THEME_SETTING_URL_INVALID';
export const KEY_RESERVED = 'THEME_SETTING_KEY_RESERVED';
const MESSAGES = {
  [URL_INVALID]: 'A URL setting takes an http or https URL or a relative path, and no setting takes a javascript:, vbscript: or data: URL',
  [KEY_RESERVED]: 'Theme settings may not use the keys __proto__, constructor or prototype',
};

/** A value that cannot be stored as sent: where it is and why. */
export interface SettingProblem extends ErrorDetail {
  path: string;
  code: typeof URL_INVALID | typeof KEY_RESERVED;
}

type Report = (problem: SettingProblem) => void;

function cleanString(value: string, kind: SettingKind, path: string, report: Report): string {
  if (kind === 'html') return sanitizeThemeHtml(value);
  if (kind === 'url') {
    const url = value.trim();
    const problem = urlProblem(url);
    if (!problem) return url;
    report({ path, code: URL_INVALID, message: problem });
    return '';
  }
  if (isScriptUrl(value)) {
    report({ path, code: URL_INVALID, message: 'is a javascript:, vbscript: or data: URL, which no setting may hold' });
    return '';
  }
  return plainText(value);
}

/** A value of kind `kind` (arrays pass theirs on to their items; objects' keys name their own). */
function cleanValue(value: unknown, kind: SettingKind, path: string, report: Report): unknown {
  if (typeof value === 'string') return cleanString(value, kind, path, report);
  if (Array.isArray(value)) return value.map((item, i) => cleanValue(item, kind, `${path}.${i}`, report));
  if (value !== null && typeof value === 'object') return cleanValues(value as Record<string, unknown>, path, report);
  return value;
}

function cleanValues(values: Record<string, unknown>, path: string, report: Report): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if (RESERVED_KEYS.has(name)) report({ path: `${path}.${name}`, code: KEY_RESERVED, message: 'is a reserved key' });
    else out[name] = cleanValue(value, kindOf(name), `${path}.${name}`, report);
  }
  return out;
}

function cleanSection<S extends Pick<ThemeSection, 'type' | 'settings'>>(section: S, path: string, report: Report): S {
  return { ...section, type: plainText(section.type), settings: cleanValues(section.settings ?? {}, `${path}.settings`, report) };
}

/**
 * Settings as a storefront may render them: `*_html` values sanitized to the allow-list, URL
 * values checked, other strings plain text (markup removed). What cannot be kept is reported
 * and left out (a bad URL becomes "", a reserved key goes).
 */
export function cleanSettings(settings: ThemeSettings, path: string, report: Report): ThemeSettings {
  const sections: Record<string, ThemeSection> = {};
  for (const [id, section] of Object.entries(settings.sections)) {
    const at = `${path}.sections.${id}`;
    if (RESERVED_KEYS.has(id)) {
      report({ path: at, code: KEY_RESERVED, message: 'is a reserved key' });
      continue;
    }
    const cleaned = cleanSection(section, at, report);
    if (section.blocks) {
      cleaned.blocks = {};
      for (const [blockId, block] of Object.entries(section.blocks)) {
        if (RESERVED_KEYS.has(blockId)) report({ path: `${at}.blocks.${blockId}`, code: KEY_RESERVED, message: 'is a reserved key' });
        else cleaned.blocks[blockId] = cleanSection(block, `${at}.blocks.${blockId}`, report);
      }
    }
    sections[id] = cleaned;
  }
  return { section_order: settings.section_order.filter((id) => Object.hasOwn(sections, id)), sections };
}

/** Settings to store: cleaned, or refused with 422 naming every value that cannot be kept. */
export function storefrontSettings(settings: ThemeSettings, path: string): ThemeSettings {
  const problems: SettingProblem[] = [];
  const cleaned = cleanSettings(settings, path, (p) => problems.push(p));
  if (problems.length === 0) return cleaned;
  const [first] = problems;
  const details = problems.filter((p) => p.code === first.code).map(({ path: at, message }) => ({ path: at, message }));
  throw AppError.unprocessable(first.code, MESSAGES[first.code], details);
}

/** Where `body` (any JSON) uses a reserved key, at any depth; walked without recursion. */
export function reservedKeyPaths(body: unknown, root = 'body'): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[body, root]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    for (const [key, child] of Object.entries(value)) {
      if (RESERVED_KEYS.has(key)) found.push(`${path}.${key}`);
      else stack.push([child, `${path}.${key}`]);
    }
  }
  return found.sort();
}

export function refuseReservedKeys(body: unknown): void {
  const paths = reservedKeyPaths(body);
  if (paths.length === 0) return;
  throw AppError.unprocessable(KEY_RESERVED, MESSAGES[KEY_RESERVED], paths.map((path) => ({ path, message: 'is a reserved key' })));
}
