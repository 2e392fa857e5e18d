import { appError } from './error-catalogue';
import type { CopyPosition } from './store/messages.repo';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** An opaque page cursor: the place of a page's last row (a ULID id, or a copy's position). */
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

/** A copy's place in a newest-first list of copies, as a cursor holds it: `createdMs.key`. */
export function copyPositionText(position: CopyPosition): string {
  return `${position.createdMs}.${position.key}`;
}

/** The place `copyPositionText` wrote; a 400 naming `field` when `text` is not one. */
export function copyPosition(text: string, field: string): CopyPosition {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (!match) throw appError('invalidCursor', { field });
  return { createdMs: Number(match[1]), key: Number(match[2]) };
}

/** The place inside a cursor of a list of copies; a 400 naming `field` when it is not one this API gave out. */
export function decodeCopyCursor(cursor: string, field: string): CopyPosition {
  return copyPosition(Buffer.from(cursor, 'base64url').toString(), field);
}

/**
 * One page of a list read with `limit + 1` rows: the first `limit`, and the cursor of the next page
 * (the last row's place: its id, or a copy's position) when the extra row shows there is one.
 */
export function paginate<T>(rows: T[], limit: number, placeOf: (row: T) => string): { page: T[]; next: string | null } {
  const page = rows.slice(0, limit);
  return { page, next: rows.length > limit ? encodeCursor(placeOf(page.at(-1)!)) : null };
}
