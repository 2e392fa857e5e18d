import type { ErrorCode, FieldError } from '../../src-shared/errors';

/** A failure a client caused or can act on; the HTTP layer maps `code` to a status. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'AppError';
  }
}
