import type { ErrorCode, FieldError } from '../../src-shared/errors';

/** What some errors add to the error body beside `error`: the domain calls' `records`, a scenario file's located `errors`. */
export interface ErrorExtras {
  records?: Record<string, unknown>;
  errors?: readonly unknown[];
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
