import DKIM from 'nodemailer/lib/dkim';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { SendEmailBody } from '../../../../src-shared/schemas/email';

const address = (r: { email: string; name?: string }) => (r.name ? { name: r.name, address: r.email } : r.email);

/** Attachments of a request as the composer takes them: bytes only (never a path or URL). */
export function composerAttachments(list: SendEmailBody['attachments'] = []) {
  return list.map((a) => ({
    filename: a.filename,
    content: Buffer.from(a.content, 'base64'),
    contentType: a.type,
    contentDisposition: a.disposition ?? (a.content_id ? ('inline' as const) : ('attachment' as const)),
    cid: a.content_id,
  }));
}

/**
 * The send payload as a real MIME message, its raw bytes (nodemailer's composer). Attachments are given as bytes
 * only: the composer is told never to read a file or fetch a URL, whatever a request says.
 */
export async function composeMessage(
  body: SendEmailBody,
  options: {
    messageId: string;
    date: Date;
    html?: string;
    text?: string;
    extraHeaders?: Record<string, string>;
    /** Signs the message (a DKIM-Signature header) with the key of the sender's verified domain. */
    dkim?: { domainName: string; keySelector: string; privateKey: string };
  },
): Promise<Buffer> {
  const html = options.html ?? body.content.find((c) => c.type === 'text/html')?.value;
  const text = options.text ?? body.content.find((c) => c.type === 'text/plain')?.value;
  const attachments = composerAttachments(body.attachments);
  const composer = new MailComposer({
    from: address(body.from),
    to: body.to.map(address),
    cc: body.cc?.map(address),
    replyTo: body.replyTo,
    subject: body.subject,
    html,
    text,
    headers: { ...body.headers, ...options.extraHeaders },
    attachments,
    messageId: options.messageId,
    date: options.date,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const raw = await composer.compile().build();
  return options.dkim ? dkimSign(raw, options.dkim) : raw;
}

/** The message with a DKIM-Signature header added (relaxed/relaxed, rsa-sha256), by nodemailer's signer. */
function dkimSign(raw: Buffer, key: { domainName: string; keySelector: string; privateKey: string }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const signed = new DKIM(key).sign(raw);
    signed.on('data', (chunk: Buffer) => chunks.push(chunk));
    signed.on('end', () => resolve(Buffer.concat(chunks)));
    signed.on('error', reject);
  });
}
