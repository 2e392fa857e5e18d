import { setImmediate as nextTurn } from 'node:timers/promises';
import { countPlaceholders, enabled, type SendEmailBody } from '../../../../src-shared/schemas/email';
import { randomHex64 } from '../../ids';
import { diffBytes } from '../../store/byte-patch';
import type { TrackedLink } from '../../store/tracking-tokens';
import { type Composer, composeMessage as composeOne } from './compose';
import { recipeOf } from './compose-later';
import { CopyTemplate } from './copy-template';
import { fillPlaceholders, valuesFor } from './substitute';
import { addTracking, newTrackingKeys, type PreparedLinks, prepareLinks, type TrackingToken, trackingRecords } from './tracking';

type RecipientType = 'to' | 'cc' | 'bcc';

/**
 * One recipient's copy as it is recorded: its own key, and its bytes: `raw` (stored once per buffer,
 * shared by the copies whose buffer it is) with `patch`, the edits that make this copy from it, if any.
 */
export interface RecordedCopy {
  id: string;
  email: string;
  name: string;
  type: RecipientType;
  raw: Buffer;
  /** The send as asked, composed on its first read (see compose-later.ts); `raw` is then empty. */
  recipe?: Buffer;
  patch?: Buffer;
  tokens: TrackingToken[];
  /**
   * Its click links: its own key and the copy whose list of links they are (`of`); `list` is given with the
   * first copy of that list only (the copies made from the same HTML share one).
   */
  links?: { key: string; of: string; list?: TrackedLink[] };
  /** This recipient's subject when placeholders made it differ from the send's. */
  subject?: string;
  /** Why generating this recipient's copy failed (a placeholder without a value), if it did. */
  generationFailure?: string;
}

/** The raw bytes of a content stored as its recipe, until its first read composes them. */
const NOT_COMPOSED = Buffer.alloc(0);

/** Work on a body or copy of this size or more is followed by a turn of the event loop. */
const large = (content: string | Buffer) => content.length >= 256 * 1024;

/** A copy whose edits would take more than this share of its size is stored whole instead. */
const PATCH_AT_MOST = 0.5;

/**
 * The composed copy of a send for each recipient. Without tracking or placeholders to fill, the
 * recipients share one composed message (one buffer, stored once, Message-ID of the first copy), which
 * is stored as its recipe and composed on its first read when it can be (see recipeOf); with
 * them, each gets its own: its links and pixel, its values of `{{name}}`. A recipient with a placeholder
 * left without a value gets its copy as far as it could be made, and `generationFailure` saying which.
 *
 * Memory and storage do not grow with the recipients: the first own copy is the send's base, and each
 * later one is composed, turned into its edits against the base (a few hundred bytes: its tokens,
 * Message-ID and signature; the copies share their MIME boundaries), and dropped before the next is
 * made. Tracked copies without placeholders or a signature differ only in their tokens: once the second
 * is found to be the first with its own tokens written in (a CopyTemplate), the later ones are made as
 * those edits directly, without composing them (a body of 1,000 tracked links cost 30 ms a copy). Links
 * are found once per HTML part and stored once per send (a key per copy). Between two copies the event
 * loop takes a turn, so other requests go on during a large send.
 */
