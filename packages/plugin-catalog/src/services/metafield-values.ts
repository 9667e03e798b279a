import { Uuid } from '@qhatu/core';
import type { MetafieldType } from '../entities/product-metafield.js';

/**
 * A metafield value is stored, and returned, as the canonical text of its type: what a client
 * sends as a string comes back unchanged, except integers (`"007"` → `"7"`), booleans and json
 * (compact JSON text) and references (lower case). Typed JSON (42, true, {...}) is accepted too.
 */
export type ValueCheck = { ok: true; value: string } | { ok: false; message: string };

const MAX_TEXT = 65_535;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?\d{1,40}(?:\.\d{1,40})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FULL_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/;

const EXPECTED: Record<MetafieldType, string> = {
  string: 'non-empty text',
  integer: 'a whole number, e.g. 42 or "-7" (64-bit range)',
  decimal: 'a decimal number, e.g. 12.5 or "12.50"',
  boolean: 'true or false',
  json: 'a JSON object or array',
  date: 'a calendar date YYYY-MM-DD',
  datetime: 'a UTC date and time YYYY-MM-DDTHH:MM:SSZ',
  url: 'a full URL with a scheme, e.g. https://example.com/page',
  color: 'a hexadecimal colour with a leading #, e.g. #1a2b3c or #fff',
  reference: 'a UUID',
};

const fail = (type: MetafieldType): ValueCheck => ({ ok: false, message: `must be ${EXPECTED[type]} for value_type ${type}` });
const ok = (value: string): ValueCheck => ({ ok: true, value });

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** 2024-02-29 is a date; 2023-02-29 and 2024-13-01 are not. */
function isCalendarDate(year: string, month: string, day: string): boolean {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
}

function parseJsonContainer(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Checks `raw` against `type` and gives the text to store. */
export function canonicalValue(type: MetafieldType, raw: unknown): ValueCheck {
  switch (type) {
    case 'string':
      return typeof raw === 'string' && raw.length > 0 && raw.length <= MAX_TEXT ? ok(raw) : fail(type);
    case 'integer': {
      if (typeof raw === 'number') return Number.isSafeInteger(raw) ? ok(String(raw)) : fail(type);
      if (typeof raw !== 'string' || !/^-?\d{1,19}$/.test(raw)) return fail(type);
      const n = BigInt(raw);
      return n >= INT64_MIN && n <= INT64_MAX ? ok(n.toString()) : fail(type);
    }
    case 'decimal': {
      const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
      return typeof text === 'string' && DECIMAL.test(text) ? ok(text) : fail(type);
    }
    case 'boolean':
      if (raw === true || raw === 'true') return ok('true');
      if (raw === false || raw === 'false') return ok('false');
      return fail(type);
    case 'json': {
      const value = parseJsonContainer(raw);
      if (value === null || typeof value !== 'object') return fail(type);
      const text = JSON.stringify(value);
      return text.length <= MAX_TEXT ? ok(text) : { ok: false, message: `is larger than ${MAX_TEXT} characters of JSON` };
    }
    case 'date': {
      const m = typeof raw === 'string' ? DATE.exec(raw) : null;
      return m && isCalendarDate(m[1], m[2], m[3]) ? ok(raw as string) : fail(type);
    }
    case 'datetime': {
      const m = typeof raw === 'string' ? DATETIME.exec(raw) : null;
      const valid = m && isCalendarDate(m[1], m[2], m[3]) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60;
      return valid ? ok(raw as string) : fail(type);
    }
    case 'url': {
      if (typeof raw !== 'string' || raw.length > 2048 || !FULL_URL.test(raw) || !URL.canParse(raw)) return fail(type);
      return new URL(raw).host ? ok(raw) : fail(type);
    }
    case 'color':
      return typeof raw === 'string' && HEX_COLOR.test(raw) ? ok(raw) : fail(type);
    case 'reference':
      return typeof raw === 'string' && Uuid.safeParse(raw).success ? ok(raw.toLowerCase()) : fail(type);
  }
}
