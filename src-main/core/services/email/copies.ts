import { setImmediate as nextTurn } from 'node:timers/promises';
import { enabled, type SendEmailBody } from '../../../../src-shared/schemas/email';
import { randomHex64 } from '../../ids';
import { diffBytes } from '../../store/byte-patch';
import { composeMessage } from './compose';
import { placeholdersOf, substitute, valuesFor } from './substitute';
import { addTracking, type TrackingToken } from './tracking';

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
  patch?: Buffer;
  tokens: TrackingToken[];
  /** This recipient's subject when placeholders made it differ from the send's. */
  subject?: string;
  /** Why generating this recipient's copy failed (a placeholder without a value), if it did. */
  generationFailure?: string;
}

/** A copy whose edits would take more than this share of its size is stored whole instead. */
const PATCH_AT_MOST = 0.5;

/**
 * The composed copy of a send for each recipient. Without tracking or placeholders to fill, the
 * recipients share one composed message (one buffer, stored once, Message-ID of the first copy); with
 * them, each gets its own: its links and pixel, its values of `{{name}}`. A recipient with a placeholder
 * left without a value gets its copy as far as it could be made, and `generationFailure` saying which.
 *
 * Memory and storage do not grow with the recipients: the first own copy is the send's base, and each
 * later one is composed, turned into its edits against the base (a few hundred bytes: its tokens,
 * Message-ID and signature; the copies share their MIME boundaries), and dropped before the next is
 * made. Between two copies the event loop takes a turn, so other requests go on during a large send.
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
  },
): Promise<RecordedCopy[]> {
  const { date, subject, html, text, dkim } = send;
  const settings = body.settings ?? {};
  const tracking = { open: enabled(settings.open_tracking), click: enabled(settings.click_tracking), unsubscribe: enabled(settings.unsubscribe) };
  const tracked = tracking.open || tracking.click || tracking.unsubscribe;
  const substituted = send.substitute && placeholdersOf(subject, html, text).length > 0;
  // Composing is asynchronous: done before the transaction that stores everything.
  const copies: RecordedCopy[] = [];
  let shared: Buffer | undefined;
  let base: Buffer | undefined;
  const boundary = randomHex64();
  for (const r of recipients) {
    const copy = { id: r.id, email: r.email, name: r.name ?? '', type: r.type, tokens: [] as TrackingToken[] };
    if (!tracked && !substituted) {
      shared ??= await composeMessage(body, { messageId: `<${recipients[0]!.id}@mailyard.local>`, date, subject, html, text, dkim, boundary });
      copies.push({ ...copy, raw: shared });
      continue;
    }
    const missing = new Set<string>();
    const values = valuesFor(body.substitutions, r.email);
    const own = substituted
      ? { subject: substitute(subject, values, false, missing), html: html && substitute(html, values, true, missing), text: text && substitute(text, values, false, missing) }
      : { subject, html, text };
    const t = tracked ? addTracking(own.html, own.text, { ...tracking, baseUrl: send.baseUrl }) : { html: own.html, text: own.text, headers: {}, tokens: [] };
    const raw = await composeMessage(body, { messageId: `<${r.id}@mailyard.local>`, date, subject: own.subject, html: t.html, text: t.text, extraHeaders: t.headers, dkim, boundary });
    const generationFailure = missing.size > 0 ? `no value for template variable ${[...missing].map((m) => `{{${m}}}`).join(', ')}` : undefined;
    const mine = { ...copy, tokens: t.tokens, subject: own.subject, generationFailure };
    if (base === undefined) {
      base = raw;
      copies.push({ ...mine, raw });
    } else {
      const patch = diffBytes(base, raw);
      copies.push(patch.length <= raw.length * PATCH_AT_MOST ? { ...mine, raw: base, patch } : { ...mine, raw });
    }
    if (recipients.length > 1) await nextTurn();
  }
  return copies;
}
