import type { CompatFinding } from '../../../../src-shared/schemas/checks';
import type { MailpitHtmlCheck } from '../../../../src-shared/schemas/mailpit';

/** caniemail's names of the client families and platforms, as Mailpit shows them. */
const FAMILY_NAMES: Record<string, string> = {
  'apple-mail': 'Apple Mail',
  gmail: 'Gmail',
  orange: 'Orange',
  outlook: 'Outlook',
  yahoo: 'Yahoo! Mail',
  aol: 'AOL',
  'samsung-email': 'Samsung Email',
  sfr: 'SFR',
  thunderbird: 'Mozilla Thunderbird',
  protonmail: 'ProtonMail',
  hey: 'HEY',
  'mail-ru': 'Mail.ru',
  fastmail: 'Fastmail',
  laposte: 'LaPoste.net',
};
const PLATFORM_NAMES: Record<string, string> = {
  macos: 'macOS',
  ios: 'iOS',
  android: 'Android',
  windows: 'Windows',
  'windows-mail': 'Windows Mail',
  'desktop-webmail': 'Desktop Webmail',
  'mobile-webmail': 'Mobile Webmail',
};

const split = (client: string) => {
  const [family = client, platform = ''] = client.split('.');
  return { family, platform };
};

/** Elements Mailpit counts as the document's nodes: all but the html, head and meta elements. */
function countNodes(html: string): number {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)\b/g)].filter((m) => !/^(html|head|meta)$/i.test(m[1]!)).length;
}

/**
 * The Checks tab's client compatibility (caniemail's data) in the shape of Mailpit's HTML check. One
 * warning per feature the HTML uses that some client lacks or only partly has; `Results` lists those
 * clients only (the data says which clients fail, not which pass) and `Version` is empty (the data is
 * per client, not per version). `Score.Found` is 1: the data says a feature is used, not how often.
 * `clients` is every client the data covers (the percentages' whole).
 */
export function toMailpitHtmlCheck(html: string, findings: readonly CompatFinding[], clients: readonly string[]): MailpitHtmlCheck {
  const byFeature = new Map<string, CompatFinding[]>();
  for (const f of findings) byFeature.set(f.feature, [...(byFeature.get(f.feature) ?? []), f]);
  const nodes = Math.max(1, countNodes(html));
  const percent = (n: number) => (n / Math.max(1, clients.length)) * 100;
  const warnings = [...byFeature].map(([feature, levels]) => {
    const notes = [...new Set(levels.flatMap((f) => f.notes))];
    const results = levels.flatMap((f) =>
      f.clients.map((client) => {
        const { family, platform } = split(client);
        return {
          Name: `${FAMILY_NAMES[family] ?? family} ${PLATFORM_NAMES[platform] ?? platform}`.trim(),
          Platform: platform,
          Family: family,
          Version: '',
          Support: f.level === 'error' ? ('no' as const) : ('partial' as const),
          NoteNumber: '',
        };
      }),
    );
    const no = results.filter((r) => r.Support === 'no').length;
    const partial = results.length - no;
    return {
      Slug: feature
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, ''),
      Title: feature,
      Description: '',
      URL: `https://www.caniemail.com/search/?s=${encodeURIComponent(feature)}`,
      Category: /^<|element|attribute/.test(feature) ? ('html' as const) : ('css' as const),
      Tags: [],
      Keywords: '',
      Results: results,
      NotesByNumber: Object.fromEntries(notes.map((n, i) => [String(i + 1), n])),
      Score: { Found: 1, Supported: 100 - percent(no) - percent(partial), Partial: percent(partial), Unsupported: percent(no) },
    };
  });
  // Mailpit's totals: the worst feature's share, weighted by how much of the document it touches.
  const worst = (pick: (s: { Partial: number; Unsupported: number; Found: number }) => number) =>
    Math.max(0, ...warnings.map((w) => (pick(w.Score) * w.Score.Found) / nodes));
  const unsupported = worst((s) => s.Unsupported);
  const partial = worst((s) => s.Partial);
  const platforms: Record<string, string[]> = {};
  for (const client of clients) {
    const { family, platform } = split(client);
    const list = platforms[platform] ?? [];
    const name = FAMILY_NAMES[family] ?? family;
    if (!list.includes(name)) list.push(name);
    platforms[platform] = list;
  }
  for (const list of Object.values(platforms)) list.sort();
  return {
    Warnings: warnings.sort((a, b) => b.Score.Unsupported + b.Score.Partial - (a.Score.Unsupported + a.Score.Partial)),
    Platforms: platforms,
    Total: { Tests: warnings.length, Nodes: nodes, Supported: 100 - partial - unsupported, Partial: partial, Unsupported: unsupported },
  };
}
