/** One error type for the whole platform: a status, a stable code and a sentence for humans. */
export interface ErrorDetail {
  path?: string;
  message: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }

  static validation(message: string, details: ErrorDetail[] = []) {
    return new AppError(400, 'VALIDATION_ERROR', message, details);
  }
  static notFound(what: string, code = 'NOT_FOUND') {
    return new AppError(404, code, `${what} not found`);
  }
  static conflict(message: string, code = 'CONFLICT', details: ErrorDetail[] = []) {
    return new AppError(409, code, message, details);
  }
  static unprocessable(code: string, message: string, details: ErrorDetail[] = []) {
    return new AppError(422, code, message, details);
  }
  static unauthenticated(message = 'A valid bearer token is required') {
    return new AppError(401, 'UNAUTHENTICATED', message);
  }
  static forbidden(message = 'This credential may not perform this operation') {
    return new AppError(403, 'FORBIDDEN', message);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** "an order", "a storefront": the indefinite article a word takes, for messages that read as English. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
