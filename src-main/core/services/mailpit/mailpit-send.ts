import type Mail from 'nodemailer/lib/mailer';
import { EmailAddress } from '../../../../src-shared/schemas/email';
import type { MailpitSendBody } from '../../../../src-shared/schemas/mailpit';
import { appError } from '../../error-catalogue';
import { mailComposer } from '../../mail/mail-composer';

/** Headers Mailpit's send refuses in `Headers`: the fields of the request set them. */
const RESTRICTED_HEADERS = ['to', 'from', 'cc', 'bcc', 'reply-to', 'date', 'subject', 'content-type', 'mime-version'];

const isAddress = (email: string) => EmailAddress.safeParse(email).success;

function addresses(kind: string, list: ReadonlyArray<{ Email: string; Name?: string }> | undefined): Mail.Address[] {
  return (list ?? []).map((a) => {
    if (!isAddress(a.Email)) throw appError('mailpitBadRequest', { problem: `invalid ${kind} address: ${a.Email}` });
    return { name: a.Name ?? '', address: a.Email };
  });
}

/** Base64 as Mailpit reads it: a data URL's prefix (`data:image/png;base64,`) is dropped first. */
function decodeBase64(content: string, filename: string): Buffer {
  const data = (content.split(',').at(-1) ?? '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
    throw appError('mailpitBadRequest', { problem: `error decoding base64 attachment "${filename}"` });
  }
  return Buffer.from(data, 'base64');
}

/**
 * Mailpit's send request as a message, as Mailpit builds it: its envelope (From, then every To, Cc and
 * Bcc address) and its MIME source. Bad input is Mailpit's 400 with its words.
 */
export async function composeMailpitSend(body: MailpitSendBody): Promise<{ mailFrom: string; recipients: string[]; raw: Buffer }> {
  const [from] = addresses('From', [body.From]);
  const to = addresses('To', body.To);
  const cc = addresses('Cc', body.Cc);
  const bcc = (body.Bcc ?? []).map((email) => {
    if (!isAddress(email)) throw appError('mailpitBadRequest', { problem: `invalid Bcc address: ${email}` });
    return email;
  });
  const replyTo = addresses('Reply-To', body.ReplyTo);
  const recipients = [...(body.To ?? []), ...(body.Cc ?? [])].map((a) => a.Email).concat(bcc);
  if (recipients.length === 0) throw appError('mailpitBadRequest', { problem: 'no recipients: give To, Cc or Bcc' });
  const restricted = body.Tags?.length ? [...RESTRICTED_HEADERS, 'x-tags'] : RESTRICTED_HEADERS;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(body.Headers ?? {})) {
    if (restricted.includes(name.toLowerCase())) throw appError('mailpitBadRequest', { problem: `cannot overwrite header: "${name}"` });
    headers[name] = value;
  }
  if (body.Tags?.length) headers['X-Tags'] = body.Tags.join(', ');
  const MailComposer = mailComposer();
  const tree = new MailComposer({
    from,
    to,
    cc,
    // Bcc is in the envelope only, as in any sent message.
    replyTo,
    subject: body.Subject ?? '',
    text: body.Text ?? '',
    ...(body.HTML ? { html: body.HTML } : {}),
    headers,
    attachments: (body.Attachments ?? []).map((a) => ({
      filename: a.Filename,
      content: decodeBase64(a.Content, a.Filename),
      ...(a.ContentType ? { contentType: a.ContentType } : {}),
      // A Content-ID makes it inline, as in Mailpit.
      ...(a.ContentID ? { cid: a.ContentID, contentDisposition: 'inline' as const } : {}),
    })),
  }).compile();
  return { mailFrom: body.From.Email, recipients, raw: await tree.build() };
}

/** Mailpit's release body: each address checked as Mailpit does, at least one. */
export function releaseRecipients(to: readonly string[] | undefined): string[] {
  for (const address of to ?? []) if (!isAddress(address)) throw appError('mailpitBadRequest', { problem: `Invalid email address: ${address}` });
  if (!to?.length) throw appError('mailpitBadRequest', { problem: 'No valid addresses found' });
  return [...to];
}
