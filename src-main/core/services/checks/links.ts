import { Parser } from 'htmlparser2';
import type { LinkCheck, LinkProblem } from '../../../../src-shared/schemas/checks';
import type { TokenLookup } from '../email/preview';

// A Mailyard tracking URL (this emulator or another port of it): `/t/c/<token>` or `/t/o/<token>`.
const TRACKING_URL = /^\s*(?:(?:https?:)?\/\/[^/\s"'<>]+)?\/t\/([oc])\/([A-Za-z0-9_-]{10,64})(?:[?#]\S*)?\s*$/i;
const UNSAFE_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'file:']);
const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|mc_eid|mc_cid|_hsenc|_hsmi)$/i;

/** The links and remote images of an HTML part, as one pass of a real HTML parser sees them. */
export function scanHtml(html: string): { links: Array<{ href: string; text: string }>; images: string[] } {
  const links: Array<{ href: string; text: string }> = [];
  const images: string[] = [];
  let open: { href: string; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if ((name === 'a' || name === 'area') && 'href' in attrs) {
          const link = { href: attrs.href ?? '', text: name === 'area' ? (attrs.alt ?? '') : '' };
          links.push(link);
          if (name === 'a') open = link;
        } else if (name === 'img') {
          if (attrs.src) images.push(attrs.src);
          if (open && attrs.alt) open.text += ` ${attrs.alt}`;
        }
      },
      ontext(text) {
        if (open) open.text += text;
      },
      onclosetag(name) {
        if (name === 'a') open = null;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  for (const l of links) l.text = l.text.replace(/\s+/g, ' ').trim();
  return { links, images };
}

/** A remote image, the Mailyard tracking pixel not counted. */
export function isRemoteImage(src: string): boolean {
  return /^\s*(https?:)?\/\//i.test(src) && !TRACKING_URL.test(src);
}

/** Each link with what is wrong with it: unsafe or empty targets, relative or plain-http URLs, duplicates, tracking. */
export function checkLinks(html: string, lookup: TokenLookup): LinkCheck[] {
  const { links } = scanHtml(html);
  const checked = links.map(({ href, text }): LinkCheck => {
    const problems: LinkProblem[] = [];
    let url = href.trim();
    const tracked = TRACKING_URL.exec(url);
    if (tracked) {
      const known = lookup(tracked[2]!);
      if (known?.kind === 'click' && known.url) {
        url = known.url;
        problems.push({ code: 'tracked', level: 'info', message: `Click-tracked: goes through Mailyard's /t/c/ redirect to ${known.url}` });
      } else if (known?.kind === 'unsubscribe' || tracked[1]!.toLowerCase() === 'c') {
        problems.push({ code: 'tracked', level: 'info', message: 'A Mailyard tracking link' });
        return { href, url, text, problems };
      }
    }
    problems.push(...problemsOf(url));
    return { href, url, text, problems };
  });
  // The same destination more than once: fine for a logo and a button, but worth a look.
  const seen = new Map<string, number>();
  for (const l of checked) if (l.url && !l.url.startsWith('#')) seen.set(l.url, (seen.get(l.url) ?? 0) + 1);
  for (const l of checked) {
    const n = seen.get(l.url) ?? 0;
    if (n > 1) l.problems.push({ code: 'duplicate', level: 'info', message: `The same URL is linked ${n} times` });
  }
  return checked;
}

function problemsOf(url: string): LinkProblem[] {
  if (url === '' || url === '#')
    return [{ code: 'empty', level: 'error', message: url === '' ? 'Empty href: the link goes nowhere' : 'href="#": the link goes nowhere' }];
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    if (url.startsWith('//'))
      return [{ code: 'relative', level: 'warning', message: 'Scheme-relative URL: mail clients have no page to take the scheme from; use https://' }];
    return [{ code: 'relative', level: 'error', message: 'Relative URL: an email has no base address, so this link is broken in every client' }];
  }
  if (UNSAFE_SCHEMES.has(scheme))
    return [{ code: 'unsafe_scheme', level: 'error', message: `Unsafe scheme ${scheme} (mail clients strip or block it; spam filters flag it)` }];
  if (scheme === 'mailto:' || scheme === 'tel:' || scheme === 'sms:') {
    return url.length > scheme.length ? [] : [{ code: 'empty', level: 'error', message: `${scheme} with no address` }];
  }
  if (scheme !== 'http:' && scheme !== 'https:')
    return [{ code: 'unsafe_scheme', level: 'warning', message: `Unusual scheme ${scheme}: most mail clients will not open it` }];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ code: 'invalid', level: 'error', message: 'Not a valid URL' }];
  }
  const problems: LinkProblem[] = [];
  if (scheme === 'http:') problems.push({ code: 'insecure', level: 'warning', message: 'http: instead of https: (browsers warn, some clients rewrite it)' });
  const params = [...parsed.searchParams.keys()].filter((k) => TRACKING_PARAMS.test(k));
  if (params.length > 0) problems.push({ code: 'tracking_params', level: 'info', message: `Tracking parameters: ${params.join(', ')}` });
  return problems;
}
