import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { addTracking, MAX_TRACKED_LINKS, newTrackingKeys, prepareLinks } from '../../../../../src-main/core/services/email/tracking';
import { loadMigrations, migrate } from '../../../../../src-main/core/store/database';
import { type MessageRow, MessagesRepo } from '../../../../../src-main/core/store/messages.repo';
import { linkToken } from '../../../../../src-main/core/store/tracking-tokens';
import { queuedCopy } from '../../../../helpers/message-row';

const options = { open: false, click: true, unsubscribe: false, baseUrl: 'http://127.0.0.1:4400' };

describe('click tracking of a message with very many links', () => {
  it('rewrites the first MAX_TRACKED_LINKS links to the message key and their number, and leaves the rest as written', () => {
    const html = Array.from({ length: MAX_TRACKED_LINKS + 5 }, (_, i) => `<a href="https://example.com/${i}?a=1&amp;b=2">Item <b>${i}</b></a>`).join('');
    const tracked = addTracking(html, undefined, options);
    expect(tracked.tokens).toHaveLength(0);
    const key = tracked.links!.key;
    expect(tracked.links!.prepared.list).toHaveLength(MAX_TRACKED_LINKS);
    expect(tracked.links!.prepared.list[7]).toEqual({ url: 'https://example.com/7?a=1&b=2', link_name: 'Item 7' });
    expect(tracked.html).toContain(`<a href="http://127.0.0.1:4400/t/c/${key}0">Item <b>0</b></a>`);
    expect(tracked.html).toContain(`<a href="http://127.0.0.1:4400/t/c/${key}999">Item <b>999</b></a>`);
    expect(tracked.html).toContain(`<a href="https://example.com/${MAX_TRACKED_LINKS}?a=1&amp;b=2">`);
    expect(tracked.html).not.toContain('<a href="https://example.com/0?');
  });

  it('finds the links of an HTML part once: each copy made from it differs only in its key', () => {
    const html = `<p>Hi</p><a class="x" href='https://a.example/1' id="y">One</a> and <A HREF="https://b.example/">Two</A><a href="mailto:x@y.z">mail</a>`;
    const prepared = prepareLinks(html);
    expect(prepared.list.map((l) => l.url)).toEqual(['https://a.example/1', 'https://b.example/']);
    const first = addTracking(html, undefined, options, prepared);
    const second = addTracking(html, undefined, options, prepared);
    expect(first.links!.key).not.toBe(second.links!.key);
    expect(second.html).toBe(first.html!.split(first.links!.key).join(second.links!.key));
    expect(first.html).toBe(
      `<p>Hi</p><a class="x" href='http://127.0.0.1:4400/t/c/${first.links!.key}0' id="y">One</a> and <a href="http://127.0.0.1:4400/t/c/${first.links!.key}1">Two</a><a href="mailto:x@y.z">mail</a>`,
    );
  });

  it('adds no key to a message without links, and the pixel and unsubscribe tokens of its keys', () => {
    const keys = newTrackingKeys();
    const tracked = addTracking('<html><body>No links</body></html>', 'text', { ...options, open: true, unsubscribe: true }, undefined, keys);
    expect(tracked.links).toBeUndefined();
    expect(tracked.tokens.map((t) => [t.kind, t.token])).toEqual([
      ['unsubscribe', keys.unsubscribe],
      ['open', keys.open],
    ]);
    expect(tracked.headers['List-Unsubscribe']).toBe(`<http://127.0.0.1:4400/t/u/${keys.unsubscribe}>`);
  });
});

function copy(i: number): MessageRow {
  return queuedCopy(i, { recipient: `r${i}@example.org`, ref_id: 'ref', content_id: `01K${'0'.repeat(23)}`, from_name: '', subject: 'Hi' });
}

describe('the stored links of a send (migration 0020)', () => {
  it("resolves each copy's links to its own copy, keeps a shared list while a copy uses it, and drops it with the last", () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, loadMigrations());
    db.prepare("INSERT INTO accounts (id, name, api_key, is_default, created_at) VALUES ('acc', 'Default', 'key-0123456789', 1, 'now')").run();
    const repo = new MessagesRepo(db);
    repo.insertContent({ content_id: copy(0).content_id, raw: Buffer.from('Subject: Hi\r\n\r\nbody\r\n') });
    const list = [
      { url: 'https://a.example/1', link_name: 'One' },
      { url: 'https://b.example/2', link_name: 'Two' },
    ];
    const [a, b] = [newTrackingKeys().click, newTrackingKeys().click];
    repo.insertMessage(copy(0));
    repo.insertMessage(copy(1));
    repo.insertLinks(copy(0).id, a, copy(0).id, list);
    repo.insertLinks(copy(1).id, b, copy(0).id);
    expect(repo.token(linkToken(a, 1))).toEqual({
      token: linkToken(a, 1),
      message_id: copy(0).id,
      kind: 'click',
      url: 'https://b.example/2',
      link_name: 'Two',
    });
    expect(repo.token(linkToken(b, 0))).toMatchObject({ message_id: copy(1).id, kind: 'click', url: 'https://a.example/1', link_name: 'One' });
    // Unknown numbers and keys are unknown; a key alone is no link.
    expect(repo.token(linkToken(b, 2))).toBeUndefined();
    expect(repo.token(linkToken(newTrackingKeys().click, 0))).toBeUndefined();
    expect(repo.token(b)?.url).toBeNull();
    const links = () => (db.prepare('SELECT count(*) AS n FROM tracked_links').get() as { n: number }).n;
    // The copy whose list it is goes: the other copy's links still resolve.
    repo.deleteOne(copy(0).id);
    expect(repo.token(linkToken(a, 0))).toBeUndefined();
    expect(repo.token(linkToken(b, 1))?.url).toBe('https://b.example/2');
    expect(links()).toBe(2);
    repo.deleteOne(copy(1).id);
    expect(repo.token(linkToken(b, 1))).toBeUndefined();
    expect(links()).toBe(0);
  });
});
