/**
 * Unicode format characters (category Cf): the bidi controls (U+202A-202E, U+2066-2069, U+200E,
 * U+200F, U+061C), zero-width characters, the soft hyphen. They are invisible and change how a name
 * reads: `\u202Etxt.exe` shows as `exe.txt`.
 */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * An attachment's file name as Mailyard shows and offers it (the API, the UI, webhook payloads, the
 * search index, a download's Content-Disposition): without format characters. Undefined when nothing
 * is left, so the caller's `attachment-N` applies.
 */
export function shownFileName(name: string | undefined): string | undefined {
  const shown = name?.replace(FORMAT_CHARACTERS, '');
  return shown === '' ? undefined : shown;
}
