import { Uuid } from '@qhatu/core';
import { z } from 'zod';
import { REVIEW_SETTING_FIELDS, REVIEW_SETTINGS } from '../services/settings.js';

export const SettingChange = z
  .strictObject({
    field: z.string().min(1).max(64).meta({ description: `One of ${REVIEW_SETTING_FIELDS.join(', ')}`, example: 'auto_approve' }),
    value: z.string().max(64).meta({ description: 'As a string: "true" / "false", or a rating "1" to "5"', example: 'true' }),
  })
  .meta({ id: 'ReviewSettingChange' });

const shape = Object.fromEntries(
  REVIEW_SETTING_FIELDS.map((f) => {
    const d = REVIEW_SETTINGS[f];
    return [f, (d.type === 'boolean' ? z.boolean() : z.number().int().min(1).max(5)).meta({ description: `${d.description}; default ${d.default}` })];
  }),
) as unknown as Record<(typeof REVIEW_SETTING_FIELDS)[number], z.ZodType>;

export const ReviewSettingsOut = z.object(shape).meta({ id: 'ReviewSettings' });

export const ProductReviewSettingsOut = z
  .object({
    product_id: Uuid,
    /** What applies to the product: its overrides over the store's settings. */
    settings: ReviewSettingsOut,
    overrides: z.object(Object.fromEntries(REVIEW_SETTING_FIELDS.map((f) => [f, shape[f].optional()]))).meta({ description: 'The fields this product sets itself' }),
  })
  .meta({ id: 'ProductReviewSettings' });

export const OverrideParams = z.object({ id: Uuid, field: z.string().min(1).max(64) });

export const PanelQuery = z.strictObject({
  nonce: z
    .string()
    .regex(/^[A-Za-z0-9+/_=-]{8,128}$/, 'must be a CSP nonce (8 to 128 base64 characters)')
    .optional()
    .meta({ description: "The host page's Content-Security-Policy nonce, put on the panel's script and style" }),
});
