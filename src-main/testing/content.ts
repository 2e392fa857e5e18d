/** A message's links for assertions: every href of its HTML and every http(s) URL of its text, in order, each once. */
import type { EmailEventKind } from '../../src-shared/events';
import type { Delivery } from './types';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, name: string) => ENTITIES[name]!);
}

export function linksOf(html: string | null, text: string | null): string[] {
  const links: string[] = [];
  const seen = new Set<string>();
  const add = (link: string) => {
    const trimmed = link.trim();
    if (trimmed === '' || seen.has(trimmed)) return;
    seen.add(trimmed);
    links.push(trimmed);
  };
  if (html) {
    for (const m of html.matchAll(/<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) add(decodeEntities(m[1] ?? m[2] ?? m[3] ?? ''));
  }
  if (text) {
    for (const m of text.matchAll(/https?:\/\/[^\s<>"')\]]+/gi)) add(m[0].replace(/[.,;:!?]+$/, ''));
  }
  return links;
}

/** The text of a message: its text part, or its HTML without tags when it has none. */
export function textOf(text: string | null, html: string | null): string {
  if (text !== null && text !== '') return text;
  if (!html) return '';
  return decodeEntities(
    html
      .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>|<\/(p|div|tr|h\d|li)>/gi, '\n')
      .replace(/<[^>]+>/g, '')
      .replace(/&nbsp;/g, ' '),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Whether a delivery carries an email event of this kind; narrows its payload to that kind's exact type. */
export function isEmailEvent<K extends EmailEventKind>(delivery: Delivery, kind: K): delivery is Delivery<K> & Delivery {
  return delivery.event === kind && typeof delivery.payload === 'object' && delivery.payload !== null && delivery.payload.event === kind;
}
