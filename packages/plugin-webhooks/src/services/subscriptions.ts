import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, Database, paginate, PLUGINS, Secrets, type Page, type PageRequest, type QhatuPlugin } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Subscription } from '../entities/subscription.js';
import { isPrivateAddress, resolveHost } from './address-policy.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './settings.js';

export interface SubscriptionInput {
  url: string;
  events: string[];
  secret?: string;
  description?: string | null;
  enabled?: boolean;
}

/** Tenants' receivers: what they want to hear about and where. */
@injectable()
export class Subscriptions {
  private readonly eventTypes: string[];

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    @inject(PLUGINS) plugins: QhatuPlugin[],
  ) {
    this.eventTypes = [...new Set(plugins.flatMap((p) => p.events ?? []))].sort();
  }

  /** Every event type the installed plugins publish. */
  validEventTypes(): string[] {
    return this.eventTypes;
  }

  async create(input: SubscriptionInput): Promise<{ subscription: Subscription; secret: string }> {
    this.checkEvents(input.events);
    await this.checkUrl(input.url);
    const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64')}`;
    const subscription = await this.db.tenant(async (tx) => {
      const at = tx.now();
      return tx.em.create(Subscription, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        secretSealed: this.secrets.seal(secret),
        createdAt: at,
        updatedAt: at,
      });
    });
    return { subscription, secret };
  }

  async list(page: PageRequest): Promise<Page<Subscription>> {
    return this.db.tenant(({ em }) => paginate(em, Subscription, {}, page));
  }

  async get(id: string): Promise<Subscription> {
    return this.db.tenant(({ em }) => this.find(em, id));
  }

  async update(id: string, patch: Partial<SubscriptionInput>): Promise<Subscription> {
    if (patch.events) this.checkEvents(patch.events);
    if (patch.url) await this.checkUrl(patch.url);
    return this.db.tenant(async (tx) => {
      const subscription = await this.find(tx.em, id);
      if (patch.url !== undefined) subscription.url = patch.url;
      if (patch.events !== undefined) subscription.events = [...new Set(patch.events)];
      if (patch.description !== undefined) subscription.description = patch.description;
      if (patch.enabled !== undefined) subscription.enabled = patch.enabled;
      if (patch.secret !== undefined) subscription.secretSealed = this.secrets.seal(patch.secret);
      subscription.updatedAt = tx.now();
      return subscription;
    });
  }

  async remove(id: string): Promise<void> {
    await this.db.tenant(async ({ em }) => em.remove(await this.find(em, id)));
  }

  secretOf(subscription: Subscription): string {
    return this.secrets.open(subscription.secretSealed);
  }

  private async find(em: Parameters<Parameters<Database['tenant']>[0]>[0]['em'], id: string): Promise<Subscription> {
    const subscription = await em.findOne(Subscription, { id });
    if (!subscription) throw AppError.notFound('Webhook subscription', 'WEBHOOK_NOT_FOUND');
    return subscription;
  }

  private checkEvents(events: string[]): void {
    const unknown = events.filter((e) => !this.eventTypes.includes(e));
    if (unknown.length > 0) {
      throw AppError.validation(`Unknown event types: ${unknown.join(', ')}. Valid types: ${this.eventTypes.join(', ')}`, [
        { path: 'body.events', message: `unknown: ${unknown.join(', ')}`, valid_types: this.eventTypes },
      ]);
    }
  }

  /** https outside development; private and loopback addresses only where the operator allows them. */
  private async checkUrl(raw: string): Promise<void> {
    const url = new URL(raw);
    const refuse = (message: string) => AppError.validation(message, [{ path: 'body.url', message }]);
    if (this.settings.httpsOnly && url.protocol !== 'https:') throw refuse('The receiver URL must use https');
    if (url.username || url.password) throw refuse('The receiver URL must not carry credentials');
    if (this.settings.allowPrivate) return;
    let addresses: string[];
    try {
      addresses = await resolveHost(url.hostname);
    } catch {
      throw refuse(`The host ${url.hostname} cannot be resolved`);
    }
    if (addresses.some(isPrivateAddress)) throw refuse(`The host ${url.hostname} is a private, loopback or link-local address`);
  }
}
