/**
 * The remote content of a captured message's HTML that the preview loads once the user allows it, and
 * nothing else: the UI's banner counts these lists, and the preview's Content Security Policy allows
 * exactly their URLs (`remoteContentSources`), so what loads is what the banner named. Anything else
 * that would fetch (a video poster, `<input type=image>`, a `background` attribute, SVG `<image>`,
 * `srcset`, preload and prefetch links, an icon, what a remote style sheet itself asks for) names a URL
 * outside the lists and stays blocked. Read with patterns rather than a parser: markup they miss is
 * not listed, so it is blocked, never loaded uncounted.
 */

/**
 * The most URLs of each list, and characters of their sources: past either the rest stay blocked.
 * Each is a source in the preview's response header, which Chromium refuses past 256 KiB in all.
 */
export const REMOTE_CONTENT_MAX = 200;
export const REMOTE_CONTENT_MAX_CHARS = 16_000;

export interface RemoteContent {
  /** Remote `<img src>` URLs, each once (a tracking pixel of Mailyard's left out). */
  images: string[];
  /** Remote style sheets (`<link rel=stylesheet>`, `@import`) and CSS `url()`s and `image-set()`s (fonts, backgrounds), each once. */
  css: string[];
}

const REMOTE = /^(?:https?:)?\/\//i;
// A tracking URL of a Mailyard (open pixel or click): never loaded by the preview.
const TRACKING = /\/t\/[oc]\/[A-Za-z0-9_-]{10,64}/;
// A start tag, its quoted attribute values allowed to hold `>`.
const TAG = /<(img|link)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const attr = (attrs: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i').exec(attrs);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
};
const CSS_URL = /url\(\s*(["']?)\s*((?:https?:)?\/\/[^"'()\s]+)\s*\1\s*\)/gi;
const CSS_IMPORT = /@import\s+(["'])\s*((?:https?:)?\/\/[^"'\s]+)\s*\1/gi;
const IMAGE_SET = /image-set\(([^)]*)\)/gi;
const CSS_STRING = /(["'])\s*((?:https?:)?\/\/[^"'\s]+)\s*\1/g;

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
/** Attribute values and style text as the browser reads them: the common character references decoded. */
const decode = (s: string) =>
  s.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(amp|quot|apos|lt|gt));/gi, (whole, hex: string, dec: string, named: string) => {
    if (named) return ENTITIES[named.toLowerCase()]!;
    const code = hex ? Number.parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

function remoteUrl(value: string | undefined): string | undefined {
  const url = value === undefined ? undefined : decode(value).trim();
  return url !== undefined && REMOTE.test(url) && !TRACKING.test(url) ? url : undefined;
}

/** What the preview loads once allowed, in the order the HTML names it. */
export function remoteContent(html: string): RemoteContent {
  const images = new Set<string>();
  const css = new Set<string>();
  const chars = new Map([
    [images, 0],
    [css, 0],
  ]);
  const add = (set: Set<string>, url: string | undefined) => {
    const source = url === undefined || set.has(url) || set.size >= REMOTE_CONTENT_MAX ? undefined : sourceOf(url);
    if (source === undefined || chars.get(set)! + source.length + 1 > REMOTE_CONTENT_MAX_CHARS) return;
    chars.set(set, chars.get(set)! + source.length + 1);
    set.add(url!);
  };
  for (const [, name, attrs] of html.matchAll(TAG)) {
    if (name!.toLowerCase() === 'img') add(images, remoteUrl(attr(attrs!, 'src')));
    else if (/(^|\s)stylesheet(\s|$)/i.test(decode(attr(attrs!, 'rel') ?? ''))) add(css, remoteUrl(attr(attrs!, 'href')));
  }
  const text = decode(html);
  for (const m of text.matchAll(CSS_URL)) add(css, remoteUrl(m[2]));
  for (const m of text.matchAll(CSS_IMPORT)) add(css, remoteUrl(m[2]));
  for (const set of text.matchAll(IMAGE_SET)) for (const m of set[1]!.matchAll(CSS_STRING)) add(css, remoteUrl(m[2]));
  return { images: [...images], css: [...css] };
}

/**
 * A URL as a CSP source that matches it alone: scheme, host, port and path, no query (a source has
 * none; the path still must match exactly). Undefined for one a source cannot name alone: a path
 * ending in `/` (a source matches the whole folder), an IPv6 literal host, a URL that does not parse.
 */
export function sourceOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.startsWith('//') ? `http:${url}` : url);
  } catch {
    return undefined;
  }
  if (parsed.pathname.endsWith('/') || parsed.hostname.startsWith('[') || !/^[a-z0-9.-]+(:\d+)?$/i.test(parsed.host)) return undefined;
  const path = parsed.pathname.replace(/;/g, '%3B').replace(/,/g, '%2C');
  // Scheme-relative: the source without a scheme matches the preview's own (and its upgrade to https).
  const scheme = url.startsWith('//') ? '' : `${parsed.protocol}//`;
  return `${scheme}${parsed.host}${path}`;
}

/** The CSP sources that allow exactly the listed content: for images, and for style sheets and fonts. */
export function remoteContentSources(content: RemoteContent): { images: string[]; css: string[] } {
  const css = content.css.map((url) => sourceOf(url)!);
  return { images: [...content.images.map((url) => sourceOf(url)!), ...css], css };
}
