import type { ParsedMail } from 'mailparser';
import { multipartParts } from '../mail/mime-delimiter';

/** What a delivery-status notification (RFC 3464) says about a message Mailyard sent. */
export interface DsnReport {
  /** keys of the copies of Mailyard's messages it refers to (from `<id@mailyard.local>` Message-IDs), first the likeliest. */
  copyIds: string[];
  recipient: string;
  /** `failed` or `delayed`. */
  action: string;
  /** The enhanced status code (RFC 3463), e.g. `5.1.1`. */
  status: string;
  diagnostic: string;
  bounceType: 'hard' | 'soft';
  bounceCategory: string;
}

const MAILYARD_ID = /<([0-9A-HJKMNP-TV-Z]{26})@mailyard\.local>/gi;

/** The copy keys of Mailyard Message-IDs in a header value or a message's headers. */
function copyIdsIn(text: string): string[] {
  return [...text.matchAll(MAILYARD_ID)].map((m) => m[1]!.toUpperCase());
}

/** The fields of a delivery-status body: one group per block, names lower-cased, continuation lines unfolded. */
function statusGroups(text: string): Array<Record<string, string>> {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\n[ \t]+/g, ' ')
    .split(/\n\s*\n/)
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      return fields;
    })
    .filter((f) => Object.keys(f).length > 0);
}

/** The parts of a multipart body, each with its content type and its body (base64 decoded). */
function reportParts(raw: Buffer, boundary: string): Array<{ type: string; body: string }> {
  if (boundary === '') return [];
  return (multipartParts(raw, boundary) ?? []).map((part) => {
    const text = part.toString('utf8');
    const split = /\r?\n\r?\n/.exec(text);
    const head = split ? text.slice(0, split.index) : text;
    let body = split ? text.slice(split.index + split[0].length) : '';
    const type = /^content-type:[ \t]*([^;\s]+)/im.exec(head)?.[1] ?? 'text/plain';
    if (/^content-transfer-encoding:[ \t]*base64/im.test(head)) body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    return { type: type.toLowerCase(), body };
  });
}

/** The bounce category of an enhanced status code's subject (RFC 3463 part 3). */
export function bounceCategory(status: string): string {
  const [, subject, detail] = status.split('.');
  if (subject === '1') return 'invalid_recipient';
  if (subject === '2') return detail === '2' ? 'mailbox_full' : 'mailbox_unavailable';
  if (subject === '3') return 'mail_system';
  if (subject === '4') return 'network';
  if (subject === '5') return 'protocol';
  if (subject === '6') return 'content';
  if (subject === '7') return 'policy';
  return 'undeliverable';
}

/**
 * A DSN (`multipart/report; report-type=delivery-status`) about a failed or delayed delivery of a
 * Mailyard message, or undefined. The message is found by its Message-ID `<id@mailyard.local>` in
 * the returned original (message/rfc822 or text/rfc822-headers), else in In-Reply-To or References.
 */
export function readDsn(parsed: ParsedMail, raw: Buffer): DsnReport | undefined {
  const type = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (type?.value?.toLowerCase() !== 'multipart/report' || type.params?.['report-type']?.toLowerCase() !== 'delivery-status') return undefined;
  // mailparser folds a message/delivery-status part into the text, so the report's parts are read here.
  const parts = reportParts(raw, type.params.boundary ?? '');
  const statusPart = parts.find((p) => /^message\/(global-)?delivery-status$/i.test(p.type));
  if (!statusPart) return undefined;
  const groups = statusGroups(statusPart.body);
  // The first per-recipient group that failed or was delayed (the first group is per-message).
  const recipient = groups.find((g) => /^(failed|delayed)$/i.test(g.action ?? ''));
  if (!recipient) return undefined;
  const original = parts.find((p) => /^(message\/(global-)?rfc822|text\/rfc822-headers|message\/global-headers)$/i.test(p.type));
  const originalHeaders = original ? original.body.split(/\r?\n\r?\n/)[0]! : '';
  const messageIdLine = /^message-id:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(originalHeaders)?.[1] ?? '';
  const copyIds = [
    ...copyIdsIn(messageIdLine),
    ...copyIdsIn(String(parsed.inReplyTo ?? '')),
    ...copyIdsIn(Array.isArray(parsed.references) ? parsed.references.join(' ') : String(parsed.references ?? '')),
  ];
  if (copyIds.length === 0) return undefined;
  const status = /\d\.\d{1,3}\.\d{1,3}/.exec(recipient.status ?? '')?.[0] ?? (recipient.action?.toLowerCase() === 'delayed' ? '4.0.0' : '5.0.0');
  const address = (recipient['final-recipient'] ?? recipient['original-recipient'] ?? '').replace(/^[^;]*;\s*/, '').replace(/^<|>$/g, '');
  const diagnostic = (recipient['diagnostic-code'] ?? '').replace(/^[^;]*;\s*/, '');
  const soft = recipient.action!.toLowerCase() === 'delayed' || status.startsWith('4');
  return {
    copyIds: [...new Set(copyIds)],
    recipient: address,
    action: recipient.action!.toLowerCase(),
    status,
    diagnostic: diagnostic || `${status} delivery ${recipient.action!.toLowerCase()}`,
    bounceType: soft ? 'soft' : 'hard',
    bounceCategory: bounceCategory(status),
  };
}
