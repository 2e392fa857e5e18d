import type { SendEmailBody } from '../../../../src-shared/schemas/email';
import { type ComposeOptions, composeMessageNow, composerTree } from './compose';

/**
 * A send stored as what was asked instead of its composed bytes: the request's parts the composer reads,
 * with the Message-ID, Date and MIME boundaries fixed when it was sent, so the bytes made from it are the
 * same whenever they are made. The store keeps it as JSON (UTF-8 bytes: a Buffer goes to the mail thread
 * as a copy of its bytes, a string costs several times more) in the content's `recipe` (migration 0032) and
 * composes it on the first read of the raw message (MessagesRepo.rawOf); the search index takes its text
 * from it without composing the bodies.
 */
export interface ComposeRecipe {
  from: SendEmailBody['from'];
  to: SendEmailBody['to'];
  cc?: SendEmailBody['cc'];
  replyTo?: SendEmailBody['replyTo'];
  headers?: SendEmailBody['headers'];
  attachments?: SendEmailBody['attachments'];
  messageId: string;
  /** The Date header's time, epoch ms. */
  date: number;
  boundary: string;
  subject: string;
  html?: string;
  text?: string;
}

/**
 * A message whose request parts add up to more than this is composed when it is sent, as before: its
 * composing takes turns of the event loop on the mail thread, which a read (synchronous) could not.
 */
export const COMPOSE_LATER_AT_MOST = 256 * 1024;

/**
 * The recipe of a message composeMessage(body, options) would make, as the store keeps it; undefined
 * when it is composed at once instead: a signed message (its key is the domain's at the time of the
 * send) or a large one (see COMPOSE_LATER_AT_MOST).
 */
export function recipeOf(body: SendEmailBody, options: ComposeOptions & { subject: string; boundary: string }): Buffer | undefined {
  if (options.dkim || (options.extraHeaders && Object.keys(options.extraHeaders).length > 0)) return undefined;
  let size = (options.html?.length ?? 0) + (options.text?.length ?? 0);
  for (const a of body.attachments ?? []) size += a.content.length;
  if (size > COMPOSE_LATER_AT_MOST) return undefined;
  const recipe: ComposeRecipe = {
    from: body.from,
    to: body.to,
    cc: body.cc,
    replyTo: body.replyTo,
    headers: body.headers,
    attachments: body.attachments,
    messageId: options.messageId,
    date: options.date.getTime(),
    boundary: options.boundary,
    subject: options.subject,
    html: options.html,
    text: options.text,
  };
  return Buffer.from(JSON.stringify(recipe));
}

/** The request and options composeMessage is given for a stored recipe. */
export function composeArguments(recipe: Uint8Array): { body: SendEmailBody; options: Omit<ComposeOptions, 'dkim'> } {
  const r = JSON.parse(utf8.decode(recipe)) as ComposeRecipe;
  return {
    body: { from: r.from, to: r.to, cc: r.cc, replyTo: r.replyTo, headers: r.headers, attachments: r.attachments } as SendEmailBody,
    options: { messageId: r.messageId, date: new Date(r.date), boundary: r.boundary, subject: r.subject, html: r.html, text: r.text },
  };
}

/** The raw message of a stored recipe: byte for byte what composeMessage made of it when it was sent. */
export function composeRecipe(recipe: Uint8Array): Buffer {
  const { body, options } = composeArguments(recipe);
  return composeMessageNow(body, options);
}

/** The header block of a recipe's message (composeArguments), as its raw message would begin: no body is encoded. */
export function recipeHeaderBlock({ body, options }: ReturnType<typeof composeArguments>): string {
  return composerTree(body, options).buildHeaders();
}

const utf8 = new TextDecoder();
