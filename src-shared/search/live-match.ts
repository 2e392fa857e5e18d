import type { ParsedQuery, SearchClause } from './message-query';
import { clauseMatchesText } from './query-text';

/** What a list row (a message summary) has for the live check. */
export interface LiveMessage {
  subject: string;
  from: { email: string; name: string };
  recipient: { email: string; name: string };
  recipient_type: string;
  status: string;
  campaign_id: string;
  created_at: string;
  read: boolean;
  tags: readonly string[];
  has_attachments: boolean;
}

function clauseHolds(c: SearchClause, m: LiveMessage): boolean | null {
  const from = `${m.from.email} ${m.from.name}`;
  const to = `${m.recipient.email} ${m.recipient.name}`;
  switch (c.field) {
    case 'from':
      return clauseMatchesText(c, from);
    case 'to':
      return clauseMatchesText(c, to);
    case 'cc':
    case 'bcc':
      return m.recipient_type === c.field && clauseMatchesText(c, to);
    case 'subject':
      return clauseMatchesText(c, m.subject);
    case 'addressed':
      // Found as the sender or recipient: it holds. Not found: it may be the Reply-To, which a row has not.
      return clauseMatchesText(c, from) || clauseMatchesText(c, to) || null;
    case 'any':
      // Found in the row: it holds. Not found: it may be in the body or the headers, which a row has not.
      return [m.subject, from, to].some((t) => clauseMatchesText(c, t)) || null;
    default:
      return null; // filename:, message-id:, reply-to: are not in a row
  }
}

/**
 * Whether a new message (a list row, live) matches a parsed query, as far as its row tells. What the
 * row cannot tell (its body, headers, Reply-To, size) counts as no: such a message shows at the next
 * load, never wrongly.
 */
export function liveMatches(parsed: ParsedQuery, m: LiveMessage): boolean {
  for (const c of parsed.clauses) {
    const holds = clauseHolds(c, m);
    if (holds === null || holds === c.negated) return false;
  }
  if (parsed.attachment !== null && m.has_attachments !== parsed.attachment) return false;
  if (parsed.larger !== null || parsed.smaller !== null) return false;
  if (parsed.read !== null && m.read !== parsed.read) return false;
  const tags = new Set(m.tags.map((t) => t.toLowerCase()));
  if (parsed.tagged !== null && tags.size > 0 !== parsed.tagged) return false;
  if (parsed.tags.some((t) => !tags.has(t.toLowerCase())) || parsed.notTags.some((t) => tags.has(t.toLowerCase()))) return false;
  if (parsed.statuses.length && !parsed.statuses.includes(m.status as never)) return false;
  if (parsed.notStatuses.includes(m.status as never)) return false;
  const campaign = m.campaign_id.toLowerCase();
  if (parsed.campaign && !campaign.startsWith(parsed.campaign.toLowerCase())) return false;
  if (parsed.notCampaigns.some((p) => campaign.startsWith(p.toLowerCase()))) return false;
  const created = Date.parse(m.created_at);
  if (parsed.before !== null && !(created < parsed.before)) return false;
  if (parsed.after !== null && !(created >= parsed.after)) return false;
  return true;
}
