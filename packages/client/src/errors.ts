import type { QhatuErrorCode } from './error-codes.js';
import type { components } from './schema.js';

/** The body of every non-2xx answer of the REST API. */
export type ErrorBody = components['schemas']['Error'];
/** One entry of `error.details`: usually `{ path, message }`, sometimes more (e.g. `permission`). */
export type ErrorDetail = ErrorBody['error']['details'][number];

/**
 * A non-2xx answer, carrying the contract's error body: `code` (e.g. `VALIDATION_ERROR`,
 * `NOT_FOUND`, `IDEMPOTENCY_KEY_REUSED`), the English `message` and the `details`.
 * `Code` is the union of the codes the store answers: the full store's by default; a store with
 * plugins of its own names its own (`createQhatuClient<paths, QhatuErrorCode | 'GIFT_WRAP_SOLD_OUT'>`).
 */
export class QhatuApiError<Code extends string = QhatuErrorCode> extends Error {
  override readonly name = 'QhatuApiError';
  readonly status: number;
  readonly code: Code;
  readonly details: ErrorDetail[];
  /** The server's `x-request-id`, to find the request in its logs. */
  readonly requestId: string | undefined;
  readonly method: string;
  readonly url: string;

  constructor(init: { status: number; code: Code; message: string; details?: ErrorDetail[]; requestId?: string; method: string; url: string }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.method = init.method;
    this.url = init.url;
  }

  /** Builds the error from an answer; a body that is not the contract's (a proxy's HTML page) gets code `HTTP_<status>`. */
  static fromResponse<Code extends string = QhatuErrorCode>(method: string, response: Response, body: unknown): QhatuApiError<Code> {
    const base = { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined, method, url: response.url };
    if (isErrorBody(body)) return new QhatuApiError<Code>({ ...base, ...body.error, code: body.error.code as Code });
    return new QhatuApiError<Code>({
      ...base,
      code: `HTTP_${response.status}` as Code,
      message: `${method} ${response.url} answered ${response.status} ${response.statusText}`.trim(),
    });
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as ErrorBody | null)?.error;
  return !!error && typeof error.code === 'string' && typeof error.message === 'string' && (error.details === undefined || Array.isArray(error.details));
}

/**
 * `error instanceof QhatuApiError`, optionally with that code (one of the store's: a misspelt code
 * does not compile): `if (isQhatuApiError(e, 'NOT_FOUND')) ...`. A store with codes of its own
 * names them: `isQhatuApiError<MyErrorCode>(e, 'GIFT_WRAP_SOLD_OUT')`.
 */
export function isQhatuApiError<Code extends string = QhatuErrorCode>(error: unknown): error is QhatuApiError<Code>;
export function isQhatuApiError<Code extends string = QhatuErrorCode, Given extends Code = Code>(error: unknown, code: Given): error is QhatuApiError<Given>;
export function isQhatuApiError(error: unknown, code?: string): boolean {
  return error instanceof QhatuApiError && (code === undefined || error.code === code);
}
