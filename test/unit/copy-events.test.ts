import { describe, expect, it } from 'vitest';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { isCopyEvent } from '../../src-shared/schemas/events';

// A delivery's page links to the message its event is about; an IMAP connection error is about a mailer.
describe('isCopyEvent: the kinds about a stored copy, read from their payloads', () => {
  it('every email event kind but imap_error is about a copy', () => {
    expect(EMAIL_EVENT_KINDS.filter((k) => !isCopyEvent(k))).toEqual(['imap_error']);
  });

  it('a category or name that is no email event kind is not', () => {
    for (const name of ['domain_verification', 'inbound', 'imap_message', 'toString', '__proto__']) expect(isCopyEvent(name)).toBe(false);
  });
});
