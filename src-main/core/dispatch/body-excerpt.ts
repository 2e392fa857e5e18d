/** A text cut to at most a number of UTF-8 bytes, and what it was. */
export interface Excerpt {
  text: string;
  /** The whole text's length in UTF-8 bytes. */
  bytes: number;
  truncated: boolean;
}

/**
 * The first `maxBytes` bytes of `text` in UTF-8, cut before a character that would not fit whole (never
 * half a character or half a surrogate pair). A text that fits is returned as it is.
 */
export function utf8Excerpt(text: string, maxBytes: number): Excerpt {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return { text, bytes, truncated: false };
  // At most maxBytes units can fit in maxBytes bytes; drop a high surrogate left without its pair.
  let head = text.slice(0, maxBytes);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  const encoded = Buffer.from(head, 'utf8');
  if (encoded.length <= maxBytes) return { text: head, bytes, truncated: true };
  // Back off to the start of the character that crosses the limit (continuation bytes are 10xxxxxx).
  let end = maxBytes;
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return { text: encoded.subarray(0, end).toString('utf8'), bytes, truncated: true };
}
