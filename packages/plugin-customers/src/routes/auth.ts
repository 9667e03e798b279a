import { CREDENTIAL_RATE_LIMIT, dataOf, errorResponses, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CustomerLogin, CustomerRegister, CustomerSession } from '../schemas/auth.js';
import { CustomerAccounts } from '../services/accounts.js';
import { sessionOut } from './serialize.js';

export async function customerAuthRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const accounts = container.resolve(CustomerAccounts);
  const tags = ['Customer accounts'];
  const KEYS = ['admin', 'storefront'] as const;

  // Each try costs a deliberate scrypt: limited per store, client and e-mail.
  r.post('/auth/customer/register', {
    config: { auth: KEYS, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Create a customer account and sign in (storefront or admin key)',
      body: CustomerRegister,
      response: { 201: dataOf(CustomerSession), ...errorResponses(400, 401, 403, 409, 429) },
    },
  }, async (req, reply) => reply.code(201).send({ data: sessionOut(await accounts.register(req.body)) }));

  r.post('/auth/customer/login', {
    config: { auth: KEYS, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Sign a customer in: a customer token (storefront or admin key)',
      body: CustomerLogin,
      response: { 200: dataOf(CustomerSession), ...errorResponses(400, 401, 403, 429) },
    },
  }, async (req) => ({ data: sessionOut(await accounts.login(req.body)) }));

  r.post('/auth/customer/logout', {
    config: { auth: ['customer'] },
    schema: { tags, summary: 'Revoke the customer token this request carries', response: { 204: NoContent, ...errorResponses(400, 401, 403) } },
  }, async (_req, reply) => {
    await accounts.logout();
    return reply.code(204).send(null);
  });
}
