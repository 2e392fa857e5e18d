import type { ErrorCode, FieldError } from '../../src-shared/errors';

/** What some operations add to the error body beside `error` (the domain calls' `records`, a webhook call's `details`). */
export interface ErrorExtras {
  details?: Record<string, unknown>;
  records?: Record<string, unknown>;
}

/**
 * A failure a client caused or can act on; the HTTP layer maps `code` to a status. Made by
 * `appError` from the catalogue (error-catalogue.ts), where every error's words are written.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: readonly FieldError[],
    readonly extras?: ErrorExtras,
  ) {
    super(message);
    this.name = 'AppError';
  }
}
