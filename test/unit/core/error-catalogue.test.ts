import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appError, ERRORS, type ErrorEntry, type ErrorName } from '../../../src-main/core/error-catalogue';
import { ERROR_STATUS, type FieldError } from '../../../src-shared/errors';

/**
 * The error catalogue is the one place the emulator's error words are written: docs/errors.md lists
 * it, and no source file makes an AppError of its own words.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const CATALOGUE = 'src-main/core/error-catalogue.ts';
const DOC = join(ROOT, 'docs/errors.md');
const START = '<!-- the catalogue: generated from src-main/core/error-catalogue.ts -->';
const END = '<!-- end of the catalogue -->';

/** A parameter as the docs show it: `<name>`. */
const placeholders = new Proxy({}, { get: (_target, key) => `<${String(key)}>` });

function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || longest > 0 ? ' ' : '';
  return `${ticks}${pad}${text.replaceAll('|', '\\|')}${pad}${ticks}`;
}

function fieldsCell(fields: readonly FieldError[] | string | undefined): string {
  if (fields === undefined) return '';
  // A parameter: the list the caller gives (a schema's problems).
  if (typeof fields === 'string') return 'one per problem, by path';
  return fields.map((f) => `${codeSpan(f.path || 'body')}: ${codeSpan(f.message)}`).join('<br>');
}

/** `{records: '<records>'}` as `records`: the members an error body carries beside `error`. */
function memberPaths(value: object, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, v]) => (typeof v === 'object' && v !== null ? memberPaths(v, `${prefix}${key}.`) : [`${prefix}${key}`]));
}

/** The table docs/errors.md carries: one row per entry, its parameters shown as `<name>`. */
function catalogueTable(): string {
  const rows = Object.entries(ERRORS).map(([name, entry]) => {
    const e = entry as ErrorEntry<object>;
    const message = typeof e.message === 'function' ? e.message(placeholders) : e.message;
    const fields = (typeof e.fields === 'function' ? e.fields(placeholders) : e.fields) as readonly FieldError[] | string | undefined;
    const extras = e.extras ? memberPaths(e.extras(placeholders)).map(codeSpan) : [];
    const more = [fieldsCell(fields), ...(extras.length ? [`also ${extras.join(', ')}`] : [])].filter(Boolean).join('<br>');
    return `| \`${name}\` | ${ERROR_STATUS[e.code]} | \`${e.code}\` | ${codeSpan(message)} | ${more} | ${e.realService ? 'yes' : ''} |`;
  });
  return ['| name | status | code | `error` | `fields` and more | real service |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

function sourceFiles(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f)).map((f) => `${dir}/${f.split('\\').join('/')}`);
}

describe('the error catalogue', () => {
  it('docs/errors.md lists every entry as it is (regenerate: UPDATE_ERROR_DOCS=1 npx vitest run test/unit/core/error-catalogue.test.ts)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start, `docs/errors.md needs the line ${START}`).toBeGreaterThanOrEqual(0);
    expect(end, `docs/errors.md needs the line ${END}`).toBeGreaterThan(start);
    const table = catalogueTable();
    if (process.env.UPDATE_ERROR_DOCS === '1') {
      writeFileSync(DOC, `${doc.slice(0, start + START.length)}\n\n${table}\n\n${doc.slice(end)}`);
    }
    const shipped = readFileSync(DOC, 'utf8');
    expect(shipped.slice(shipped.indexOf(START) + START.length, shipped.indexOf(END)).trim()).toBe(table);
  });

  it('is the only maker of an AppError: no source file writes its own error words', () => {
    const offenders = [...sourceFiles('src-main'), ...sourceFiles('src-shared')]
      .filter((f) => f !== CATALOGUE)
      .filter((f) => readFileSync(join(ROOT, f), 'utf8').includes('new AppError('));
    expect(offenders, 'throw appError(name, params) with an entry of src-main/core/error-catalogue.ts').toEqual([]);
  });

  it('answers every entry it lists: each name is thrown somewhere', () => {
    const sources = sourceFiles('src-main')
      .filter((f) => f !== CATALOGUE)
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    const unused = (Object.keys(ERRORS) as ErrorName[]).filter((name) => !sources.includes(`'${name}'`));
    expect(unused, 'an entry no code answers is listed in the docs for nothing').toEqual([]);
  });

  it('makes the error of an entry: its status code, words with their values, field problems and extras', () => {
    const needsUrl = appError('inboundNeedsUrl', { path: 'headers' });
    expect(needsUrl.code).toBe('validation');
    expect(needsUrl.message).toBe("headers needs url (without url, mail goes to the domain's URL with its method and headers)");
    expect(needsUrl.errors).toEqual([{ path: 'headers', message: 'needs url' }]);

    const problem = { path: 'traffic.count', line: 3, column: 10, message: 'must be at least 1' };
    const invalid = appError('scenarioFileInvalid', {
      count: 1,
      first: 'traffic.count: must be at least 1 (line 3, column 10)',
      fields: [],
      errors: [problem],
    });
    expect(invalid.message).toBe('the scenario file has 1 problem: traffic.count: must be at least 1 (line 3, column 10)');
    expect(invalid.extras).toEqual({ errors: [problem] });

    expect(appError('webhookExists').message).toBe('Webhook Already Exists');
    expect(ERROR_STATUS[appError('webhookExists').code]).toBe(409);
  });

  it('checks the parameters when compiled (npm run typecheck fails on a wrong one)', () => {
    // Each line below is a compile error; @ts-expect-error fails the type check when it is not.
    // @ts-expect-error an entry without parameters takes none
    appError('templateNotFound', { id: 'x' });
    // @ts-expect-error an entry with parameters needs them
    appError('scenarioRunNotFound');
    // @ts-expect-error a parameter the entry does not name
    appError('scenarioRunNotFound', { run: 'x' });
    // @ts-expect-error a value outside the parameter's type
    appError('inboundNeedsUrl', { path: 'url' });
    // @ts-expect-error a name the catalogue does not hold
    expect(() => appError('noSuchError')).toThrow(TypeError);
  });
});
