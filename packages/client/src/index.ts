export { createQhatuClient, type DataMethod, type ItemOf, type ListPath, type QhatuClient, type QhatuClientOptions, type ResponseOf } from './client.js';
export { ERROR_CODES, type QhatuErrorCode } from './error-codes.js';
export { isQhatuApiError, QhatuApiError, type ErrorBody, type ErrorDetail } from './errors.js';
export type { components, operations, paths } from './schema.js';
