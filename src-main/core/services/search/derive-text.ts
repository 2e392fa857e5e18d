import { setImmediate as nextTurn } from 'node:timers/promises';
import { addressWords } from '../../../../src-shared/search/message-query';
import { replyToAddressWords } from '../../../../src-shared/search/reply-to-words';
import { applyPatchToPrefix } from '../../store/byte-patch';
import type { DerivedText } from '../../store/search-index.repo';
import { attachmentSearchLine, headerSearchText, receivedBodySearchText, recipeSearchText, replyToValues } from './search-text';

/**
 * What the search indexer asks for a batch of copies: each send's stored content once (its start: see
 * INDEXED_PREFIX), and each copy as that content's id and its own edits (a copy's tracking links, its
 * To line).
 */
export interface TextJob {
  contents: Array<{ id: string; raw: Uint8Array; recipe?: Uint8Array }>;
  copies: Array<{ contentId: string; patch: Uint8Array | null }>;
}

/** recipeSearchText, never failing: a recipe that cannot be read is indexed by its copies' columns alone. */
function safeRecipeSearchText(recipe: Uint8Array): { body: string; headers: string } {
  try {
    return recipeSearchText(recipe);
  } catch {
    return { body: '', headers: '' };
  }
}

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** How long deriving holds the event loop at most before letting it turn (see deriveTexts). */
export const DERIVE_TURN_MS = 20;

/**
 * The text of each copy of a job, in its order: the body's words and the attachments' names (read once
 * per content: copies of a send differ in their links and To line, not their words or attachments),
 * the copy's own header lines, and the addresses of both. Never fails: a copy whose content is missing
 * or whose patch does not apply is indexed by its columns alone.
 */
export async function deriveTexts(job: TextJob): Promise<DerivedText[]> {
  const contents = new Map<string, Buffer>();
  const bodies = new Map<string, string>();
  const attachmentLines = new Map<string, string>();
  /** The header lines of the contents stored as their recipe (a send's copies share them: no patch). */
  const recipeHeaders = new Map<string, string>();
  for (const c of job.contents) {
    if (c.recipe !== undefined) {
      const text = safeRecipeSearchText(c.recipe);
      bodies.set(c.id, text.body);
      recipeHeaders.set(c.id, text.headers);
      continue;
    }
    const raw = asBuffer(c.raw);
    contents.set(c.id, raw);
    bodies.set(c.id, await receivedBodySearchText(raw));
    attachmentLines.set(c.id, attachmentSearchLine(raw));
  }
  const out: DerivedText[] = [];
  let turnStarted = performance.now();
  for (const copy of job.copies) {
    const content = contents.get(copy.contentId);
    const body = bodies.get(copy.contentId) ?? '';
    let headers = recipeHeaders.get(copy.contentId) ?? '';
    if (content !== undefined) {
      const attachments = attachmentLines.get(copy.contentId);
      try {
        headers = headerSearchText(copy.patch ? applyPatchToPrefix(content, asBuffer(copy.patch)) : content, attachments);
      } catch {
        headers = headerSearchText(content, attachments);
      }
    }
    const addresses = [...addressWords(`${headers}\n${body}`), ...replyToAddressWords(replyToValues(headers))];
    out.push({ body, headers, addresses: [...new Set(addresses)].join(' ') });
    // Done inline (before the mail thread is up), a batch of copies with long header blocks would
    // hold the event loop for long: it turns every DERIVE_TURN_MS.
    if (performance.now() - turnStarted > DERIVE_TURN_MS) {
      await nextTurn();
      turnStarted = performance.now();
    }
  }
  return out;
}
