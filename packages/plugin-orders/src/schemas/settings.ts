import { Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { STOCK_POLICIES } from '../entities/settings.js';

const StockPolicy = z.enum(STOCK_POLICIES).meta({
  description:
    'What happens to a paid order that cannot get its stock (a staff order, a variant tracked since): ' +
    'refund (default): orders.order.stock_unavailable is published and the payments plugin refunds what was paid; ' +
    'wait: orders.order.stock_shortage is published and the order waits in confirmed until stock arrives',
});

export const OrderSettingsReplace = z.strictObject({ stock_policy: StockPolicy }).meta({ id: 'OrderSettingsReplace' });

export const OrderSettingsOut = z
  .object({
    stock_policy: StockPolicy,
    stock_policy_is_default: z.boolean().meta({ description: 'Whether the store never set it' }),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'OrderSettings' });
