import { appError } from './error-catalogue';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** An opaque page cursor for lists ordered by a ULID id: the last id of the page. */
export function encodeCursor(id: string): string {
  return Buffer.from(id).toString('base64url');
}

/** `id` when it is an id this API gives out (a ULID), else a 400 naming `field`. */
export function cursorId(id: string, field: string): string {
  if (!ULID.test(id)) throw appError('invalidCursor', { field });
  return id;
}

/** The id inside a cursor; a 400 naming `field` when it is not one this API gave out. */
export function decodeCursor(cursor: string, field: string): string {
  return cursorId(Buffer.from(cursor, 'base64url').toString(), field);
}

/**
 * One page of a list read with `limit + 1` rows: the first `limit`, and the cursor of the next page
 * (the last row's id) when the extra row shows there is one.
 */
export function paginate<T>(rows: T[], limit: number, idOf: (row: T) => string): { page: T[]; next: string | null } {
  const page = rows.slice(0, limit);
  return { page, next: rows.length > limit ? encodeCursor(idOf(page.at(-1)!)) : null };
}
