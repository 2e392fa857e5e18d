import MailComposer from 'nodemailer/lib/mail-composer';
import type { SendEmailBody } from '../../../../src-shared/schemas/email';

export interface ComposedMessage {
  raw: Buffer;
  attachments: Array<{ filename: string; content_type: string; size: number; content_id: string | null; disposition: string }>;
}

const address = (r: { email: string; name?: string }) => (r.name ? { name: r.name, address: r.email } : r.email);

/**
 * The send payload as a real MIME message (nodemailer's composer). Attachments are given as bytes
 * only: the composer is told never to read a file or fetch a URL, whatever a request says.
 */
export async function composeMessage(
  body: SendEmailBody,
  options: { messageId: string; date: Date; html?: string; text?: string; extraHeaders?: Record<string, string> },
): Promise<ComposedMessage> {
  const html = options.html ?? body.content.find((c) => c.type === 'text/html')?.value;
  const text = options.text ?? body.content.find((c) => c.type === 'text/plain')?.value;
  const attachments = (body.attachments ?? []).map((a) => ({
    filename: a.filename,
    content: Buffer.from(a.content, 'base64'),
    contentType: a.type,
    contentDisposition: a.disposition ?? (a.content_id ? 'inline' : 'attachment'),
    cid: a.content_id,
  }));
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
  return {
    raw,
    attachments: attachments.map((a) => ({
      filename: a.filename,
      content_type: a.contentType ?? 'application/octet-stream',
      size: a.content.length,
      content_id: a.cid ?? null,
      disposition: a.contentDisposition,
    })),
  };
}
