import type { Document, LineCounter } from 'yaml';
import { Scenario } from '../../../src-shared/scenario/format';
import { lazyRequire } from '../lazy-load';

/** The YAML parser, loaded with the first scenario file read: most runs read none. */
const yaml = lazyRequire<typeof import('yaml')>('yaml');

export type { ScenarioFileError } from '../../../src-shared/scenario/format';

import type { ScenarioFileError } from '../../../src-shared/scenario/format';

export type ParseResult = { ok: true; scenario: Scenario } | { ok: false; errors: ScenarioFileError[] };

/** The node's start offset for a path, walking down as far as the document goes (a missing field: its parent). */
function offsetOf(doc: Document, path: readonly PropertyKey[]): number | null {
  let node: unknown = doc.contents;
  let offset: number | null = (node as { range?: number[] } | null)?.range?.[0] ?? null;
  const { isMap, isSeq } = yaml();
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      if (!pair) break;
      node = pair.value;
      offset = (pair.value as { range?: number[] } | null)?.range?.[0] ?? (pair.key as { range?: number[] }).range?.[0] ?? offset;
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
      offset = (node as { range?: number[] } | null)?.range?.[0] ?? offset;
    } else break;
  }
  return offset;
}

/** How far aliases may expand a file: yaml counts each use of an anchor times the aliases inside it. */
export const MAX_ALIAS_COUNT = 100;

function aliasProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!/excessive alias count/i.test(message)) return message;
  return `aliases expand too far (at most ${MAX_ALIAS_COUNT} uses of anchored content, counting the aliases inside it); write the values out`;
}

/**
 * A scenario file's text (YAML, or JSON, which is YAML too) to a validated Scenario, or every problem
 * with its line and column: a YAML syntax error, then each field zod refuses. Never throws.
 */
export function parseScenario(source: string): ParseResult {
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return { path: '', line: pos?.line ?? null, column: pos?.col ?? null, message: `YAML: ${e.message.split('\n')[0]}` };
      }),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // An alias bomb (anchors repeating one another) is refused before it expands; yaml throws for it.
    return { ok: false, errors: [{ path: '', line: null, column: null, message: `YAML: ${aliasProblem(err)}` }] };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, errors: [{ path: '', line: 1, column: 1, message: 'a scenario file must be a mapping (version, name, ...)' }] };
  }
  return validateScenario(data, doc, lines);
}

/** A scenario given as an object (the testing API): validated, errors without lines. */
export function validateScenario(data: unknown, doc?: Document, lines?: LineCounter): ParseResult {
  const result = Scenario.safeParse(data);
  if (result.success) return { ok: true, scenario: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((issue) => {
      const offset = doc ? offsetOf(doc, issue.path) : null;
      const pos = offset !== null && lines ? lines.linePos(offset) : null;
      const path = issue.path.map(String).join('.');
      return { path, line: pos?.line ?? null, column: pos?.col ?? null, message: messageOf(issue) };
    }),
  };
}

function messageOf(issue: { code: string; message: string; keys?: string[] }): string {
  if (issue.code === 'unrecognized_keys' && issue.keys) return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
  return issue.message;
}

/**
 * How a client asks an emulator over HTTP to run a scenario file (`POST /emulator/scenarios/runs`):
 * by its path when the scenario starts an app, since text posted over HTTP never starts one (that
 * emulator must allow the file's folder: `--scenarios DIR`); otherwise by its text, which runs anywhere.
 */
export function runRequestOf(file: string, source: string, scenario: Scenario | undefined): { path: string } | { source: string; file: string } {
  return scenario?.app ? { path: file } : { source, file };
}

/** `line 4, col 9: outcomes.0.match.share: must be at most 1` */
export function formatScenarioError(e: ScenarioFileError, file?: string): string {
  const where = e.line === null ? '' : `${file ? `${file}:` : 'line '}${e.line}${e.column === null ? '' : `:${e.column}`}: `;
  return `${where}${e.path ? `${e.path}: ` : ''}${e.message}`;
}
