import { AppError } from './errors';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** An opaque page cursor for lists ordered by a ULID id: the last id of the page. */
export function encodeCursor(id: string): string {
  return Buffer.from(id).toString('base64url');
}

/** The id inside a cursor; a 400 naming `field` when it is not one this API gave out. */
export function decodeCursor(cursor: string, field: string): string {
  const id = Buffer.from(cursor, 'base64url').toString();
  if (!ULID.test(id)) throw new AppError('validation', `${field} is not a ${field} this API gave out`, [{ path: field, message: 'is not valid' }]);
  return id;
}
