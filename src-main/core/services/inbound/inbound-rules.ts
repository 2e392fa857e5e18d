import type { InboundRule } from '../../../../src-shared/schemas/inbound';
import type { InboundRoute } from './inbound-posts';

/** What the inbound guide's acceptance rules made of one recipient's mail. */
export interface InboundDecision {
  rule: InboundRule;
  accepted: boolean;
  /** Why it was not accepted, starting with the rule's name; null when it was. */
  reason: string | null;
}

/**
 * The inbound guide's acceptance rules (guides/inbound-email), highest first; the first that applies
 * decides: 1. Wildcard Domain (every username of the domain, no lookup), 2. Strict Reply Mode (a
 * reply to a message the account sent is accepted, any other mail is not), 3. Username Match (a
 * registered username), 4. Reject (the default). `isReply` is asked only when strict reply mode applies.
 */
export function decideInbound(route: InboundRoute, isReply: () => boolean): InboundDecision {
  const domain = route.domain.domain;
  if (route.domain.wildcard === 1) return { rule: 'Wildcard Domain', accepted: true, reason: null };
  if (route.domain.strict_replies === 1) {
    return isReply()
      ? { rule: 'Strict Reply Mode', accepted: true, reason: null }
      : { rule: 'Strict Reply Mode', accepted: false, reason: `Strict Reply Mode: not a reply to a message this account sent (${domain} has strict_replies)` };
  }
  if (route.username) return { rule: 'Username Match', accepted: true, reason: null };
  return {
    rule: 'Reject',
    accepted: false,
    reason: `Reject (default): ${route.localPart} is not a username of ${domain}, which is not a wildcard domain`,
  };
}
