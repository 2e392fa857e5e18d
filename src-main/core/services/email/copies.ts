import { enabled, type SendEmailBody } from '../../../../src-shared/schemas/email';
import { composeMessage } from './compose';
import { placeholdersOf, substitute, valuesFor } from './substitute';
import { addTracking, type TrackingToken } from './tracking';

type RecipientType = 'to' | 'cc' | 'bcc';

/** One recipient's copy as it is recorded: its own key, its raw content (shared where it is the same buffer), its plan. */
export interface RecordedCopy {
  id: string;
  email: string;
  name: string;
  type: RecipientType;
  raw: Buffer;
  tokens: TrackingToken[];
  /** This recipient's subject when placeholders made it differ from the send's. */
  subject?: string;
  /** Why generating this recipient's copy failed (a placeholder without a value), if it did. */
  generationFailure?: string;
}

/**
 * The composed copy of a send for each recipient. Without tracking or placeholders to fill, the
 * recipients share one composed message (one buffer, stored once, Message-ID of the first copy); with
 * them, each gets its own: its links and pixel, its values of `{{name}}`. A recipient with a placeholder
 * left without a value gets its copy as far as it could be made, and `generationFailure` saying which.
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
  for (const r of recipients) {
    const copy = { id: r.id, email: r.email, name: r.name ?? '', type: r.type, tokens: [] as TrackingToken[] };
    if (!tracked && !substituted) {
      shared ??= await composeMessage(body, { messageId: `<${recipients[0]!.id}@mailyard.local>`, date, subject, html, text, dkim });
      copies.push({ ...copy, raw: shared });
      continue;
    }
    const missing = new Set<string>();
    const values = valuesFor(body.substitutions, r.email);
    const own = substituted
      ? { subject: substitute(subject, values, false, missing), html: html && substitute(html, values, true, missing), text: text && substitute(text, values, false, missing) }
      : { subject, html, text };
    const t = tracked ? addTracking(own.html, own.text, { ...tracking, baseUrl: send.baseUrl }) : { html: own.html, text: own.text, headers: {}, tokens: [] };
    const raw = await composeMessage(body, { messageId: `<${r.id}@mailyard.local>`, date, subject: own.subject, html: t.html, text: t.text, extraHeaders: t.headers, dkim });
    const generationFailure = missing.size > 0 ? `no value for template variable ${[...missing].map((m) => `{{${m}}}`).join(', ')}` : undefined;
    copies.push({ ...copy, raw, tokens: t.tokens, subject: own.subject, generationFailure });
  }
  return copies;
}
