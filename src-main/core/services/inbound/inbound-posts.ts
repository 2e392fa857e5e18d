import type { InboundMessageRecord, InboundPayload, InboundRule, SimulateInboundBody } from '../../../../src-shared/schemas/inbound';
import { type Clock, isoTimestamp } from '../../clock';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { monotonicUlids } from '../../ids';
import { mailContentOfView, parseLeniently } from '../../mail/lenient-parse';
import { mailComposer } from '../../mail/mail-composer';
import { readMessageFacts } from '../../mail/parse-message';
import type { InboundDomainRow, InboundMessageListRow, InboundMessageRow, InboundRepo, InboundUsernameRow } from '../../store/inbound.repo';
import { composerAttachments, renderInMemory } from '../email/compose';

/** Dispatcher target kinds of inbound posts: a username with its own URL, else its domain. */
export const INBOUND_DOMAIN_TARGET = 'inbound_domain';
export const INBOUND_USERNAME_TARGET = 'inbound_username';

/** Where one recipient's inbound mail goes. */
export interface InboundRoute {
  accountId: string;
  domain: InboundDomainRow;
  username: InboundUsernameRow | undefined;
  localPart: string;
}

export interface RoutedRecipient {
  email: string;
  refId: string;
  deliveryId: string;
}

export interface InboundPostsDeps {
  repo: InboundRepo;
  clock: Clock;
  dispatcher: Pick<Dispatcher, 'enqueue'>;
  /** Announces each inbound email recorded, accepted or refused (the live stream). */
  announce?: (message: InboundMessageRecord) => void;
}

/** An inbound email's row as the control API lists it. */
export function toInboundMessageRecord(row: InboundMessageListRow): InboundMessageRecord {
  return {
    ref_id: row.ref_id,
    account_id: row.account_id,
    recipient: `${row.username}@${row.domain}`,
    domain: row.domain,
    username: row.username,
    source: row.source,
    from_email: row.from_email,
    subject: row.subject,
    accepted: row.refused === null,
    rule: row.rule as InboundRule | null,
    reason: row.refused,
    delivery_id: row.delivery_id,
    created_at: row.created_at,
  };
}

/** Inbound mail on its way out: parsed, stored as it came, and posted to each recipient's route through the dispatcher. */
export class InboundPosts {
  private readonly newRefId = monotonicUlids();

  constructor(private readonly deps: InboundPostsDeps) {}

  /**
   * Posts an inbound email to the route of each recipient: parsed once, stored as it came with the
   * rule that accepted it, and one delivery per recipient (a persisted row before its first attempt,
   * retried like a webhook).
   */
  async deliver(raw: Buffer, routed: Array<{ email: string; route: InboundRoute; rule: InboundRule }>, source: 'smtp' | 'api'): Promise<RoutedRecipient[]> {
    if (routed.length === 0) return [];
    // Never fails: a message over mailparser's limits is posted as well as it can be read (it was refused 451 for good).
    const parsed = await parseLeniently(raw, { keepAttachments: true });
    const now = this.deps.clock.now();
    const timestamp = isoTimestamp(now);
    const common = { event: 'inbound' as const, timestamp, ...mailContentOfView(parsed) };
    return routed.map(({ email, route, rule }) => {
      const refId = this.newRefId(now);
      const username = route.username?.username ?? route.localPart;
      const payload: InboundPayload = { ...common, ref_id: refId, domain: route.domain.domain, username, recipient: email };
      const target = route.username?.url
        ? { kind: INBOUND_USERNAME_TARGET, id: route.username.id, url: route.username.url }
        : { kind: INBOUND_DOMAIN_TARGET, id: route.domain.id, url: route.domain.url };
      const deliveryId = this.deps.dispatcher.enqueue({
        accountId: route.accountId,
        target,
        category: 'INBOUND',
        event: 'inbound',
        refId,
        payload,
      });
      this.record({
        ref_id: refId,
        account_id: route.accountId,
        domain: route.domain.domain,
        username,
        source,
        from_email: common.from.email,
        subject: common.subject,
        raw,
        delivery_id: deliveryId,
        created_ms: now,
        created_at: timestamp,
        rule,
        refused: null,
      });
      return { email, refId, deliveryId };
    });
  }

  /**
   * Records the recipients the guide's rules refused, with the rule and why: not posted, and without
   * the message's bytes (refused mail is not kept), so that the refusal can be seen later.
   */
  recordRefused(raw: Buffer, refused: Array<{ route: InboundRoute; rule: InboundRule; reason: string }>, source: 'smtp' | 'api'): void {
    if (refused.length === 0) return;
    const facts = readMessageFacts(raw);
    const now = this.deps.clock.now();
    for (const { route, rule, reason } of refused) {
      this.record({
        ref_id: this.newRefId(now),
        account_id: route.accountId,
        domain: route.domain.domain,
        username: route.localPart,
        source,
        from_email: facts.from?.email ?? '',
        subject: facts.subject,
        raw: Buffer.alloc(0),
        delivery_id: null,
        created_ms: now,
        created_at: isoTimestamp(now),
        rule,
        refused: reason,
      });
    }
  }

  private record(row: InboundMessageRow): void {
    this.deps.repo.insertMessage(row);
    const { raw: _raw, created_ms: _ms, ...listed } = row;
    this.deps.announce?.(toInboundMessageRecord(listed));
  }
}

/** A simulated inbound email as MIME (nodemailer's composer, never reading files or URLs). */
export async function composeInbound(body: SimulateInboundBody, date: Date): Promise<Buffer> {
  const from = body.from!;
  const MailComposer = mailComposer();
  const tree = new MailComposer({
    from: from.name ? { name: from.name, address: from.email } : from.email,
    to: body.to,
    subject: body.subject ?? '',
    text: body.text,
    html: body.html,
    date,
    attachments: composerAttachments(body.attachments),
    disableFileAccess: true,
    disableUrlAccess: true,
  }).compile();
  return renderInMemory(tree) ?? tree.build();
}
