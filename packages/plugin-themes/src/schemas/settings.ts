import { plainText } from '@qhatu/core';
import { z } from 'zod';

/** The most a settings draft may weigh, as JSON. */
export const MAX_SETTINGS_BYTES = 256 * 1024;

const Id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, dashes or underscores');
/** Plain text: markup removed when stored (`<b>Sale</b>` → `Sale`); a storefront renders it as text. */
export const PlainText = (max: number) => z.string().trim().max(max).overwrite(plainText).trim();

const Type = PlainText(100).min(1);

/** How a storefront renders a setting's value, told by its name (decision 0056); the same words in the README. */
export const SETTING_KINDS =
  'Setting name → value (any JSON; objects and arrays nest). A string is read by the name that holds it (an array item by its array\'s name): ' +
  '`html` or `*_html` is HTML, sanitized to an allow-list when stored (render it as HTML); ' +
  '`url`, `href`, `src`, `link`, `image` or `*_url`, `*_href`, `*_src`, `*_link`, `*_image` (plurals too) is a URL: an http or https URL or a relative path, ' +
  'anything else is 422 THEME_SETTING_URL_INVALID; every other string is plain text, markup removed (render it as text), and no value may be a javascript:, vbscript: or data: URL. ' +
  'The keys `__proto__`, `constructor` and `prototype` are refused anywhere (422 THEME_SETTING_KEY_RESERVED).';

const Values = z.record(z.string().min(1).max(100), z.unknown()).meta({ description: SETTING_KINDS });

const Block = z.strictObject({ type: Type, disabled: z.boolean().optional(), settings: Values.default({}) });

export const ThemeSection = z
  .strictObject({
    type: Type.meta({ description: 'The theme section type it renders, e.g. `hero`' }),
    disabled: z.boolean().optional(),
    settings: Values.default({}),
    blocks: z.record(Id, Block).optional(),
    block_order: z.array(Id).max(100).optional(),
  })
  .meta({ id: 'ThemeSection' });

function uniqueAndKnown(ctx: z.RefinementCtx, order: string[], known: Record<string, unknown>, path: (string | number)[], what: string) {
  const seen = new Set<string>();
  order.forEach((id, i) => {
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [...path, i], message: `lists "${id}" twice` });
    else if (!Object.hasOwn(known, id)) ctx.addIssue({ code: 'custom', path: [...path, i], message: `"${id}" is not one of the ${what}` });
    seen.add(id);
  });
}

/** How deep `sections` may nest (sections, blocks, settings and their values): enough for any editor, and no stack to blow. */
export const MAX_DEPTH = 20;

/** Whether `value` nests deeper than `max` levels; walks iteratively and stops at the first one too deep. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A theme's settings: the sections, and the order the storefront shows them in. */
export const ThemeSettings = z
  .strictObject({
    section_order: z.array(Id).max(200),
    sections: z.record(Id, ThemeSection),
  })
  .superRefine((value, ctx) => {
    if (Object.keys(value.sections).length > 200) ctx.addIssue({ code: 'custom', path: ['sections'], message: 'has more than 200 sections' });
    uniqueAndKnown(ctx, value.section_order, value.sections, ['section_order'], 'sections');
    for (const [id, section] of Object.entries(value.sections)) {
      if (section.blocks && Object.keys(section.blocks).length > 100) {
        ctx.addIssue({ code: 'custom', path: ['sections', id, 'blocks'], message: 'has more than 100 blocks' });
      }
      if (section.block_order) uniqueAndKnown(ctx, section.block_order, section.blocks ?? {}, ['sections', id, 'block_order'], 'blocks of this section');
    }
    if (nestsDeeperThan(value.sections, MAX_DEPTH)) {
      ctx.addIssue({ code: 'custom', path: ['sections'], message: `nests more than ${MAX_DEPTH} levels deep` });
      return;
    }
    if (Buffer.byteLength(JSON.stringify(value)) > MAX_SETTINGS_BYTES) {
      ctx.addIssue({ code: 'custom', path: [], message: `is larger than ${MAX_SETTINGS_BYTES / 1024} KB` });
    }
  })
  .meta({ id: 'ThemeSettings', description: 'Every id in `section_order` (and in a section\'s `block_order`) must be one of its sections (blocks), once' });

/** Settings as stored (validated when written): answered without checking them again. */
export const ThemeSettingsOut = z
  .object({
    section_order: z.array(z.string()),
    sections: z.record(z.string(), z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'ThemeSettingsOut', description: `As stored: every value already cleaned. ${SETTING_KINDS}` });

export const VersionSummary = z
  .object({
    id: z.uuid(),
    label: z.string().meta({ description: 'Plain text' }),
    created_by: z.uuid().nullable().meta({ description: 'Who saved it; null for the baseline (the theme\'s own settings)' }),
    created_at: z.string().meta({ description: 'DD/MM/YYYY HH:MM in the store\'s time zone', example: '24/11/2026 16:35' }),
  })
  .meta({ id: 'ThemeVersionSummary' });

export const VersionList = z.object({
  versions: z.array(VersionSummary).meta({ description: 'The 50 most recent, newest first' }),
  baseline: VersionSummary.nullable().meta({ description: 'The theme\'s own settings as installed: never deleted, restorable at any time' }),
});

export const VersionInput = z
  .strictObject({ label: PlainText(100).optional().meta({ description: 'Plain text: markup is removed when it is saved' }) })
  .nullish();

export const VersionOut = z
  .object({ id: z.uuid(), label: z.string(), created_by: z.uuid().nullable(), snapshot: ThemeSettingsOut, created_at: z.string() })
  .meta({ id: 'ThemeVersion' });

export const RestoreOut = z.object({ ok: z.literal(true), label: z.string() });

export const PublishOut = z.object({
  ok: z.literal(true),
  label: z.string().meta({ example: 'Publicado' }),
  version_id: z.uuid().meta({ description: 'The version that keeps what was published' }),
  published_at: z.iso.datetime(),
});

export const TimeZoneBody = z
  .strictObject({ time_zone: z.string().min(1).max(64).meta({ description: 'An IANA time zone', example: 'America/Lima' }) })
  .meta({ id: 'ThemeTimeZone' });

