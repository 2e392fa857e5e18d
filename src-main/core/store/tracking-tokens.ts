import type { Db } from './database';

/**
 * The tracking tokens of sent copies (migrations 0003 and 0020). An open pixel, an unsubscribe link and
 * the click links of copies sent before 0020 are one row each. A copy's click links are `{key}{n}`: its
 * own random key (LINK_KEY_LENGTH characters, a row with `links_of`) and the link's number, resolved
 * through the list of links stored once for every copy made from the same HTML.
 */
export interface TrackingTokenRow {
  token: string;
  message_id: string;
  kind: 'open' | 'click' | 'unsubscribe';
  url: string | null;
  link_name: string | null;
}

export interface TrackedLink {
  url: string;
  link_name: string;
}

/** The length of a copy's link key (16 random bytes in base64url); a single token has exactly this length too. */
export const LINK_KEY_LENGTH = 22;
/** The highest number of digits of a link's number after its key. */
const LINK_NUMBER = /^\d{1,6}$/;

/** The token of link `n` of the copy whose key is `key`. */
export const linkToken = (key: string, n: number): string => `${key}${n}`;

export class TrackingTokens {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[TrackingTokenRow & { links_of: string | null }]>(
        'INSERT INTO tracking_tokens (token, message_id, kind, url, link_name, links_of) VALUES (@token, @message_id, @kind, @url, @link_name, @links_of)',
      ),
      insertLink: db.prepare<[{ links_of: string; n: number; url: string; link_name: string }]>(
        'INSERT INTO tracked_links (links_of, n, url, link_name) VALUES (@links_of, @n, @url, @link_name)',
      ),
      get: db.prepare<[string], TrackingTokenRow>('SELECT token, message_id, kind, url, link_name FROM tracking_tokens WHERE token = ?'),
      link: db.prepare<[{ key: string; n: number }], { message_id: string; url: string; link_name: string }>(
        `SELECT t.message_id, l.url, l.link_name FROM tracking_tokens t
         JOIN tracked_links l ON l.links_of = t.links_of AND l.n = @n
         WHERE t.token = @key`,
      ),
    };
  }

  /** One token: an open pixel, an unsubscribe link (or a click link of its own). */
  insert(row: TrackingTokenRow): void {
    this.stmts.insert.run({ ...row, links_of: null });
  }

  /**
   * A copy's click links: its key, and the list they stand for, stored under `linksOf` (the copy whose list
   * it is) when `list` is given; the copies that share a list give it once, with the first of them.
   */
  insertLinks(messageId: string, key: string, linksOf: string, list?: readonly TrackedLink[]): void {
    for (const [n, link] of (list ?? []).entries()) this.stmts.insertLink.run({ links_of: linksOf, n, url: link.url, link_name: link.link_name });
    this.stmts.insert.run({ token: key, message_id: messageId, kind: 'click', url: null, link_name: null, links_of: linksOf });
  }

  /** What a token stands for, a single one or a copy's link `{key}{n}`; undefined when unknown. */
  get(token: string): TrackingTokenRow | undefined {
    if (token.length <= LINK_KEY_LENGTH) return this.stmts.get.get(token);
    const n = token.slice(LINK_KEY_LENGTH);
    if (!LINK_NUMBER.test(n)) return this.stmts.get.get(token);
    const link = this.stmts.link.get({ key: token.slice(0, LINK_KEY_LENGTH), n: Number(n) });
    return link ? { token, message_id: link.message_id, kind: 'click', url: link.url, link_name: link.link_name } : this.stmts.get.get(token);
  }
}
