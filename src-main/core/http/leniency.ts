import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';

/**
 * How `/v1` treats what the real service's JSON decoder would ignore (API.md part 0, "Leniency"):
 * an unknown body field or query parameter, and `null` for an optional field. Lenient (the default):
 * accepted, left out, named in `X-Mailyard-Ignored` and logged once per operation and path.
 * Strict (`--strict-requests`): refused with a 400, as every other validation problem.
 */
export interface RequestLeniency {
  readonly strict: boolean;
  /** Logs `paths` of operation `operation` at warn, each operation and path only the first time. */
  reportIgnored(operation: string, paths: readonly string[], log: FastifyBaseLogger): void;
}

export { IGNORED_HEADER } from '../../../src-shared/http-client';

/** Logged paths are remembered up to this many (operation, path) pairs; beyond, nothing more is logged. */
export const MAX_LOGGED_PATHS = 10_000;

/** One request logs at most this many ignored paths one by one; the rest of its new ones in one line. */
export const MAX_LOGGED_PER_REQUEST = 20;

export function createRequestLeniency(strict: boolean): RequestLeniency {
  const logged = new Set<string>();
  return {
    strict,
    reportIgnored(operation, paths, log) {
      const fresh: string[] = [];
      for (const path of paths) {
        if (logged.size >= MAX_LOGGED_PATHS) break;
        const key = `${operation} ${path}`;
        if (logged.has(key)) continue;
        logged.add(key);
        fresh.push(path);
      }
      for (const path of fresh.slice(0, MAX_LOGGED_PER_REQUEST)) {
        log.warn({ operation, path }, `ignored ${path} in ${operation}: not a field the API knows (or null for an optional one); --strict-requests refuses it`);
      }
      if (fresh.length > MAX_LOGGED_PER_REQUEST) {
        const rest = fresh.slice(MAX_LOGGED_PER_REQUEST);
        log.warn({ operation, paths: rest.slice(0, 100), count: rest.length }, `ignored ${rest.length} more paths in ${operation}`);
      }
    },
  };
}

type Key = string | number;

/** A key longer than this is cut in a reported path (it is the client's text, of any length). */
export const MAX_REPORTED_KEY = 100;
/** `X-Mailyard-Ignored` lists paths up to this many characters, then says how many more there were. */
export const MAX_IGNORED_HEADER = 2000;

/** A key as it can go in a header and a log line: plain, or `["quoted"]` with anything but printable ASCII (and commas) escaped. */
function keyText(key: string): string | undefined {
  if (key.length <= MAX_REPORTED_KEY && /^[A-Za-z0-9_$-]+$/.test(key)) return undefined;
  const cut = key.length > MAX_REPORTED_KEY ? `${key.slice(0, MAX_REPORTED_KEY)}...` : key;
  return `[${JSON.stringify(cut).replace(/[^\x20-\x7e]|,/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}]`;
}

/** `to[0].extra`: object keys joined by dots, array indexes in brackets, odd keys quoted (`["a b"]`). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') {
      out += `[${key}]`;
      continue;
    }
    const text = String(key);
    const quoted = keyText(text);
    if (quoted !== undefined) out += quoted;
    else out += out === '' ? text : `.${text}`;
  }
  return out;
}

/** The header's value: the paths comma-separated, at most MAX_IGNORED_HEADER characters. */
export function ignoredHeaderValue(paths: readonly string[]): string {
  let out = '';
  for (let i = 0; i < paths.length; i++) {
    const next = out === '' ? paths[i]! : `${out}, ${paths[i]}`;
    if (next.length > MAX_IGNORED_HEADER) return `${out}, ... (${paths.length - i} more)`;
    out = next;
  }
  return out;
}

/** The paths of a failed parse that leniency may drop; issues it may not are left to be reported. */
function droppable(issues: readonly z.core.$ZodIssue[]): Key[][] {
  const out: Key[][] = [];
  for (const issue of issues) {
    const path = issue.path as Key[];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push([...path, key]);
    } else if (issue.code === 'invalid_type' && issue.input === null && typeof path.at(-1) === 'string') {
      // A null object member: dropped, it is "left out"; the re-parse tells whether it may be.
      out.push(path);
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `value` without the members at `paths`; only the objects and arrays along them are copied. */
function withoutPaths(value: unknown, paths: readonly Key[][]): unknown {
  let root = value;
  const copied = new Set<unknown>();
  const copyOf = (v: unknown): unknown => {
    if (copied.has(v)) return v;
    const c = Array.isArray(v) ? [...(v as unknown[])] : { ...(v as Record<string, unknown>) };
    copied.add(c);
    return c;
  };
  for (const path of paths) {
    root = copyOf(root);
    let node = root as Record<Key, unknown>;
    for (let i = 0; i < path.length - 1; i++) {
      const next = node[path[i]!];
      if (typeof next !== 'object' || next === null) break;
      node[path[i]!] = copyOf(next);
      node = node[path[i]!] as Record<Key, unknown>;
    }
    const last = path.at(-1)!;
    if (isRecord(node)) delete node[last as string];
  }
  return root;
}

/** `ignored`: what was left out, on a refusal too (the refusal's problems are the rest). */
export type LenientResult<T> = { success: true; data: T; ignored: string[] } | { success: false; issues: readonly z.core.$ZodIssue[]; ignored: string[] };

const samePath = (a: readonly PropertyKey[], b: readonly Key[]) => a.length === b.length && a.every((k, i) => k === b[i]);

/**
 * Parses `value` with its strict schema; when it fails, drops the unknown members and the null ones
 * whose absence the schema takes, and parses again. The first parse is the whole cost of a valid
 * request. What cannot be dropped (wrong types, enum values, rules, a null required field) is
 * reported as the strict parse would. `params` must have `reportInput: true`: an issue's input tells
 * a null member from a missing one.
 */
export function parseLeniently<S extends z.ZodType>(schema: S, value: unknown, params: z.core.ParseContext<z.core.$ZodIssue>): LenientResult<z.output<S>> {
  const first = schema.safeParse(value, params);
  if (first.success) return { success: true, data: first.data, ignored: [] };
  const drop = droppable(first.error.issues);
  if (drop.length === 0) return { success: false, issues: first.error.issues, ignored: [] };
  const second = schema.safeParse(withoutPaths(value, drop), params);
  if (second.success) return { success: true, data: second.data, ignored: drop.map(formatPath) };
  // Still refused: only what leniency could not drop is reported. A null the schema needs (its
  // absence is "is required") is reported in the strict parse's words ("must be a string, not null").
  const required = drop.filter((p) => second.error.issues.some((i) => i.code === 'invalid_type' && i.input === undefined && samePath(i.path, p)));
  const nulls = first.error.issues.filter((i) => i.code === 'invalid_type' && required.some((p) => samePath(i.path, p)));
  const rest = second.error.issues.filter((i) => !required.some((p) => samePath(i.path, p)));
  return { success: false, issues: [...nulls, ...rest], ignored: drop.filter((p) => !required.includes(p)).map(formatPath) };
}
