import { MarketQuery } from '@qhatu/core';
import { z } from 'zod';

const GatewayId = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be a gateway id, e.g. stripe');

/** `/payments/gateways/:id`, as the contract names it: the id is the gateway's (stripe, culqi, ...). */
export const GatewayParams = z.object({ id: GatewayId });

/** The list's filter: the currency a checkout pays in, or the market whose currency it is. */
export const GatewayListQuery = z.object({
  market: MarketQuery.shape.market.meta({
    description: "Only the gateways that take the market's currency: a market of the store by handle (or the X-Market header); unknown, 422 MARKET_NOT_FOUND",
  }),
  currency: MarketQuery.shape.currency.meta({
    description: 'Only the gateways that take this currency, one the store sells in (another is a 422 CURRENCY_NOT_LISTED; beside a market, it must be the market\u2019s). Absent, with no market: every installed gateway',
  }),
});

export const GatewaySettingUpdate = z
  .strictObject({
    enabled: z.boolean().optional(),
    credentials: z
      .record(z.string().min(1).max(60), z.string().min(1).max(4096))
      .optional()
      .meta({ description: "The gateway's credential_fields; merged into the stored ones; secrets are never returned" }),
  })
  .meta({ id: 'PaymentGatewayUpdate' });

export const GatewayOut = z
  .object({
    id: z.string(),
    name: z.string(),
    currencies: z.array(z.string()),
    payment_fields: z.array(z.object({ name: z.string(), type: z.enum(['string', 'integer']), required: z.boolean(), description: z.string() })),
    credential_fields: z.array(z.object({ name: z.string(), required: z.boolean(), secret: z.boolean(), description: z.string() })),
    configured: z.boolean(),
    enabled: z.boolean(),
    public_credentials: z.record(z.string(), z.string()).meta({ description: 'The credentials that are not secret (a publishable key)' }),
    notification_url: z.string().meta({ description: "The address to paste into the provider's dashboard for its notifications (webhooks, IPN): the gateway's /webhooks path with this store's id" }),
    session: z
      .object({ field: z.string().nullable(), required: z.boolean() })
      .nullable()
      .meta({ description: 'Set when the gateway opens payment sessions (POST /api/v1/payments/sessions): the payment field naming one, and whether a payment needs one' }),
  })
  .meta({ id: 'PaymentGateway' });

export const NotificationParams = z.object({ gateway: GatewayId, tenant_id: z.string().max(64) });
export const BareNotificationParams = z.object({ gateway: GatewayId });

export const NotificationOut = z
  .object({
    received: z.boolean(),
    outcome: z.enum(['processed', 'duplicate', 'ignored']),
    payment_id: z.uuid().optional().meta({ description: "A provider form's post back: the payment it made" }),
    status: z.string().optional(),
  })
  .meta({ id: 'PaymentNotificationReceipt' });
