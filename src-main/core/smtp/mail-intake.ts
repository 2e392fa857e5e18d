import type { EmulatorConfig } from '../config';
import { randomHex64 } from '../ids';
import { headerTags, type MessageEnvelopeFacts, readMessageFacts } from '../mail/parse-message';
import type { MailAddress } from '../mail/parsed-mail';
import { titleCase } from '../mail/tag-rules';
import type { EmailService } from '../services/email/email.service';
import type { InboundRefusal, InboundService } from '../services/inbound/inbound.service';
import type { InboundRoute } from '../services/inbound/inbound-posts';
import type { AcceptedMail, IntakeResult } from './smtp-sink';

/** The header address matching an envelope recipient, case-insensitively. */
function findAddress(list: MailAddress[], email: string): MailAddress | undefined {
  const lc = email.toLowerCase();
  return list.find((a) => a.email.toLowerCase() === lc);
}

/**
 * A captured message without a Message-ID gets one, as Mailpit gives one: a `Message-ID:` line before
 * its first header line (its line ending the message's own), nothing else changed. Mailpit's
 * `Received:` line is not added: the bytes stay as sent but for this line.
 */
export function withMessageId(raw: Buffer, prepend: (line: Buffer) => Buffer = (line) => Buffer.concat([line, raw])): Buffer {
  const firstLineEnd = raw.indexOf(0x0a);
  const eol = firstLineEnd > 0 && raw[firstLineEnd - 1] === 0x0d ? '\r\n' : firstLineEnd === -1 ? '\r\n' : '\n';
  return prepend(Buffer.from(`Message-ID: <${randomHex64()}${randomHex64()}@mailyard.local>${eol}`));
}

/** Which of Mailpit's automatic tags intake gives (its `--tags-*` options). */
export interface IntakeTagging {
  /** The `X-Tags` header (off: `--tags-disable x-tags`). */
  xTags: boolean;
  /** Plus-addresses (`--tags-plus-addresses`, unless `--tags-disable plus-addresses`). */
  plusAddresses: boolean;
  /** The SMTP AUTH user name (`--tags-username`). */
  username: boolean;
  /** X-Tags and plus-address tags title-cased (`--tags-title-case`). */
  titleCase: boolean;
}

/** The intake's tagging as the config asks for it. */
export function intakeTagging(config: Pick<EmulatorConfig, 'tagsPlusAddresses' | 'tagsDisable' | 'tagsUsername' | 'tagsTitleCase'>): IntakeTagging {
  return {
    xTags: !config.tagsDisable.xTags,
    plusAddresses: config.tagsPlusAddresses && !config.tagsDisable.plusAddresses,
    username: config.tagsUsername,
    titleCase: config.tagsTitleCase,
  };
}

export interface MailIntakeDeps {
  email: EmailService;
  inbound: InboundService;
  /** Mailpit's automatic tags (default: X-Tags only). */
  tagging?: IntakeTagging;
  /**
   * With tag rules (`--tag`): resolves once the copies just stored have been judged by them (they are,
   * as the search indexes take them in), so the sender's answer comes after their tags, as in Mailpit.
   */
  ruleTagsApplied?: () => Promise<unknown>;
}

const X_TAGS_ONLY: IntakeTagging = { xTags: true, plusAddresses: false, username: false, titleCase: false };

/**
 * Mailpit's plus-address tags: each of From, To, Cc and the envelope's other recipients (Bcc) of the
 * form `user+a+b@` gives the tags `a` and `b`, cleaned as X-Tags are.
 */
export function plusAddressTags(addresses: readonly string[]): string[] {
  const tags = addresses.flatMap((address) => {
    const local = address.slice(0, address.lastIndexOf('@'));
    const plus = local.indexOf('+');
    return plus === -1 ? [] : local.slice(plus + 1).split('+');
  });
  return headerTags(tags.join(','));
}

/**
 * What happens to a message the SMTP sink accepted: recipients at an inbound-routed domain go to
 * inbound routing (posted, or refused by the inbound guide's rules); every other recipient is
 * captured and goes through the simulation, exactly as an API send. A recipient is `to` or `cc` when
 * the headers name it so, else `bcc`.
 */
export class MailIntake {
  constructor(private readonly deps: MailIntakeDeps) {}

  async accept(mail: AcceptedMail): Promise<IntakeResult> {
    const routed: Array<{ email: string; route: InboundRoute }> = [];
    const captured: string[] = [];
    for (const email of mail.recipients) {
      const route = this.deps.inbound.routeFor(mail.accountId, email);
      if (route) routed.push({ email, route });
      else captured.push(email);
    }
    const refIds: string[] = [];
    if (captured.length > 0) {
      const facts = readMessageFacts(mail.raw);
      const refId = await this.deps.email.acceptSmtp(mail.accountId, {
        raw: facts.messageId === null ? withMessageId(mail.raw, mail.prepend) : mail.raw,
        from: facts.from ?? { email: mail.mailFrom, name: '' },
        subject: facts.subject,
        campaignId: facts.campaignId,
        customArgs: facts.customArgs,
        tags: this.tagsOf(mail, facts, captured),
        recipients: captured.map((email) => {
          const to = findAddress(facts.to, email);
          const cc = to ? undefined : findAddress(facts.cc, email);
          return { email, name: (to ?? cc)?.name ?? '', type: to ? 'to' : cc ? 'cc' : 'bcc' };
        }),
      });
      refIds.push(refId);
      await this.deps.ruleTagsApplied?.();
    }
    let refused: InboundRefusal[] = [];
    if (routed.length > 0) {
      const outcome = await this.deps.inbound.deliver(mail.raw, routed, 'smtp');
      refIds.push(...outcome.posted.map((r) => r.refId));
      refused = outcome.refused;
    }
    return { refIds, refused };
  }

  /** The tags every copy is stored with: X-Tags, plus-addresses and the login's user name, as asked. */
  private tagsOf(mail: AcceptedMail, facts: MessageEnvelopeFacts, captured: string[]): string[] {
    const tagging = this.deps.tagging ?? X_TAGS_ONLY;
    const fromMail = [
      ...(tagging.xTags ? facts.tags : []),
      ...(tagging.plusAddresses
        ? plusAddressTags([...(facts.from ? [facts.from.email] : []), ...facts.to.map((a) => a.email), ...facts.cc.map((a) => a.email), ...captured])
        : []),
    ].map((t) => (tagging.titleCase ? titleCase(t) : t));
    const login = tagging.username && mail.username ? [mail.username.replace(/,/g, ' ')] : [];
    return headerTags([...fromMail, ...login].join(','));
  }
}
