import { readFileSync } from 'node:fs';
import { parseMessageQuery } from '../../../src-shared/search/message-query';
import { lazyRequire } from '../lazy-load';
import { headerTags } from './parse-message';

/** The YAML parser, loaded with the first tags file read (`--tags-config`): most runs read none. */
const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** A tag rule: a captured copy the search finds gets the tags (`--tag`, `--tags-config`), as Mailpit's tag filters. */
export interface TagRule {
  /** The rule as it was written, to name it. */
  rule: string;
  tags: string[];
  /** In the Messages search language (docs/search.md), as /api/v1/search reads it. */
  query: string;
}

/**
 * One rule, `tags=query`: the tags (comma-separated, cleaned as X-Tags are) before the first `=`, the
 * search after it. Throws, naming the rule, when it is not one: no `=`, no tag, no search, a search
 * with words the language does not know (it would be searched as text: a rule that silently never
 * matches), or one on what changes after a message arrives (a rule judges a copy once, as it arrives).
 */
export function tagRule(tagsText: string, query: string, rule: string): TagRule {
  const tags = headerTags(tagsText);
  if (tags.length === 0) throw new Error(`tag rule "${rule}" names no tag before "="`);
  const q = query.trim();
  if (q === '') throw new Error(`tag rule "${rule}" has no search after "="`);
  const parsed = parseMessageQuery(q);
  if (parsed.warnings.length > 0) throw new Error(`tag rule "${rule}": ${parsed.warnings[0]}`);
  const changing = [...parsed.statuses, ...parsed.notStatuses].map((s) => `is:${s}`);
  if (parsed.read !== null) changing.push(parsed.read ? 'is:read' : 'is:unread');
  if (changing.length > 0) {
    throw new Error(`tag rule "${rule}": ${changing[0]} changes after a message arrives, and a rule judges each message once, as it arrives`);
  }
  return { rule, tags, query: q };
}

/**
 * Mailpit's `--tag` value: rules separated by spaces, a double-quoted stretch kept together (its
 * quotes dropped), each `tags=query`: `--tag 'Invoices=subject:invoice "Shop,Orders=from:shop@example.com subject:order"'`.
 */
export function parseTagArgs(value: string): TagRule[] {
  const rules: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of `${value} `) {
    if (c === '"') quoted = !quoted;
    else if (/\s/.test(c) && !quoted) {
      if (current.trim() !== '') rules.push(current.trim());
      current = '';
    } else current += c;
  }
  return rules.map((rule) => {
    const eq = rule.indexOf('=');
    if (eq === -1) throw new Error(`tag rule "${rule}" has no "=": write tags=search (quote a search of several words: "Tag=from:a subject:b")`);
    return tagRule(rule.slice(0, eq), rule.slice(eq + 1), rule);
  });
}

/**
 * Mailpit's tags configuration file (`--tags-config`), YAML: `filters`, a list of `match` (a search)
 * and `tags` (comma-separated). Throws, naming the file and the entry, when it cannot be read or is
 * not that.
 */
export function readTagsConfig(file: string): TagRule[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    throw new Error(`${file} is not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const filters = (doc as { filters?: unknown } | null)?.filters;
  if (!Array.isArray(filters)) throw new Error(`${file} has no "filters:" list (each entry a "match:" search and its "tags:")`);
  return filters.map((entry: unknown, i) => {
    const { match, tags } = (entry ?? {}) as { match?: unknown; tags?: unknown };
    const name = `${file}, filter ${i + 1}`;
    if (typeof match !== 'string' || typeof tags !== 'string') throw new Error(`${name}: "match" and "tags" must each be text`);
    return tagRule(tags, match, `${name}: ${tags}=${match}`);
  });
}

/** Mailpit's `--tags-disable` values: which of its automatic tags are off. */
export function parseTagsDisable(value: string): { xTags: boolean; plusAddresses: boolean } {
  const off = { xTags: false, plusAddresses: false };
  for (const part of value.split(',').map((p) => p.trim().toLowerCase())) {
    if (part === '') continue;
    if (part === 'x-tags' || part === 'xtags') off.xTags = true;
    else if (part === 'plus-addresses' || part === 'plus-addressing') off.plusAddresses = true;
    else throw new Error(`"${part}" is not one of x-tags, plus-addresses`);
  }
  return off;
}

/** An `X-Tags` header's tags, cleaned (headerTags), title-cased with `--tags-title-case`. */
export function xTagsOf(value: string, titleCased: boolean): string[] {
  const tags = headerTags(value);
  return titleCased ? headerTags(tags.map(titleCase).join(',')) : tags;
}

/** `--tags-title-case`: each word's first letter upper-cased (a word starts a tag or follows a space, `-` or `@`), the rest as written. */
export function titleCase(tag: string): string {
  return tag.replace(/(^|[\s\-@])(\p{Ll})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}
