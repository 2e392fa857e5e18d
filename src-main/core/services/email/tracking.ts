import { randomBytes } from 'node:crypto';
import he from 'he';

export interface TrackingToken {
  token: string;
  kind: 'open' | 'click' | 'unsubscribe';
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
  tokens: TrackingToken[];
}

const newToken = () => randomBytes(16).toString('base64url');

/** Links of one message that click tracking rewrites; later ones stay as written (documented in the README). */
export const MAX_TRACKED_LINKS = 1000;

// An <a ...href="http(s)://..."...>text</a>, with the href in double or single quotes.
const LINK = /<a\b([^>]*?)\bhref\s*=\s*(["'])(https?:\/\/[^"']*)\2([^>]*)>([\s\S]*?)<\/a>/gi;

/** The visible text of an anchor's content, for `link_name`. */
function linkName(inner: string): string {
  return he.decode(inner.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim().slice(0, 500);
}

/**
 * Adds the tracking of one message: links rewritten to `/t/c/{token}`, a pixel `/t/o/{token}`, an
 * unsubscribe link `/t/u/{token}` with `List-Unsubscribe` and RFC 8058 `List-Unsubscribe-Post`.
 */
export function addTracking(html: string | undefined, text: string | undefined, options: TrackingOptions): TrackedContent {
  const tokens: TrackingToken[] = [];
  const headers: Record<string, string> = {};
  const url = (kind: string, token: string) => `${options.baseUrl}/t/${kind}/${token}`;
  let outHtml = html;
  let outText = text;
  if (outHtml !== undefined && options.click) {
    let links = 0;
    outHtml = outHtml.replace(LINK, (all: string, before: string, quote: string, href: string, after: string, inner: string) => {
      // Past the limit a link is left as written: each tracked link is a token row and bytes of every recipient's copy.
      if (++links > MAX_TRACKED_LINKS) return all;
      const token = newToken();
      tokens.push({ token, kind: 'click', url: he.decode(href), link_name: linkName(inner) });
      return `<a${before}href=${quote}${url('c', token)}${quote}${after}>${inner}</a>`;
    });
  }
  if (options.unsubscribe) {
    const token = newToken();
    tokens.push({ token, kind: 'unsubscribe', url: null, link_name: null });
    const link = url('u', token);
    headers['List-Unsubscribe'] = `<${link}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    if (outHtml !== undefined) outHtml = insertBeforeBodyEnd(outHtml, `<p style="font-size:12px;color:#888"><a href="${link}">Unsubscribe</a></p>`);
    if (outText !== undefined) outText = `${outText}\n\nUnsubscribe: ${link}\n`;
  }
  if (outHtml !== undefined && options.open) {
    const token = newToken();
    tokens.push({ token, kind: 'open', url: null, link_name: null });
    outHtml = insertBeforeBodyEnd(outHtml, `<img src="${url('o', token)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`);
  }
  return { html: outHtml, text: outText, headers, tokens };
}

function insertBeforeBodyEnd(html: string, snippet: string): string {
  const end = html.search(/<\/body\s*>/i);
  return end === -1 ? html + snippet : html.slice(0, end) + snippet + html.slice(end);
}
