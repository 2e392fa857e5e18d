import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { bounceCategory, readDsn } from '../../../../src-main/core/imap/dsn';

const fixture = readFileSync(new URL('../../../fixtures/dsn-hard-bounce.eml', import.meta.url));

describe('delivery-status notifications (RFC 3464)', () => {
  it('reads the recipient, status, diagnostic and the Mailyard message of a hard bounce', async () => {
    const report = readDsn(await simpleParser(fixture), fixture);
    expect(report).toEqual({
      copyIds: ['01KAQ1ZZZZZZZZZZZZZZZZZZZZ'],
      recipient: 'nobody@example.org',
      action: 'failed',
      status: '5.1.1',
      diagnostic: '550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown',
      bounceType: 'hard',
      bounceCategory: 'invalid_recipient',
    });
  });

  it('takes a delayed delivery as a soft bounce, and the reference from In-Reply-To when no original is returned', async () => {
    const raw = fixture
      .toString()
      .replace('Action: failed\nStatus: 5.1.1', 'Action: delayed\nStatus: 4.2.2')
      .replace(/--BOUND\nContent-Type: message\/rfc822[\s\S]*?(?=--BOUND--)/, '')
      .replace('MIME-Version: 1.0', 'In-Reply-To: <01KAQ2AAAAAAAAAAAAAAAAAAAA@mailyard.local>\nMIME-Version: 1.0');
    const report = readDsn(await simpleParser(raw), Buffer.from(raw));
    expect(report).toMatchObject({ copyIds: ['01KAQ2AAAAAAAAAAAAAAAAAAAA'], bounceType: 'soft', bounceCategory: 'mailbox_full', status: '4.2.2' });
  });

  it('ignores ordinary mail, successful DSNs and DSNs about mail Mailyard did not send', async () => {
    const read = async (text: string) => readDsn(await simpleParser(text), Buffer.from(text));
    expect(await read('From: a@example.com\nSubject: hi\n\nhello')).toBeUndefined();
    expect(await read(fixture.toString().replace('Action: failed', 'Action: delivered'))).toBeUndefined();
    expect(await read(fixture.toString().replace('@mailyard.local', '@elsewhere.example'))).toBeUndefined();
  });

  it('names bounce categories by the status code subject', () => {
    expect(bounceCategory('5.1.1')).toBe('invalid_recipient');
    expect(bounceCategory('4.2.2')).toBe('mailbox_full');
    expect(bounceCategory('5.7.1')).toBe('policy');
    expect(bounceCategory('4.4.1')).toBe('network');
  });
});
