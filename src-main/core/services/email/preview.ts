/**
 * The UI's preview of a captured message never counts as an open or a click (API.md part 4): its
 * HTML is served with the tracking pixel removed and each tracked link pointing at the URL it stands
 * for, marked as tracked, so neither loading the preview nor following a link in it reaches `/t/o/` or
 * `/t/c/`. The message itself (its raw source, its detail's `html`) is left exactly as it was sent.
 */

/** What a tracking token stands for, as the repository knows it. */
export interface PreviewToken {
  kind: 'open' | 'click' | 'unsubscribe';
  url: string | null;
}

export type TokenLookup = (token: string) => PreviewToken | undefined;

/** The attribute the preview marks a tracked link with; its value is the link's token. */
export const TRACKED_LINK_ATTR = 'data-mailyard-tracked-link';

// A tracking URL of this or any other Mailyard (its port may have changed since): absolute, scheme-relative or a path.
const TRACKING_URL = /^\s*(?:(?:https?:)?\/\/[^/\s"'<>]+)?\/t\/([oc])\/([A-Za-z0-9_-]{10,64})(?:[?#][^"'<>\s]*)?\s*$/i;
const TRACKING_URL_ANYWHERE = /(?:(?:https?:)?\/\/[^/\s"'<>()]+)?\/t\/([oc])\/([A-Za-z0-9_-]{10,64})/gi;
// An <img> or <a> start tag, its quoted attribute values allowed to hold `>`.
const TAG = /<(img|a)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const attrPattern = (name: string) => new RegExp(`(\\s${name}\\s*=\\s*)(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i');

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The token of a tracking URL of the given kind that this Mailyard knows, else undefined. */
function trackedToken(value: string, lookup: TokenLookup): { kind: 'o' | 'c'; token: string; known: PreviewToken } | undefined {
  const m = TRACKING_URL.exec(value);
  if (!m) return undefined;
  const known = lookup(m[2]!);
  if (!known || (known.kind !== 'open' && known.kind !== 'click')) return undefined;
  return { kind: m[1]!.toLowerCase() as 'o' | 'c', token: m[2]!, known };
}

/** The HTML as the preview shows it: no tracking pixel, tracked links to their own URL (see above). */
export function neutraliseTracking(html: string, lookup: TokenLookup): string {
  const out = html.replace(TAG, (tag: string, name: string, attrs: string) => {
    const isImg = name.toLowerCase() === 'img';
    const attr = attrPattern(isImg ? 'src' : 'href');
    const m = attr.exec(` ${attrs}`);
    if (!m) return tag;
    const value = m[2] ?? m[3] ?? m[4] ?? '';
    const tracked = trackedToken(value, lookup);
    if (!tracked) return tag;
    // The pixel (or any image on a tracking URL) is not loaded: it goes.
    if (isImg) return '';
    const { known, token } = tracked;
    const url = known.kind === 'click' && known.url ? known.url : '#';
    const title =
      known.kind === 'click' && known.url ? `Tracked link to ${known.url} (not counted from the preview)` : 'Tracking link (not followed from the preview)';
    const rest = ` ${attrs}`.replace(attr, `$1"${escapeAttr(url)}"`).replace(/\s+title\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)/i, '');
    return `<a ${TRACKED_LINK_ATTR}="${escapeAttr(token)}" title="${escapeAttr(title)}"${rest}>`;
  });
  // Anything else on a known tracking URL (a CSS background, srcset, a link in the text) points nowhere.
  return out.replace(TRACKING_URL_ANYWHERE, (url: string) => (trackedToken(url, lookup) ? 'about:blank' : url));
}

const A_TAG = /<a\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const TARGET_OR_REL = /\s(?:target|rel)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)/gi;

/**
 * The preview's links open outside its frame (a new tab, `target="_blank"`, no opener), never in the
 * sandboxed frame, where the app's own policy would forbid a page such as the unsubscribe link's and
 * leave a broken frame. Links within the message (`#...`) stay in it. The CSP forbids `<base>`, so
 * each link says it. The frame's sandbox still blocks scripts.
 */
export function linksOpenOutside(html: string): string {
  return html.replace(A_TAG, (tag: string, attrs: string) => {
    const href = attrPattern('href').exec(` ${attrs}`);
    const value = href ? (href[2] ?? href[3] ?? href[4] ?? '').trim() : '';
    if (!href || value === '' || value.startsWith('#')) return tag;
    const selfClosing = /\/\s*$/.test(attrs);
    const rest = ` ${attrs}`.replace(TARGET_OR_REL, '').replace(/\s*\/\s*$/, '');
    return `<a${rest} target="_blank" rel="noopener noreferrer"${selfClosing ? ' /' : ''}>`;
  });
}
