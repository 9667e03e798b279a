import { LOCALE_PARAMETER, LocaleTag, pageQuery } from '@qhatu/core';
import { z } from 'zod';

/** A slug as sent: lower-case words joined by single dashes; empty (or absent) means "make one from the name". */
export const Slug = z
  .string()
  .max(255)
  .regex(/^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$/, 'must be lower-case letters and digits separated by single dashes (empty: made from the name)');

export const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const HexColor = z.string().regex(HEX_COLOR, 'must be a hexadecimal colour: # and 3 or 6 hex digits, e.g. #1a2b3c or #fff');

export const Position = z.number().int('must be a whole number').min(0).max(1_000_000);

/** `cursor` and `limit` of a list whose order is not the caller's choice (a collection's products). */
export const PageQuery = pageQuery();
export type PageQuery = z.output<typeof PageQuery>;

/** `cursor`, `limit` and the `locale` of the answer's texts. */
export const LocalePageQuery = pageQuery().extend({ locale: LocaleTag.optional().meta({ description: LOCALE_PARAMETER }) });

/** An unpaginated list takes no query parameters. */
export const NoQuery = z.strictObject({});
