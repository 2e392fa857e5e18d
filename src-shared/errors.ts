/**
 * Error codes shared by the emulator and its clients, and the HTTP status each maps to.
 * Services throw `AppError(code, message)`; the HTTP layer turns the code into a status.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unreachable: 422,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Messages fixed by the service spec (part 7.1) and the contract; returned verbatim. */
export const MESSAGES = {
  noEventEnabled: 'at least one of webhook_options.events must be true',
  eventsForDomainVerification: 'invalid webhook_options.events for DOMAIN_VERIFICATION',
  webhookExists: 'Webhook Already Exists',
  webhookNotFound: 'Webhook Not Found',
  unauthorized: 'Unauthorized',
  payloadTooLarge: 'Payload Too Large',
  unsupportedMediaType: 'Content-Type must be application/json',
  unreachablePrefix: 'Webhook URL is not reachable: ',
} as const;

export interface FieldError {
  path: string;
  message: string;
}
