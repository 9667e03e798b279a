import { answerAsBuilt, dataOf, errorResponses, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CheckoutComplete, CheckoutCreate, CheckoutOut, CheckoutParams, CheckoutShipping } from '../schemas/checkout.js';
import { Checkouts } from '../services/checkouts.js';
import { checkoutOut } from '../services/views.js';
import { CHECKOUT_ERRORS, shopper } from './shopper.js';

const COMPLETE_DESCRIPTION = [
  "A checkout completes when its order's payment is confirmed: the payments plugin's confirmation completes it by itself (a job), and this call is the explicit way to ask.",
  "It needs the checkout's own order (`order_id`, placed by the shipping step with a shipping rate) with a confirmed payment (the order is paid or further on).",
  'It answers the completed checkout (200), completing it when the job has not yet; again, the same answer.',
  'Before an order exists: 409 INVALID_STATE_TRANSITION; another order: 422 ORDER_MISMATCH; payment not confirmed: 409 PAYMENT_NOT_CONFIRMED.',
  'There is no way to complete without a confirmed payment.',
].join(' ');

const SHIPPING_DESCRIPTION = [
  'Addresses (billing defaults to shipping) and, optionally, the shipping rate; with a rate the order is placed and the checkout awaits payment.',
  "Where the store prices shipping (the shipping plugin's rate table or a live carrier), the charge is the store's price for the carrier, service and parcel, whatever `price` is sent;",
  'an unknown carrier or service is 422 SHIPPING_CARRIER_UNKNOWN / SHIPPING_SERVICE_UNKNOWN. A store that prices no shipping charges the price sent.',
].join(' ');

export async function checkoutRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const checkouts = container.resolve(Checkouts);
  const tags = ['Checkout'];
  const config = { auth: STOREFRONT, errorCodes: CHECKOUT_ERRORS };
  const answer = (status: number, ...errors: number[]) => ({ [status]: dataOf(CheckoutOut), ...errorResponses(400, 401, 403, ...errors) });

  // The two steps of placing an order answer as `checkoutOut` builds them (a sale's hot path); `test/placing.test.ts` holds them to `CheckoutOut`.
  r.post('/checkout/checkouts', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Check out a cart (the cart is frozen)', body: CheckoutCreate, response: answer(201, 404, 409, 410, 422, 503) },
  }, async (req, reply) => reply.code(201).send({ data: checkoutOut(await checkouts.create(req.body, shopper())) }));

  r.get('/checkout/checkouts/:id', {
    config,
    schema: { tags, summary: 'Read a checkout', params: CheckoutParams, response: answer(200, 404, 503) },
  }, async (req) => ({ data: checkoutOut(await checkouts.get(req.params.id, shopper())) }));

  r.put('/checkout/checkouts/:id/shipping', {
    ...answerAsBuilt,
    config,
    schema: { tags, summary: 'Set the addresses and the shipping rate', description: SHIPPING_DESCRIPTION, params: CheckoutParams, body: CheckoutShipping, response: answer(200, 404, 409, 422, 503) },
  }, async (req) => ({ data: checkoutOut(await checkouts.setShipping(req.params.id, req.body, shopper())) }));

  r.post('/checkout/checkouts/:id/complete', {
    config,
    schema: {
      tags,
      summary: 'Complete the checkout of a placed order once its payment is confirmed',
      description: COMPLETE_DESCRIPTION,
      params: CheckoutParams,
      body: CheckoutComplete,
      response: answer(200, 404, 409, 422),
    },
  }, async (req) => ({ data: checkoutOut(await checkouts.complete(req.params.id, req.body.order_id, shopper())) }));

  r.post('/checkout/checkouts/:id/abandon', {
    config,
    schema: { tags, summary: 'Mark the checkout abandoned', params: CheckoutParams, response: answer(200, 404, 409) },
  }, async (req) => ({ data: checkoutOut(await checkouts.abandon(req.params.id, shopper())) }));
}
