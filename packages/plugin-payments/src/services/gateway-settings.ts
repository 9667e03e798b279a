import { AppError, Database, Secrets, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { GatewaySetting } from '../entities/gateway-setting.js';
import type { GatewayContext, PaymentGateway } from '../gateway.js';
import { Gateways } from './gateways.js';

export interface GatewaySettingInput {
  enabled?: boolean;
  credentials?: Record<string, string>;
}

/** Each tenant's credentials per gateway, sealed at rest; the admin sets them, nobody reads the secrets back. */
@injectable()
export class GatewaySettings {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(Gateways) private readonly gateways: Gateways,
  ) {}

  async list(): Promise<Map<string, GatewaySetting>> {
    return this.db.tenant(async ({ em }) => new Map((await em.find(GatewaySetting, {})).map((s) => [s.gateway, s])));
  }

  async get(gatewayId: string): Promise<GatewaySetting | null> {
    this.gateways.get(gatewayId);
    return this.db.tenant(({ em }) => em.findOne(GatewaySetting, { gateway: gatewayId }));
  }

  /** Merges the credentials sent into the stored ones; the result must hold every required one. */
  async configure(gatewayId: string, input: GatewaySettingInput): Promise<GatewaySetting> {
    const gateway = this.gateways.get(gatewayId);
    const known = new Set(gateway.credentialFields.map((f) => f.name));
    const unknown = Object.keys(input.credentials ?? {}).filter((name) => !known.has(name));
    if (unknown.length) {
      throw AppError.validation(`${gateway.name} takes no such credential`, unknown.map((name) => ({ path: `body.credentials.${name}`, message: `must be one of: ${[...known].join(', ')}` })));
    }
    return this.db.tenant(async (tx) => {
      const stored = await tx.em.findOne(GatewaySetting, { gateway: gateway.id });
      const credentials = { ...(stored ? this.open(stored) : {}), ...(input.credentials ?? {}) };
      const missing = gateway.credentialFields.filter((f) => f.required && !credentials[f.name]);
      if (missing.length) {
        throw AppError.validation(`${gateway.name} needs more credentials`, missing.map((f) => ({ path: `body.credentials.${f.name}`, message: 'is required' })));
      }
      const publicCredentials = Object.fromEntries(gateway.credentialFields.filter((f) => !f.secret && credentials[f.name]).map((f) => [f.name, credentials[f.name]]));
      const values = {
        enabled: input.enabled ?? stored?.enabled ?? true,
        credentialsSealed: this.secrets.seal(JSON.stringify(credentials)),
        publicCredentials,
        updatedAt: tx.now(),
      };
      if (stored) return Object.assign(stored, values);
      return tx.em.create(GatewaySetting, { tenantId: tx.tenantId, gateway: gateway.id, ...values });
    });
  }

  /**
   * What a call to the gateway needs, in this transaction's tenant: 422 GATEWAY_NOT_CONFIGURED
   * without credentials, or (for new payments) when the admin switched the gateway off.
   */
  async context(tx: Tx, gateway: PaymentGateway, options: { forNewPayments: boolean }): Promise<GatewayContext> {
    const stored = await tx.em.findOne(GatewaySetting, { gateway: gateway.id });
    if (!stored || (options.forNewPayments && !stored.enabled)) {
      throw AppError.unprocessable('GATEWAY_NOT_CONFIGURED', `${gateway.name} is not ${stored ? 'enabled' : 'configured'} for this store`, [
        { path: 'body.gateway', message: stored ? 'is disabled by the store' : 'has no credentials; PUT /api/v1/payments/gateways/' + gateway.id },
      ]);
    }
    const timeoutMs = this.gateways.timeoutMs();
    return { credentials: this.open(stored), baseUrl: this.gateways.baseUrl(gateway), tenantId: tx.tenantId, ...(timeoutMs ? { timeoutMs } : {}) };
  }

  private open(setting: GatewaySetting): Record<string, string> {
    return JSON.parse(this.secrets.open(setting.credentialsSealed)) as Record<string, string>;
  }
}
