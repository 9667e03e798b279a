import type { GatewayContext } from '@qhatu/plugin-payments';

/** Lyra's `V4/OrderDetails`: the merchant's order the transaction pays. */
export interface LyraOrderDetails {
  orderId?: string | null;
  orderTotalAmount?: number;
  orderCurrency?: string;
  mode?: string;
}

/** Lyra's `V4/Transaction` (Transaction/Get, CancelOrRefund) and `V4/PaymentTransaction` (inside a `V4/Payment`). */
export interface LyraTransaction {
  uuid: string;
  amount?: number;
  currency?: string;
  status?: string;
  detailedStatus?: string;
  operationType?: string;
  paymentMethodType?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  detailedErrorCode?: string | null;
  detailedErrorMessage?: string | null;
  orderDetails?: LyraOrderDetails | null;
  transactionDetails?: {
    parentTransactionUuid?: string | null;
    cardDetails?: { effectiveBrand?: string | null } | null;
  } | null;
}

/** Lyra's `V4/Payment`: the `kr-answer` of the browser return and of the IPN. */
export interface LyraPayment {
  orderStatus?: string;
  orderDetails?: LyraOrderDetails | null;
  transactions: LyraTransaction[];
}

/** Lyra's `V4/WebService/WebServiceError`. */
export interface LyraError {
  errorCode?: string | null;
  errorMessage?: string | null;
  detailedErrorCode?: string | null;
  detailedErrorMessage?: string | null;
}

/** Lyra answers every web service with this envelope; `status` says whether `answer` is the result or an error. */
export type LyraAnswer<T> = { ok: true; answer: T } | { ok: false; error: LyraError };

const TIMEOUT_MS = 15_000;

/** The `Authorization` value of Lyra's REST API: the shop id and its REST password. */
export function basicAuth(shopId: string, password: string): string {
  return `Basic ${Buffer.from(`${shopId}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * Calls one of Lyra's REST V4 web services (`POST /api-payment/V4/<name>`, JSON, Basic auth).
 * Lyra reports its errors (wrong credentials included) inside the envelope, usually with HTTP 200,
 * so the envelope decides; an answer that is not an envelope at all throws (an unreachable provider).
 */
export async function lyra<T>(ctx: GatewayContext, webService: string, body: Record<string, unknown>): Promise<LyraAnswer<T>> {
  const res = await fetch(`${ctx.baseUrl}/api-payment/V4/${webService}`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(ctx.credentials.shop_id ?? '', ctx.credentials.password ?? ''),
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
  const text = await res.text();
  let envelope: { status?: unknown; answer?: unknown };
  try {
    envelope = JSON.parse(text) as { status?: unknown; answer?: unknown };
  } catch {
    throw new Error(`Izipay answered ${res.status} without JSON`);
  }
  const answer = envelope?.answer;
  if (!answer || typeof answer !== 'object') throw new Error(`Izipay answered ${res.status} without an answer`);
  if (envelope.status === 'SUCCESS') return { ok: true, answer: answer as T };
  if (envelope.status === 'ERROR') return { ok: false, error: answer as LyraError };
  throw new Error(`Izipay answered ${res.status} with status ${String(envelope.status)}`);
}

/** Lyra's error as a reason: `errorMessage (errorCode) — detailedErrorMessage`. */
export function errorReason(e: LyraError): string {
  const head = `${e.errorMessage || 'Izipay refused the request'}${e.errorCode ? ` (${e.errorCode})` : ''}`;
  const detail = e.detailedErrorMessage || e.detailedErrorCode;
  return detail ? `${head} — ${detail}` : head;
}
