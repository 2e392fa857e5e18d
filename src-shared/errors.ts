/**
 * Error codes shared by the emulator and its clients, and the HTTP status each maps to. Each error
 * the emulator answers is an entry of its catalogue (src-main/core/error-catalogue.ts, listed in
 * docs/errors.md) with one of these codes.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unreachable: 422,
  too_many_requests: 429,
  header_fields_too_large: 431,
  internal: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  path: string;
  message: string;
}
