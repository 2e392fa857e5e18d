import type { SendEmailBody } from '../../../../src-shared/schemas/email';
import { attachmentNames, MAX_ATTACHMENT_NAMES } from '../../mail/attachment-names';
import { shownFileName } from '../../mail/file-name';
import { composeArguments } from './compose-later';

/** The names of a request's attachments as the index lists them (an inline part is not an attachment). */
export function requestAttachmentNames(body: Pick<SendEmailBody, 'attachments'>): string[] {
  return (body.attachments ?? [])
    .filter((a) => (a.disposition ?? (a.content_id ? 'inline' : 'attachment')) === 'attachment')
    .slice(0, MAX_ATTACHMENT_NAMES)
    .map((a) => shownFileName(a.filename) ?? 'attachment');
}

/** Whether a stored content has an attachment as has:attachment finds it, composed or still its recipe. */
export function contentHasAttachments(content: { raw: Buffer; recipe?: Buffer | null }): boolean {
  if (content.recipe != null) return requestAttachmentNames(composeArguments(content.recipe).body).length > 0;
  return attachmentNames(content.raw).length > 0;
}
