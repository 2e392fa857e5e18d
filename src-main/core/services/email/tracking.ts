import { randomBytes } from 'node:crypto';
import { linkToken, type TrackedLink } from '../../store/tracking-tokens';
import { he } from './he';

export interface TrackingToken {
  token: string;
  kind: 'open' | 'unsubscribe';
  url: string | null;
  link_name: string | null;
}

export interface TrackingOptions {
  open: boolean;
  click: boolean;
  unsubscribe: boolean;
  /** The emulator's HTTP URL, e.g. http://127.0.0.1:4400. */
  baseUrl: string;
}

export interface TrackedContent {
  html: string | undefined;
  text: string | undefined;
  headers: Record<string, string>;
  /** The open pixel's and the unsubscribe link's tokens. */
  tokens: TrackingToken[];
  /** The click links: this message's key (its links are `{key}{n}`) and their list, when any link was rewritten. */
  links?: { key: string; prepared: PreparedLinks };
}

/**
 * The links of an HTML part that click tracking rewrites, found once for every copy made from it: the
 * HTML around each tracked link's URL (`parts[i]` before link i, the last part after them all) and
 * what each link stands for.
 */
export interface PreparedLinks {
  parts: string[];
  list: TrackedLink[];
}

const newToken = () => randomBytes(16).toString('base64url');

/** Links of one message that click tracking rewrites; later ones stay as written (docs/limits.md). */
export const MAX_TRACKED_LINKS = 1000;

// An <a ...href="http(s)://..."...>text</a>, with the href in double or single quotes.
const LINK = /<a\b([^>]*?)\bhref\s*=\s*(["'])(https?:\/\/[^"']*)\2([^>]*)>([\s\S]*?)<\/a>/gi;

/** The visible text of an anchor's content, for `link_name`. */
function linkName(inner: string): string {
  return he()
    .decode(inner.replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500);
}

/**
 * The first MAX_TRACKED_LINKS links of `html` (an `<a>` with an http(s) `href`), cut out of it. Past the
 * limit a link is left as written: each tracked link is bytes of every recipient's copy.
 */
export function prepareLinks(html: string): PreparedLinks {
  const parts: string[] = [];
  const list: TrackedLink[] = [];
  let part = '';
  let from = 0;
  LINK.lastIndex = 0;
  for (let m = LINK.exec(html); m !== null && list.length < MAX_TRACKED_LINKS; m = LINK.exec(html)) {
    const [all, before, quote, href, after, inner] = m as unknown as [string, string, string, string, string, string];
    parts.push(`${part}${html.slice(from, m.index)}<a${before}href=${quote}`);
    list.push({ url: he().decode(href), link_name: linkName(inner) });
    part = `${quote}${after}>${inner}</a>`;
    from = m.index + all.length;
  }
  LINK.lastIndex = 0;
  parts.push(part + html.slice(from));
  return { parts, list };
}

/** The random parts of one message's tracking: its link key, pixel token and unsubscribe token. */
export interface TrackingKeys {
  click: string;
  open: string;
  unsubscribe: string;
}

export const newTrackingKeys = (): TrackingKeys => ({ click: newToken(), open: newToken(), unsubscribe: newToken() });

/** What addTracking records of a message with these keys: its pixel and unsubscribe tokens and its click links. */
export function trackingRecords(
  hasHtml: boolean,
  options: TrackingOptions,
  links: PreparedLinks | undefined,
  keys: TrackingKeys,
): Pick<TrackedContent, 'tokens' | 'links'> {
  const tokens: TrackingToken[] = [];
  if (options.unsubscribe) tokens.push({ token: keys.unsubscribe, kind: 'unsubscribe', url: null, link_name: null });
  if (hasHtml && options.open) tokens.push({ token: keys.open, kind: 'open', url: null, link_name: null });
  const clicks = hasHtml && options.click && links && links.list.length > 0 ? { key: keys.click, prepared: links } : undefined;
  return { tokens, links: clicks };
}

/**
 * Adds the tracking of one message: links rewritten to `/t/c/{key}{n}` (`key` its own, `n` the link's
 * number), a pixel `/t/o/{token}`, an unsubscribe link `/t/u/{token}` with `List-Unsubscribe` and RFC 8058
 * `List-Unsubscribe-Post`. `links` are the HTML's links when already found (the same HTML for every copy).
 */
export function addTracking(
  html: string | undefined,
  text: string | undefined,
  options: TrackingOptions,
  links?: PreparedLinks,
  keys: TrackingKeys = newTrackingKeys(),
): TrackedContent {
  const headers: Record<string, string> = {};
  const url = (kind: string, token: string) => `${options.baseUrl}/t/${kind}/${token}`;
  const prepared = html !== undefined && options.click ? (links ?? prepareLinks(html)) : undefined;
  const { tokens, links: clicks } = trackingRecords(html !== undefined, options, prepared, keys);
  let outHtml = html;
  let outText = text;
  if (clicks) {
    const { parts, list } = clicks.prepared;
    const out = new Array<string>(parts.length * 2 - 1);
    parts.forEach((part, n) => {
      out[2 * n] = part;
      if (n < list.length) out[2 * n + 1] = url('c', linkToken(keys.click, n));
    });
    outHtml = out.join('');
  }
  if (options.unsubscribe) {
    const link = url('u', keys.unsubscribe);
    headers['List-Unsubscribe'] = `<${link}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    if (outHtml !== undefined) outHtml = insertBeforeBodyEnd(outHtml, `<p style="font-size:12px;color:#888"><a href="${link}">Unsubscribe</a></p>`);
    if (outText !== undefined) outText = `${outText}\n\nUnsubscribe: ${link}\n`;
  }
  if (outHtml !== undefined && options.open) {
    outHtml = insertBeforeBodyEnd(
      outHtml,
      `<img src="${url('o', keys.open)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`,
    );
  }
  return { html: outHtml, text: outText, headers, tokens, links: clicks };
}

function insertBeforeBodyEnd(html: string, snippet: string): string {
  const end = html.search(/<\/body\s*>/i);
  return end === -1 ? html + snippet : html.slice(0, end) + snippet + html.slice(end);
}
