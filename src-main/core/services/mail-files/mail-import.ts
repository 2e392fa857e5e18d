import { appError } from '../../error-catalogue';
import { headerEnd } from '../../mail/header-end';
import { readHeaders, readMessageFacts } from '../../mail/parse-message';

export interface MailImportDeps {
  /** Takes a message in as the SMTP sink does (inbound routing, then capture); answers its ref_ids. */
  capture: (mail: { accountId: string; mailFrom: string; recipients: string[]; raw: Buffer }) => Promise<string[]>;
  /** The account a message goes to: the one named, else the default (404 for one that does not exist). */
  accountIdOr404: (accountId: string | undefined) => string;
  maxMessageBytes: number;
}

/**
 * A message brought in from a file (`mailyard import`): captured as if it had arrived over SMTP, from
 * its From header's sender to the recipients its To and Cc headers name, through the sink's own path
 * (the same parsing, index and events; recipients at an inbound-routed domain go to their route).
 * One message is one commit: all its copies or none.
 */
export class MailImport {
  constructor(private readonly deps: MailImportDeps) {}

  async import(raw: Buffer, accountId: string | undefined): Promise<{ ref_ids: string[]; recipients: string[] }> {
    const account = this.deps.accountIdOr404(accountId);
    if (raw.length === 0) throw appError('invalidField', { path: 'raw', problem: 'is empty: give the message, headers and body' });
    if (raw.length > this.deps.maxMessageBytes) {
      throw appError('invalidField', { path: 'raw', problem: `is ${raw.length} bytes, more than the ${this.deps.maxMessageBytes} the SMTP sink accepts` });
    }
    if (headerEnd(raw) === 0 || readHeaders(raw).size === 0)
      throw appError('invalidField', { path: 'raw', problem: 'is not a message: it has no header fields' });
    const facts = readMessageFacts(raw);
    if (facts.from === null) throw appError('invalidField', { path: 'raw', problem: 'has no From header field with an address' });
    const recipients = [...new Set([...facts.to, ...facts.cc].map((a) => a.email))];
    if (recipients.length === 0) throw appError('invalidField', { path: 'raw', problem: 'names no recipient in To or Cc' });
    const refIds = await this.deps.capture({ accountId: account, mailFrom: facts.from.email, recipients, raw });
    return { ref_ids: refIds, recipients };
  }
}
