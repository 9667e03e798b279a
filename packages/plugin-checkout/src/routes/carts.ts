import { answerAsBuilt, askedMarket, dataOf, errorResponses, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CartCreate, CartCreateQuery, CartItemCreate, CartItemParams, CartItemUpdate, CartOut, CartParams, CartPatch, CouponCode } from '../schemas/cart.js';
import { Carts } from '../services/carts.js';
import { cartOut } from '../services/views.js';
import { CHECKOUT_ERRORS, shopper } from './shopper.js';

const CREATE_DESCRIPTION = [
  "A cart is made in a market (the body's `market`, else `?market=` or the X-Market header) and a currency, which it keeps:",
  "the market's currency, else the `currency` sent (one the store sells in), else the store's default. Its lines are priced in that currency",
  "and its tax follows the market's prices_include_tax, else the store's setting. An unknown market is 422 MARKET_NOT_FOUND;",
  "a currency the store does not sell in, or other than the market's, 422 CURRENCY_NOT_LISTED.",
].join(' ');

export async function cartRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const carts = container.resolve(Carts);
  const tags = ['Cart'];
  const config = { auth: STOREFRONT, errorCodes: CHECKOUT_ERRORS };
  // Answers are sent as `cartOut` builds them (the hot path of a storefront); `test/carts.test.ts` holds them to `CartOut`.
  const answer = (status: number, ...errors: number[]) => ({ [status]: dataOf(CartOut), ...errorResponses(400, 401, 403, ...errors) });

  r.post('/checkout/carts', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Create a cart', description: CREATE_DESCRIPTION, querystring: CartCreateQuery, body: CartCreate.nullish(), response: answer(201, 422) },
  }, async (req, reply) => {
    const body = req.body ?? {};
    const market = body.market ? { value: body.market, path: 'body.market' } : askedMarket(req);
    return reply.code(201).send({ data: cartOut(await carts.create({ ...body, market }, shopper())) });
  });

  r.get('/checkout/carts/:id', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Read a cart', params: CartParams, response: answer(200, 404, 410, 503) },
  }, async (req) => ({ data: cartOut(await carts.get(req.params.id, shopper())) }));

  r.patch('/checkout/carts/:id', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: "Change the cart's custom fields (storefront keys and customers: the public ones)", params: CartParams, body: CartPatch, response: answer(200, 404, 409, 410) },
  }, async (req) => ({ data: cartOut(await carts.setCustomFields(req.params.id, req.body.custom_fields, shopper())) }));

  r.post('/checkout/carts/:id/items', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: "Add a variant at its catalog price, or on a seller's offer (offer_id) at the offer's price", params: CartParams, body: CartItemCreate, response: answer(201, 404, 409, 410, 422, 503) },
  }, async (req, reply) => {
    const { offer_id } = req.body;
    const view = offer_id ? await carts.addOffer(req.params.id, { ...req.body, offer_id }, shopper()) : await carts.addItem(req.params.id, req.body, shopper());
    return reply.code(201).send({ data: cartOut(view) });
  });

  r.put('/checkout/carts/:id/items/:variant_id', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: "Set a line's quantity", params: CartItemParams, body: CartItemUpdate, response: answer(200, 404, 409, 410, 503) },
  }, async (req) => ({ data: cartOut(await carts.setQuantity(req.params.id, { variantId: req.params.variant_id }, req.body.quantity, shopper())) }));

  r.delete('/checkout/carts/:id/items/:variant_id', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Remove a line', params: CartItemParams, response: answer(200, 404, 409, 410, 503) },
  }, async (req) => ({ data: cartOut(await carts.removeItem(req.params.id, { variantId: req.params.variant_id }, shopper())) }));

  r.post('/checkout/carts/:id/coupon', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Apply a coupon', params: CartParams, body: CouponCode, response: answer(200, 404, 409, 410, 422) },
  }, async (req) => ({ data: cartOut(await carts.applyCoupon(req.params.id, req.body.code, shopper())) }));

  r.delete('/checkout/carts/:id/coupon', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Remove the coupon', params: CartParams, response: answer(200, 404, 409, 410, 503) },
  }, async (req) => ({ data: cartOut(await carts.removeCoupon(req.params.id, shopper())) }));
}