export async function composeCopies(
  body: SendEmailBody,
  recipients: Array<{ id: string; email: string; name?: string; type: RecipientType }>,
  send: {
    date: Date;
    /** The subject, HTML and text of the send (the request's, else its template's). */
    subject: string;
    html: string | undefined;
    text: string | undefined;
    /** Whether placeholders are filled (a template is used, or substitutions are given). */
    substitute: boolean;
    dkim?: { domainName: string; keySelector: string; privateKey: string };
    /** The emulator's HTTP URL, for tracking links. */
    baseUrl: string;
    /** Composes a message (composeMessage when absent). */
    compose?: Composer;
  },
): Promise<RecordedCopy[]> {
  const { date, subject, html, text, dkim } = send;
  const composeMessage = send.compose ?? composeOne;
  const settings = body.settings ?? {};
  const tracking = { open: enabled(settings.open_tracking), click: enabled(settings.click_tracking), unsubscribe: enabled(settings.unsubscribe) };
  const tracked = tracking.open || tracking.click || tracking.unsubscribe;
  const substituted = send.substitute && countPlaceholders([subject, html, text], 0) > 0;
  // Composing is asynchronous: done before the transaction that stores everything.
  const copies: RecordedCopy[] = [];
  let shared: { raw: Buffer; recipe?: Buffer } | undefined;
  let base: Buffer | undefined;
  const boundary = randomHex64();
  let found: { html: string; links: PreparedLinks } | undefined;
  /** The first copy of each list of links (the one it is stored under). */
  const listOwners = new Map<PreparedLinks, string>();
  // Tracked copies without placeholders or a signature differ only in their tokens: once the second copy,
  // composed whole, is what the first makes with its tokens, the others are made as edits of the first.
  let candidate: CopyTemplate | undefined;
  let template: CopyTemplate | undefined;
  const options = { ...tracking, baseUrl: send.baseUrl };
  // The first turn taken from a request's own turn comes before any timer or other request: a large body
  // takes one at once, so that finding its links is a turn of its own.
  if ((tracked || substituted) && large(html ?? '')) await nextTurn();
  for (const r of recipients) {
    const copy = { id: r.id, email: r.email, name: r.name ?? '', type: r.type, tokens: [] as TrackingToken[] };
    if (!tracked && !substituted) {
      if (shared === undefined) {
        const options = { messageId: `<${recipients[0]!.id}@mailyard.local>`, date, subject, html, text, dkim, boundary };
        const recipe = recipeOf(body, options);
        shared = recipe === undefined ? { raw: await composeMessage(body, options) } : { raw: NOT_COMPOSED, recipe };
      }
      copies.push({ ...copy, ...shared });
      continue;
    }
    const missing = new Set<string>();
    const values = valuesFor(body.substitutions, r.email);
    const own = substituted ? fillPlaceholders({ subject, html, text }, values, missing, r.email) : { subject, html, text };
    // The links of an HTML part are found once, for every copy made from it.
    if (tracking.click && own.html !== undefined && own.html !== found?.html) {
      found = { html: own.html, links: prepareLinks(own.html) };
      if (large(own.html)) await nextTurn();
    }
    const keys = newTrackingKeys();
    const records = trackingRecords(own.html !== undefined, options, found?.links, keys);
    const generationFailure = missing.size > 0 ? `no value for template variable ${[...missing].map((m) => `{{${m}}}`).join(', ')}` : undefined;
    let links: RecordedCopy['links'];
    if (records.links) {
      const of = listOwners.get(records.links.prepared);
      if (of === undefined) listOwners.set(records.links.prepared, r.id);
      links = of === undefined ? { key: keys.click, of: r.id, list: records.links.prepared.list } : { key: keys.click, of };
    }
    const mine = { ...copy, tokens: records.tokens, links, subject: own.subject, generationFailure };
    if (template && base) {
      copies.push({ ...mine, raw: base, patch: template.patchFor(tokenValues(r.id, records)) });
    } else {
      const t = tracked ? addTracking(own.html, own.text, options, found?.links, keys) : { html: own.html, text: own.text, headers: {} };
      const raw = await composeMessage(body, {
        messageId: `<${r.id}@mailyard.local>`,
        date,
        subject: own.subject,
        html: t.html,
        text: t.text,
        extraHeaders: t.headers,
        dkim,
        boundary,
      });
      // A large copy's composing, its template and their check each take a turn of their own.
      if (large(raw)) await nextTurn();
      if (base === undefined) {
        base = raw;
        if (tracked && !substituted && !dkim && recipients.length > 2) candidate = CopyTemplate.of(raw, tokenValues(r.id, records));
        copies.push({ ...mine, raw });
      } else {
        if (candidate?.render(tokenValues(r.id, records)).equals(raw)) template = candidate;
        candidate = undefined;
        if (large(raw)) await nextTurn();
        const patch = diffBytes(base, raw);
        copies.push(patch.length <= raw.length * PATCH_AT_MOST ? { ...mine, raw: base, patch } : { ...mine, raw });
      }
    }
    if (recipients.length > 1) await nextTurn();
  }
  return copies;
}

/** The tokens of a copy a CopyTemplate places: its Message-ID's key, its link key, its pixel and unsubscribe tokens. */
function tokenValues(id: string, records: ReturnType<typeof trackingRecords>): string[] {
  return [id, ...(records.links ? [records.links.key] : []), ...records.tokens.map((t) => t.token)];
}
