import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { TenantContext } from '../context.js';
import { ADMIN } from '../http/route-config.js';
import { dataOf, errorResponses, NoContent } from '../http/schemas.js';
import { LocaleTag } from '../translations/locales.js';
import type { MailDefinition } from '../plugin.js';
import { MAIL_KEY, MailTexts, type MailText } from './texts.js';

const MailTextOut = z
  .object({
    locale: z.string(),
    subject: z.string(),
    text: z.string().meta({ description: 'Plain text with {{variable}} placeholders; the HTML part is made from it (escaped, a paragraph per block)' }),
    updated_at: z.string(),
  })
  .meta({ id: 'MailText' });

const MailOut = z
  .object({
    key: z.string(),
    plugin: z.string(),
    description: z.string(),
    variables: z.record(z.string(), z.string()).meta({ description: 'The placeholders its texts may use, with what each holds' }),
    texts: z.array(MailTextOut).meta({ description: "The store's texts by locale; a locale without one reads the default locale's, else the built-in message" }),
  })
  .meta({ id: 'Mail' });

const KeyParams = z.object({ key: z.string().max(120).regex(MAIL_KEY, 'must be a mail key such as abandoned-carts.reminder') });
const KeyLocaleParams = KeyParams.extend({ locale: LocaleTag });

const MailTextPut = z
  .strictObject({
    subject: z.string().trim().min(1).max(200),
    text: z.string().trim().min(1).max(20_000),
  })
  .meta({ id: 'MailTextPut' });

const textOut = (t: MailText) => ({ locale: t.locale, subject: t.subject, text: t.text, updated_at: t.updatedAt.toISOString() });
const mailOut = (m: MailDefinition & { plugin: string }, texts: MailText[]) => ({
  key: m.key,
  plugin: m.plugin,
  description: m.description,
  variables: { ...m.variables },
  texts: texts.filter((t) => t.key === m.key).map(textOut),
});

/** The store's texts of the e-mails its plugins send to customers, per locale (decision 0098). */
export async function mailTextRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const mails = container.resolve(MailTexts);
  const tags = ['Mail texts'];

  r.get('/mail-texts', {
    config: { auth: ADMIN, permission: 'store.read' },
    schema: { tags, summary: 'The e-mails the store sends its customers, with their variables and the store’s texts per locale', response: { 200: dataOf(z.array(MailOut)), ...errorResponses(400, 401, 403) } },
  }, async () => {
    const texts = await mails.list();
    return { data: mails.definitions().map((m) => mailOut(m, texts)) };
  });

  r.get('/mail-texts/:key', {
    config: { auth: ADMIN, permission: 'store.read' },
    schema: { tags, summary: 'One e-mail, with its variables and the store’s texts per locale', params: KeyParams, response: { 200: dataOf(MailOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const mail = mails.definition(req.params.key);
    return { data: mailOut(mail, await mails.list(mail.key)) };
  });

  r.put('/mail-texts/:key/:locale', {
    config: { auth: ADMIN, permission: 'store.manage' },
    schema: {
      tags,
      summary: "Write the store's text of an e-mail in one of its locales",
      description: 'In the default locale it replaces the built-in message for every locale without a text of its own. Placeholders the mail does not have are a 422 MAIL_VARIABLE_UNKNOWN; a locale the store does not list a 422 LOCALE_NOT_LISTED.',
      params: KeyLocaleParams,
      body: MailTextPut,
      response: { 200: dataOf(MailTextOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req) => ({ data: textOut(await mails.put(TenantContext.tenantId(), req.params.key, req.params.locale, req.body)) }));

  r.delete('/mail-texts/:key/:locale', {
    config: { auth: ADMIN, permission: 'store.manage' },
    schema: { tags, summary: "Remove the store's text of an e-mail in a locale", params: KeyLocaleParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await mails.remove(TenantContext.tenantId(), req.params.key, req.params.locale);
    return reply.code(204).send(null);
  });
}
