import { AppError, type QhatuConfig } from '@qhatu/core';
import { z, type ZodType } from 'zod';
import type { PaymentGateway } from '../gateway.js';

/** The installed gateways (every `PAYMENT_GATEWAY` registration) and where each provider lives. */
export class Gateways {
  private readonly byId = new Map<string, PaymentGateway>();

  constructor(
    gateways: PaymentGateway[],
    private readonly config: QhatuConfig,
  ) {
    for (const gateway of gateways) {
      if (this.byId.has(gateway.id)) throw new Error(`Payment gateway "${gateway.id}" is registered twice`);
      this.byId.set(gateway.id, gateway);
    }
  }

  all(): PaymentGateway[] {
    return [...this.byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The installed gateways that take `currency` (a checkout offers only these). */
  taking(currency: string): PaymentGateway[] {
    return this.all().filter((g) => g.currencies.includes(currency));
  }

  find(id: string): PaymentGateway | undefined {
    return this.byId.get(id);
  }

  get(id: string): PaymentGateway {
    const gateway = this.byId.get(id);
    if (!gateway) throw new AppError(404, 'GATEWAY_NOT_FOUND', `No payment gateway "${id}" is installed`);
    return gateway;
  }

  /** The gateway a request names, or a 400 naming the installed ones. */
  installed(id: string): PaymentGateway {
    const gateway = this.byId.get(id);
    if (gateway) return gateway;
    const installed = this.all().map((g) => g.id);
    throw AppError.validation(`No payment gateway "${id}" is installed`, [
      { path: 'body.gateway', message: installed.length ? `must be one of: ${installed.join(', ')}` : 'no gateway is installed' },
    ]);
  }

  /** Operator configuration only (QHATU_GATEWAY_<ID>_BASE_URL), never a tenant setting. */
  baseUrl(gateway: PaymentGateway): string {
    const key = `QHATU_GATEWAY_${gateway.id.toUpperCase().replace(/-/g, '_')}_BASE_URL`;
    return (this.config.environment[key] || gateway.defaultBaseUrl).replace(/\/+$/, '');
  }

  /** The operator's bound on one provider call (QHATU_GATEWAY_TIMEOUT_MS), or undefined: each gateway's own. */
  timeoutMs(): number | undefined {
    const value = Number(this.config.environment.QHATU_GATEWAY_TIMEOUT_MS);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  }

  /**
   * Checks a payment request against the gateway: its currency and its own fields, each failure
   * named in the details. Returns the gateway's fields.
   */
  checkPayment(input: { gateway: string; currency: string } & Record<string, unknown>): { gateway: PaymentGateway; fields: Record<string, unknown> } {
    const gateway = this.installed(input.gateway);
    const details = [];
    if (!gateway.currencies.includes(input.currency)) {
      details.push({ path: 'body.currency', message: `${gateway.name} does not take ${input.currency}` });
    }
    const shape: Record<string, ZodType> = {};
    for (const f of gateway.paymentFields) {
      const base = f.type === 'integer' ? z.number().int().min(1) : z.string().min(1).max(f.maxLength ?? 500);
      shape[f.name] = f.required ? base : base.optional();
    }
    const parsed = z.object(shape).safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const name = String(issue.path[0]);
        const missing = input[name] === undefined;
        details.push({ path: `body.${name}`, message: missing ? `is required by ${gateway.name}` : issue.message });
      }
    }
    if (details.length) throw AppError.validation(`The payment does not meet ${gateway.name}'s requirements`, details);
    return { gateway, fields: parsed.data as Record<string, unknown> };
  }
}
