/**
 * The operation table and the handler records are one contract the compiler holds: type-checks the
 * HTTP layer (app.ts and what it imports) with one file changed in memory, as a maintainer would
 * change it, and expects the error `npm run typecheck` would report.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../../..');
const APP = join(ROOT, 'src-main/core/http/app.ts');
const EMAIL_HANDLERS = join(ROOT, 'src-main/core/http/routes/email.routes.ts');
const EMAIL_OPERATIONS = join(ROOT, 'src-shared/operations/service/email.ts');

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'src-main/tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
)!;
let previous: ts.Program | undefined;

/** The errors in `files` when `changed` holds that text instead of what is on disk. */
function errorsWith(changed: string, text: string, files: string[]): string[] {
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (resolve(name) === changed ? text : readFile(name));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError, fresh) =>
    resolve(name) === changed ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, onError, fresh);
  const program = ts.createProgram({ rootNames: [APP], options: config.options, host, oldProgram: previous });
  previous = program;
  return files.flatMap((file) =>
    program
      .getSemanticDiagnostics(program.getSourceFile(file))
      .map((d) => `${file.slice(ROOT.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
  );
}

/** `source` without the lines from the one starting with `from` up to (not including) the next one starting with `to`. */
function without(source: string, from: RegExp, to: RegExp): string {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => from.test(l));
  const end = lines.findIndex((l, i) => i > start && to.test(l));
  expect(start, `${from} is in the file`).toBeGreaterThan(-1);
  return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
}

describe('the operation table and its handlers', () => {
  it("a handler deleted from an area's record is a compile error in that routes file, naming the operation, and nowhere else", () => {
    const source = without(readFileSync(EMAIL_HANDLERS, 'utf8'), /^\s+getTemplate: /, /^\s+deleteTemplate: /);
    const errors = errorsWith(EMAIL_HANDLERS, source, [APP, EMAIL_HANDLERS]);
    expect(errors.join('\n')).toMatch(/src-main\/core\/http\/routes\/email\.routes\.ts: .*Property 'getTemplate' is missing/s);
    // Each record is typed against its own table: app.ts, which joins them, says nothing of it.
    expect(errors.filter((e) => e.startsWith('src-main/core/http/app.ts') && e.includes('getTemplate'))).toEqual([]);
  }, 120_000);

  it('an operation deleted from the table is a compile error where its handler is written', () => {
    const source = without(readFileSync(EMAIL_OPERATIONS, 'utf8'), /^ {2}getTemplate: \{/, /^ {2}deleteTemplate: \{/);
    const errors = errorsWith(EMAIL_OPERATIONS, source, [EMAIL_HANDLERS]);
    expect(errors.join('\n')).toMatch(/email\.routes\.ts: Object literal may only specify known properties, and 'getTemplate' does not exist/);
  }, 120_000);
});

describe('operation files and routes files', () => {
  it('each file of the operation table has the routes file of its name, where its handlers are typed against it', () => {
    const tables = join(ROOT, 'src-shared/operations');
    const routes = join(ROOT, 'src-main/core/http/routes');
    const missing = ['control', 'service', 'mailpit'].flatMap((area) =>
      readdirSync(join(tables, area))
        .filter((f) => f.endsWith('.ts'))
        .filter((f) => {
          const file = join(routes, f.replace(/\.ts$/, '.routes.ts'));
          return !existsSync(file) || !readFileSync(file, 'utf8').includes(`operations/${area}/${f.replace(/\.ts$/, '')}'`);
        })
        .map((f) => `${area}/${f}`),
    );
    expect(missing).toEqual([]);
  });
});
