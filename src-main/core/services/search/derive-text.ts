import { setImmediate as nextTurn } from 'node:timers/promises';
import { attachmentIndexLine } from '../../../../src-shared/search/attachment-words';
import { addressWords } from '../../../../src-shared/search/message-query';
import { replyToAddressWords } from '../../../../src-shared/search/reply-to-words';
import { attachmentNames } from '../../mail/attachment-names';
import { applyPatchToPrefix } from '../../store/byte-patch';
import type { DerivedText } from '../../store/search-index.repo';
import { bodySearchText, headerBlockSearchText, headerSearchText, receivedBodyParts, recipeParts, replyToValues } from './search-text';
import { type BodyFacts, bodyFacts, headerFacts, type StoredSummary } from './stored-summary';

/**
 * What the search indexer asks for a batch of copies: each send's stored content once (its start: see
 * INDEXED_PREFIX), and each copy as that content's id and its own edits (a copy's tracking links, its
 * To line).
 */
export interface TextJob {
  contents: Array<{ id: string; raw: Uint8Array; recipe?: Uint8Array }>;
  copies: Array<{ contentId: string; patch: Uint8Array | null }>;
}

/** recipeParts, never failing: a recipe that cannot be read is indexed by its copies' columns alone. */
function safeRecipeParts(recipe: Uint8Array): ReturnType<typeof recipeParts> | null {
  try {
    return recipeParts(recipe);
  } catch {
    return null;
  }
}

/** Mailpit's list summary of a copy (stored-summary.ts), as the index row carries it. */
const summaryOf = (start: Buffer, body: BodyFacts | undefined): string =>
  JSON.stringify({ ...headerFacts(start), ...(body ?? { Attachments: 0, Snippet: '' }) } satisfies StoredSummary);

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** How long deriving holds the event loop at most before letting it turn (see deriveTexts). */
export const DERIVE_TURN_MS = 20;

/**
 * Between two pieces of a long job, `await turn()` lets the event loop turn once the job has held it
 * over `ms` since it last did (and costs a microtask otherwise).
 */
export function turnsEvery(ms: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since <= ms) return;
    await nextTurn();
    since = performance.now();
  };
}

/**
 * The text of each copy of a job, in its order: the body's words and the attachments' names (read once
 * per content: copies of a send differ in their links and To line, not their words or attachments),
 * the copy's own header lines, and the addresses of both. Never fails: a copy whose content is missing
 * or whose patch does not apply is indexed by its columns alone.
 */
export async function deriveTexts(job: TextJob): Promise<DerivedText[]> {
  const contents = new Map<string, Buffer>();
  const bodies = new Map<string, string>();
  const facts = new Map<string, BodyFacts>();
  const attachmentLines = new Map<string, string>();
  /** The header blocks of the contents stored as their recipe (a send's copies share them: no patch). */
  const recipeBlocks = new Map<string, string>();
  for (const c of job.contents) {
    if (c.recipe !== undefined) {
      const parts = safeRecipeParts(c.recipe);
      bodies.set(c.id, parts ? bodySearchText(parts.text, parts.html) : '');
      recipeBlocks.set(c.id, parts?.headerBlock ?? '');
      attachmentLines.set(c.id, parts ? attachmentIndexLine(parts.attachmentNames) : '');
      if (parts) facts.set(c.id, bodyFacts(parts.text, parts.html, parts.attachmentNames.length));
      continue;
    }
    const raw = asBuffer(c.raw);
    contents.set(c.id, raw);
    const parts = await receivedBodyParts(raw);
    const names = attachmentNames(raw);
    bodies.set(c.id, bodySearchText(parts.text, parts.html));
    attachmentLines.set(c.id, attachmentIndexLine(names));
    facts.set(c.id, bodyFacts(parts.text, parts.html, names.length));
  }
  const out: DerivedText[] = [];
  const turn = turnsEvery(DERIVE_TURN_MS);
  for (const copy of job.copies) {
    const content = contents.get(copy.contentId);
    const body = bodies.get(copy.contentId) ?? '';
    const attachments = attachmentLines.get(copy.contentId) ?? '';
    let headers = '';
    let start: Buffer = Buffer.from(recipeBlocks.get(copy.contentId) ?? '');
    if (content !== undefined) {
      try {
        start = copy.patch ? applyPatchToPrefix(content, asBuffer(copy.patch)) : content;
      } catch {
        start = content;
      }
      headers = headerSearchText(start, attachments);
    } else if (recipeBlocks.has(copy.contentId)) {
      headers = headerBlockSearchText(recipeBlocks.get(copy.contentId)!, attachments);
    }
    const addresses = [...addressWords(`${headers}\n${body}`), ...replyToAddressWords(replyToValues(headers))];
    out.push({ body, headers, addresses: [...new Set(addresses)].join(' '), mailpit: summaryOf(start, facts.get(copy.contentId)) });
    // Done inline (before the mail thread is up), a batch of copies with long header blocks would
    // hold the event loop for long: it turns every DERIVE_TURN_MS.
    await turn();
  }
  return out;
}
