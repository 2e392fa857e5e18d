import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../../../src-main/core/clock';
import { MessageLog, type StatusChange } from '../../../../../src-main/core/services/events/message-log';
import { SuppressionsService } from '../../../../../src-main/core/services/events/suppressions.service';
import { bounceDefaults, defaultPayload } from '../../../../../src-main/core/services/events/synthetic-events';
import { loadMigrations, migrate } from '../../../../../src-main/core/store/database';
import { MessagesRepo } from '../../../../../src-main/core/store/messages.repo';
import { SuppressionsRepo } from '../../../../../src-main/core/store/suppressions.repo';
import type { EmailEventKind } from '../../../../../src-shared/events';
import { EmailEventPayload } from '../../../../../src-shared/schemas/events';
import { queuedCopy } from '../../../../helpers/message-row';

/**
 * The log of a copy's statuses, over a real store in memory: what each event does to the status the
 * logs and the UI show, which events suppress their recipient, and what is announced. The rules a
 * user reads in the logs: a later delivery never undoes what was fired at a copy still queued (a hard
 * bounce, an open), engagement never replaces a final verdict, a soft bounce gives way.
 */

let db: Database.Database;
let messages: MessagesRepo;
let suppressions: SuppressionsRepo;
let log: MessageLog;
let announced: StatusChange[];
let copies = 0;

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, loadMigrations());
  db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
  messages = new MessagesRepo(db);
  suppressions = new SuppressionsRepo(db);
  announced = [];
  log = new MessageLog({
    messages,
    suppressions: new SuppressionsService({ repo: suppressions, clock: new EmulatorClock() }),
    applied: (change) => announced.push(change),
  });
});

/** Stores a queued copy to `email` and answers its id. */
function stored(email = 'ann@example.com'): string {
  const row = queuedCopy(++copies, { recipient: email, subject: 'Receipt' });
  messages.insertContent({ content_id: row.content_id, raw: Buffer.from('Subject: x\r\n\r\nx') });
  messages.insertMessage(row);
  return row.id;
}

/** A payload of the kind as a fired event carries it (its schema checked): `fields` over the defaults, a bounce's reason following its type. */
function payload(kind: EmailEventKind, id: string, fields: Record<string, unknown> = {}): EmailEventPayload {
  const recipient = messages.get(id)!.recipient_email;
  const defaults = defaultPayload(kind, { timestamp: '2026-01-01T00:00:00.000Z', refId: id, recipient });
  return EmailEventPayload.parse({ ...defaults, ...(kind === 'bounce' ? bounceDefaults(recipient, fields) : {}), ...fields });
}

/** Records events of these kinds, in order, about the copy; answers its status and failed reason after them. */
function afterEvents(id: string, ...events: Array<EmailEventKind | [EmailEventKind, Record<string, unknown>]>) {
  for (const e of events) {
    const [kind, fields] = typeof e === 'string' ? [e, {}] : e;
    if (kind === 'delivery' && Object.keys(fields).length === 0) log.applyDelivery(log.find(id)!, '2026-01-01T00:00:01.000Z');
    else log.apply(log.find(id)!, payload(kind, id, fields), null);
  }
  const row = messages.get(id)!;
  return { status: row.status, failedReason: row.failed_reason };
}

const softBounce: [EmailEventKind, Record<string, unknown>] = ['bounce', { bounce_type: 'soft', bounce_category: 'mailbox_full' }];

describe('what an event does to its copy’s status', () => {
  it('moves a copy along its road: delivered, opened, clicked; a later open leaves it clicked', () => {
    const id = stored();
    expect(afterEvents(id, 'delivery').status).toBe('delivered');
    expect(messages.get(id)!.delivered_at).toBe('2026-01-01T00:00:01.000Z');
    expect(afterEvents(id, 'open').status).toBe('opened');
    expect(afterEvents(id, 'click').status).toBe('clicked');
    expect(afterEvents(id, 'open').status).toBe('clicked');
  });

  it('keeps what was fired at a copy still queued when its delivery lands after: a hard bounce and an open stay, a soft bounce gives way', () => {
    expect(afterEvents(stored(), 'bounce', 'delivery').status).toBe('bounced');
    expect(afterEvents(stored(), 'open', 'delivery').status).toBe('opened');
    expect(afterEvents(stored(), softBounce, 'delivery').status).toBe('delivered');
    // A delivery carrying a payload (one a webhook takes) follows the same rule.
    expect(afterEvents(stored(), 'bounce', ['delivery', { mailer_id: '' }]).status).toBe('bounced');
  });

  it('never lets an open or a click replace a final verdict', () => {
    for (const final of ['spam', 'unsubscribe', 'bounce', 'smtp_error'] as const) {
      const id = stored();
      const verdict = afterEvents(id, final);
      expect(afterEvents(id, 'open', 'click'), final).toEqual(verdict);
    }
  });

  it('fails a copy with the reason in the logs’ words, and bounces it with the receiving server’s reply', () => {
    expect(afterEvents(stored(), 'policy_rejection')).toEqual({
      status: 'failed',
      failedReason: 'policy rejection: Message rejected: content violates the sending policy',
    });
    expect(afterEvents(stored(), 'phishing').failedReason).toBe('phishing: Links point to a known phishing domain');
    expect(afterEvents(stored(), 'generation_failure').failedReason).toMatch(/^generation failure: /);
    expect(afterEvents(stored(), 'generation_rejection').failedReason).toMatch(/^generation rejection: /);
    expect(afterEvents(stored(), 'smtp_error').failedReason).toBe('smtp error: 421 4.4.2 Connection timed out while talking to the remote server');
    expect(afterEvents(stored('bob@example.com'), 'bounce')).toEqual({
      status: 'bounced',
      failedReason: expect.stringMatching(/^550 5\.1\.1 <bob@example\.com>/),
    });
  });

  it('logs every event, in order, whether or not it changes the status', () => {
    const id = stored();
    afterEvents(id, 'delivery', 'open', 'click', 'open');
    expect(
      messages
        .eventsOf([id])
        .get(id)!
        .map((e) => e.event),
    ).toEqual(['delivery', 'open', 'click', 'open']);
  });
});

