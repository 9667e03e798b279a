import { CREDENTIAL_RATE_LIMIT, CustomFields, dataOf, errorResponses, NoContent, requestLocale } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CustomerActivate, CustomerLogin, CustomerRegister, CustomerSession, RegistrationPending } from '../schemas/auth.js';
import { CustomerAccounts, type CustomerSession as Session } from '../services/accounts.js';
import { sessionOut } from './serialize.js';

export async function customerAuthRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const accounts = container.resolve(CustomerAccounts);
  const fields = container.resolve(CustomFields);
  const out = (s: Session) => sessionOut(s, fields.present('customer', s.customer.customFields));
  const tags = ['Customer accounts'];
  const KEYS = ['admin', 'storefront'] as const;

  // Each try costs a deliberate scrypt or an e-mail: limited per store, client and e-mail.
  r.post('/auth/customer/register', {
    config: { auth: KEYS, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: "Register a customer: 202 and an e-mail to the address (the store's default), or 201 and a session when the store signs shoppers in at once",
      body: CustomerRegister,
      description:
        "The e-mail is written in the body's `locale`, else in the request's (`locale` parameter, market, Accept-Language), with the store's text of the mail in it when there is one (decision 0098).",
      response: { 201: dataOf(CustomerSession), 202: dataOf(RegistrationPending), ...errorResponses(400, 401, 403, 409, 422, 429, 502) },
    },
  }, async (req, reply) => {
    const { session, pending } = await accounts.register(req.body, requestLocale(req));
    if (session) return reply.code(201).send({ data: out(session) });
    return reply.code(202).send({ data: { status: 'verification_sent' as const, email: pending.email } });
  });

  r.post('/auth/customer/activate', {
    config: { auth: KEYS, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Finish a registration with the e-mailed link: sets the password and signs the customer in (storefront or admin key)',
      body: CustomerActivate,
      response: { 200: dataOf(CustomerSession), ...errorResponses(400, 401, 403, 404, 409, 410, 429) },
    },
  }, async (req) => ({ data: out(await accounts.activate(req.body)) }));

  r.post('/auth/customer/login', {
    config: { auth: KEYS, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: {
      tags,
      summary: 'Sign a customer in: a customer token (storefront or admin key)',
      body: CustomerLogin,
      response: { 200: dataOf(CustomerSession), ...errorResponses(400, 401, 403, 429) },
    },
  }, async (req) => ({ data: out(await accounts.login(req.body)) }));

  r.post('/auth/customer/logout', {
    config: { auth: ['customer'] },
    schema: { tags, summary: 'Revoke the customer token this request carries', response: { 204: NoContent, ...errorResponses(400, 401, 403) } },
  }, async (_req, reply) => {
    await accounts.logout();
    return reply.code(204).send(null);
  });
}
