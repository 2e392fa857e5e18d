import { describe, expect, it } from 'vitest';
import { type LiveMessage, liveMatches } from '../../../../src-shared/search/live-match';
import { parseMessageQuery } from '../../../../src-shared/search/message-query';

const row = (over: Partial<LiveMessage> = {}): LiveMessage => ({
  subject: 'Welcome',
  from: { email: 'app@example.com', name: 'App' },
  recipient: { email: 'ann@example.com', name: 'Ann' },
  recipient_type: 'to',
  status: 'processed',
  campaign_id: '',
  created_at: '2026-11-27T08:00:00.000Z',
  read: false,
  tags: [],
  has_attachments: false,
  ...over,
});
const matches = (q: string, m: LiveMessage) => liveMatches(parseMessageQuery(q), m);

describe('liveMatches: read state and tags', () => {
  it('a new (unread, untagged) copy shows live in an is:unread or -is:tagged list, not in is:read or tag: lists', () => {
    expect(matches('is:unread', row())).toBe(true);
    expect(matches('-is:tagged welcome', row())).toBe(true);
    expect(matches('is:read', row())).toBe(false);
    expect(matches('tag:billing', row())).toBe(false);
  });

  it('reads the row’s read state and tags (tags without regard to case)', () => {
    const tagged = row({ read: true, tags: ['Billing', 'vip'] });
    expect(matches('is:read tag:billing', tagged)).toBe(true);
    expect(matches('is:tagged', tagged)).toBe(true);
    expect(matches('-tag:VIP', tagged)).toBe(false);
    expect(matches('tag:billing tag:other', tagged)).toBe(false);
  });
});

describe('liveMatches: attachments, sizes and addresses', () => {
  it('reads has:attachment from the row', () => {
    expect(matches('has:attachment', row({ has_attachments: true }))).toBe(true);
    expect(matches('has:attachment', row())).toBe(false);
    expect(matches('-has:attachment', row())).toBe(true);
  });

  it('shows a row found as sender or recipient by addressed:, and leaves what only a reload can tell (size, Reply-To) to the reload', () => {
    expect(matches('addressed:ann@example.com', row())).toBe(true);
    expect(matches('addressed:app', row())).toBe(true);
    expect(matches('-addressed:ann', row())).toBe(false);
    // It may be the Reply-To: the row cannot tell.
    expect(matches('addressed:help@shop.test', row())).toBe(false);
    expect(matches('-addressed:help@shop.test', row())).toBe(false);
    expect(matches('reply-to:help', row())).toBe(false);
    expect(matches('larger:1', row())).toBe(false);
    expect(matches('smaller:1g', row())).toBe(false);
  });
});