describe('suppression', () => {
  const source = (email: string) => suppressions.suppression('acc', email)?.source;

  it('suppresses the recipient of an unsubscribe, a spam complaint and a hard bounce, never of a soft bounce', () => {
    afterEvents(stored('u@example.com'), 'unsubscribe');
    afterEvents(stored('s@example.com'), 'spam');
    afterEvents(stored('h@example.com'), 'bounce');
    afterEvents(stored('soft@example.com'), softBounce);
    expect([source('u@example.com'), source('s@example.com'), source('h@example.com'), source('soft@example.com')]).toEqual([
      'unsubscribe event',
      'spam complaint',
      'hard bounce',
      undefined,
    ]);
    expect(suppressions.suppression('acc', 'h@example.com')!.reason).toMatch(/^550 5\.1\.1 /);
  });

  it('leaves the simulator’s addresses free after a bounce or complaint (tests send to them again and again), but not after an unsubscribe', () => {
    afterEvents(stored('bounce@sim.mailyard.test'), 'bounce');
    afterEvents(stored('complaint@sim.mailyard.test'), 'spam');
    afterEvents(stored('unsubscribe@sim.mailyard.test'), 'unsubscribe');
    expect([source('bounce@sim.mailyard.test'), source('complaint@sim.mailyard.test'), source('unsubscribe@sim.mailyard.test')]).toEqual([
      undefined,
      undefined,
      'unsubscribe event',
    ]);
  });
});

describe('what the UI’s live list hears', () => {
  it('each applied event with the status after it, or null when the status stays', () => {
    const id = stored();
    afterEvents(id, 'bounce', 'delivery');
    expect(announced.map((a) => [a.event, a.status])).toEqual([
      ['bounce', 'bounced'],
      ['delivery', null],
    ]);
    expect(announced[0]!.failed_reason).toMatch(/^550 /);
    expect(announced[1]).not.toHaveProperty('failed_reason');
  });

  it('a relay refused for now as relay_deferred, the copy back to sent', () => {
    const id = stored();
    log.defer(id, '2026-01-01T00:00:02.000Z');
    expect(messages.get(id)!.status).toBe('sent');
    expect(announced).toEqual([
      { message_id: id, ref_id: id, event: 'relay_deferred', timestamp: '2026-01-01T00:00:02.000Z', delivery_id: null, status: 'sent' },
    ]);
  });
});

describe('a batch of deliveries no webhook is told of', () => {
  it('writes and announces for each copy what one delivery at a time does, whatever the copy’s state', () => {
    const before: Array<Array<EmailEventKind | [EmailEventKind, Record<string, unknown>]>> = [[], ['bounce'], [softBounce], ['open'], ['delivery'], ['spam']];
    const pairs = before.map((events) => {
      const [together, alone] = [stored(), stored()];
      afterEvents(together, ...events);
      afterEvents(alone, ...events);
      return { together, alone };
    });
    announced = [];
    const at = (i: number) => `2026-01-01T00:00:0${i + 2}.000Z`;
    log.applyDeliveries(pairs.map(({ together }, i) => ({ message: log.find(together)!, timestamp: at(i) })));
    const heardTogether = announced.splice(0);
    for (const [i, { alone }] of pairs.entries()) log.applyDelivery(log.find(alone)!, at(i));

    const stateOf = (id: string) => {
      const { status, failed_reason, delivered_ms, delivered_at, updated_at } = messages.get(id)!;
      const events = messages
        .eventsOf([id])
        .get(id)!
        .map(({ seq, event, timestamp, delivery_id }) => ({ seq, event, timestamp, delivery_id }));
      return { status, failed_reason, delivered_ms, delivered_at, updated_at, events };
    };
    for (const { together, alone } of pairs) expect(stateOf(together)).toEqual(stateOf(alone));
    const withoutIds = (list: StatusChange[]) => list.map(({ message_id, ref_id, ...rest }) => rest);
    expect(withoutIds(heardTogether)).toEqual(withoutIds(announced));
    expect(heardTogether.map((a) => a.message_id)).toEqual(pairs.map((p) => p.together));
    // Not every copy changed: the rule was applied, not a blanket update.
    expect(pairs.map(({ together }) => messages.get(together)!.status)).toEqual(['delivered', 'bounced', 'delivered', 'opened', 'delivered', 'spam']);
  });

  it('writes all of a batch or none: a status the store refuses leaves no log entry behind (the batch is then recorded one copy at a time)', () => {
    const [first, second] = [stored(), stored()];
    db.exec(`CREATE TRIGGER refuse BEFORE UPDATE OF status ON messages WHEN new.id = '${second}' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    db.transaction(() => {
      expect(() => log.applyDeliveries([first, second].map((id) => ({ message: log.find(id)!, timestamp: '2026-01-01T00:00:02.000Z' })))).toThrow('refused');
      for (const id of [first, second]) expect(messages.eventsOf([id]).get(id) ?? []).toEqual([]);
      expect(messages.get(first)!.status).toBe('queued');
    })();
  });
});
