import type { QhatuGraphQLContext } from '@qhatu/core';
import { AppError } from '@qhatu/core';
import { z } from 'zod';
import { SalesAnalytics } from '../services/analytics.js';

export const analyticsTypeDefs = `
  "Days YYYY-MM-DD (UTC), both included; at most 366 days."
  input AnalyticsRange { start: String!, end: String! }
  "A product's revenue: its lines' part of the range's revenue, net of their discounts, of tax and of refunds (the order's shipping is no product's)."
  type AnalyticsTopProduct { productId: ID!, title: String!, revenue: Int! }
  "One currency's sales: the orders in it paid within the range and paid or further on, net of tax and of refunds, in minor units of it."
  type AnalyticsCurrency { currency: String!, totalRevenue: Int!, totalOrders: Int!, averageOrderValue: Int!, topProducts: [AnalyticsTopProduct!]! }
  "Sales of orders paid within the range and paid or further on, net of tax and of refunds. The top-level figures are the store's default currency's (minor units); byCurrency reports each currency apart, as amounts of two currencies are never added."
  type Analytics {
    totalRevenue: Int!
    totalOrders: Int!
    averageOrderValue: Int!
    topProducts: [AnalyticsTopProduct!]!
    "The store's default currency: the one the figures above are in."
    currency: String!
    "Each currency apart: the default first, then the store's other currencies and any other its orders were paid in, by code (a currency without orders: zeros)."
    byCurrency: [AnalyticsCurrency!]!
  }
  extend type Query {
    "The store's sales over a range of days (an admin key or a staff member with orders.read)."
    analytics(range: AnalyticsRange!): Analytics!
  }
`;

const AnalyticsArgs = z.object({ range: z.object({ start: z.string().max(40), end: z.string().max(40) }) });

export async function analyticsResolver(_: unknown, raw: unknown, ctx: QhatuGraphQLContext) {
  const parsed = AnalyticsArgs.safeParse(raw);
  if (!parsed.success) throw AppError.validation('The range must be two dates YYYY-MM-DD');
  return ctx.container.resolve(SalesAnalytics).figures(parsed.data.range);
}
