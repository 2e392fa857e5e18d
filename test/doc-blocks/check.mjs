#!/usr/bin/env node
/**
 * The docs' code, as their reader gets it: every ```ts and ```js block of README.md and docs/*.md is
 * compiled (and, when it is a complete test, run) in a fresh project that installed the packed
 * tarball, with that project's TypeScript, by the package's public names. `.ci/run` makes the project:
 *
 *   npm init -y; npm pkg set type=module; npm install -D ./mailyard-<version>.tgz
 *   npm install -D $(node <repo>/test/doc-blocks/check.mjs needs <repo>)   # typescript, @types/node, what blocks need
 *   node <repo>/test/doc-blocks/check.mjs check <repo>                     # in the project
 *
 * Each page's blocks are files of one folder of the project (doc-blocks/<page>/code/), so a block may
 * import another block of its page by its `file` name. Each is compiled alone (its own program) with
 * the options `tsc --init` writes (module nodenext, strict, exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess, verbatimModuleSyntax, ...), JavaScript checked too (checkJs). A block that
 * imports vitest or node:test and declares tests is run with that runner. A failure names the page and
 * line: `docs/testing-api.md:123: TS2339: Property 'signing_secret' does not exist on type ...`.
 *
 * MARKERS. A block with no marker is a complete file: everything it uses it imports. A block that is
 * not says so in an HTML comment on the line right before its opening fence (invisible on the page):
 *
 *   <!-- doc-check: fragment given="yard: Mailyard; refId: string" -->
 *   <!-- doc-check: compile-only needs="@playwright/test" file="signup.spec.ts" -->
 *
 *   fragment        a part of a file: compiled with the names in `given` declared (never run).
 *   compile-only    a complete file that declares tests this check does not run (a browser, a container
 *                   engine or your own app needed, or a runner other than vitest and node:test).
 *   given="n: T; m: U"   what a fragment uses without defining it, as declarations; a type may name any
 *                   type mailyard/testing exports (Mailyard, Delivery, ...) or import('pkg').Name.
 *   needs="pkg pkg@1"    packages the block imports besides mailyard and Node's own (installed in the
 *                   project at the repository's version of them, else the one given, else the latest);
 *                   an @types/ package also gives the block its globals (needs="@types/mocha").
 *   file="name.ts"  the block's file name (default L<line>.ts, .test.ts when it is run): another block of
 *                   the page imports it as './name.js'; .cjs makes it CommonJS.
 *   stub="../src/mail.js n: T; m: U"   your own code the block imports, declared (compile only: a block
 *                   with a stub cannot run).
 *   openapi="api.d.ts"   openapi-typescript's types of the installed emulator's /openapi.json, written
 *                   beside the block, made as docs/http-api.md says (`npx openapi-typescript`).
 *
 * test/unit/doc-blocks.test.ts holds every page's markers valid in `npm test`; this compiles and runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { docPages, LANGUAGES, parseBlocks, runnerOf } from './blocks.mjs';

const [command, repoArg] = process.argv.slice(2);
if (!['needs', 'check'].includes(command ?? '') || !repoArg) {
  console.error('usage: check.mjs needs <repository>   (the packages to install)\n       check.mjs check <repository>   (in the project: compile and run)');
  process.exit(2);
}
const REPO = resolve(repoArg);
const repoPkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const versionOf = (name) => repoPkg.dependencies?.[name] ?? repoPkg.devDependencies?.[name];

/** A `needs` entry's package name (`@scope/name@1` -> `@scope/name`). */
const packageName = (need) => need.replace(/(.)@.*$/, '$1');
/** The name of the package a bare import specifier names (`@scope/pkg/sub` -> `@scope/pkg`). */
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
/** A page's folder name: README.md -> README, docs/testing-api.md -> docs-testing-api. */
const slug = (page) => page.replace(/\.md$/, '').replace(/\//g, '-');

function readAll() {
  const blocks = [];
  const errors = [];
  for (const page of docPages(REPO)) {
    const parsed = parseBlocks(page, readFileSync(join(REPO, page), 'utf8'));
    blocks.push(...parsed.blocks);
    errors.push(...parsed.errors);
  }
  return { blocks, errors };
}

function fail(lines) {
  console.error(`doc blocks: FAILED\n${lines.join('\n')}`);
  process.exit(1);
}

const { blocks, errors } = readAll();
if (errors.length > 0) fail(errors);
// A check that saw nothing judged nothing.
if (blocks.length === 0) fail(['no TypeScript or JavaScript block found in README.md and docs/*.md']);

if (command === 'needs') {
  // One version a package: the one a block names, else the repository's, else the latest.
  const specs = new Map();
  const named = new Map();
  for (const need of ['typescript', '@types/node', ...blocks.flatMap((b) => b.marker.needs)]) {
    const name = packageName(need);
    if (name === need) {
      if (!specs.has(name)) specs.set(name, versionOf(name) ? `${name}@${versionOf(name)}` : name);
      continue;
    }
    if (named.has(name) && named.get(name) !== need) fail([`needs: ${named.get(name)} and ${need} both named: name one version`]);
    named.set(name, need);
  }
  for (const [name, spec] of named) specs.set(name, spec);
  console.log([...specs.values()].join('\n'));
  process.exit(0);
}

// --- check: in the project -------------------------------------------------------------------------
const PROJECT = process.cwd();
const projectRequire = createRequire(join(PROJECT, 'package.json'));
const ts = projectRequire('typescript');
const installed = realpathSync(dirname(projectRequire.resolve('mailyard/package.json')));
// The reader's package is the one npm installed, not a link back into this repository.
if (!relative(REPO, installed).startsWith('..')) fail([`mailyard resolves to ${installed}, inside the repository: install the packed tarball`]);
const installedVersion = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version;

const OUT = join(PROJECT, 'doc-blocks');
rmSync(OUT, { recursive: true, force: true });

/** A new reader's project: the options `tsc --init` writes (TypeScript 6), JavaScript checked too. */
function compilerOptions(types) {
  return {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ESNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noUncheckedSideEffectImports: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
    skipLibCheck: true,
    noEmit: true,
    allowJs: true,
    checkJs: true,
    types,
  };
}

// Declarations read once for every block's program (TypeScript's lib, @types/node, the packages').
const sourceCache = new Map();
function hostFor(options) {
  const host = ts.createCompilerHost(options, true);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, fresh) => {
    if (!fileName.includes('/node_modules/')) return read(fileName, version, onError, fresh);
    const key = `${fileName} ${typeof version === 'object' ? `${version.languageVersion} ${version.impliedNodeFormat}` : version}`;
    if (!sourceCache.has(key)) sourceCache.set(key, read(fileName, version, onError, fresh));
    return sourceCache.get(key);
  };
  return host;
}

/** The names mailyard/testing exports, for the types of a fragment's `given`. */
function mailyardTypeNames() {
  const probe = join(OUT, 'exports-probe.ts');
  mkdirSync(OUT, { recursive: true });
  writeFileSync(probe, "import * as m from 'mailyard/testing';\nexport type { m };\n");
  const options = compilerOptions(['node']);
  const program = ts.createProgram([probe], options, hostFor(options));
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe);
  const moduleSymbol = checker.getSymbolAtLocation(file.statements[0].moduleSpecifier);
  rmSync(probe);
  if (!moduleSymbol) fail(['cannot read the exports of mailyard/testing']);
  return new Set(checker.getExportsOfModule(moduleSymbol).map((s) => s.name));
}

const failures = [];
const where = (block, line) => `${block.page}:${line}`;

/** The block's own imports: mailyard's, Node's, its page's files, or packages it names in `needs`. */
function checkImports(block, pageFiles) {
  const { importedFiles } = ts.preProcessFile(block.code, true, true);
  for (const { fileName: spec } of importedFiles) {
    if (spec === 'mailyard' || spec.startsWith('mailyard/')) continue;
    if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
    if (spec.startsWith('.')) {
      if (!pageFiles.has(spec)) failures.push(`${where(block, block.fenceLine)}: imports '${spec}', which is no file of this page (file=, stub= or openapi=)`);
      continue;
    }
    if (spec.startsWith('/') || /^[a-z]+:/i.test(spec)) {
      failures.push(`${where(block, block.fenceLine)}: imports '${spec}': a reader imports packages by their names`);
      continue;
    }
    if (!block.marker.needs.map(packageName).includes(packageOf(spec))) {
      failures.push(`${where(block, block.fenceLine)}: imports '${spec}': name ${packageOf(spec)} in the marker's needs="..."`);
    }
  }
}

/** A relative module of the page as a block imports it: './x.js' for x.ts. */
const asImported = (name) =>
  `./${name
    .replace(/\.ts$/, '.js')
    .replace(/\.mts$/, '.mjs')
    .replace(/\.cts$/, '.cjs')}`;

let openapiTypes;
/**
 * openapi-typescript's types of the installed emulator's /openapi.json, made as docs/http-api.md says:
 * the document saved from a running emulator, then `npx openapi-typescript openapi.json -o api.d.ts`
 * (the repository's version of it).
 */
async function openapiDeclarations() {
  if (openapiTypes !== undefined) return openapiTypes;
  const { startMailyard } = await import(pathToFileURL(projectRequire.resolve('mailyard/testing')).href);
  const yard = await startMailyard({ ui: false });
  const dir = join(OUT, 'openapi');
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'openapi.json'), await (await fetch(`${yard.url}/openapi.json`)).text());
  } finally {
    await yard.stop();
  }
  const generator = `openapi-typescript@${versionOf('openapi-typescript') ?? 'latest'}`;
  const result = spawnSync('npx', ['--yes', generator, 'openapi.json', '-o', 'api.d.ts'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) fail([`npx ${generator} openapi.json -o api.d.ts failed:\n${result.stdout}${result.stderr}`]);
  openapiTypes = readFileSync(join(dir, 'api.d.ts'), 'utf8');
  return openapiTypes;
}

const compileStarted = Date.now();
const exportedTypes = mailyardTypeNames();
const byPage = new Map();
for (const block of blocks) byPage.set(block.page, [...(byPage.get(block.page) ?? []), block]);
const toRun = { vitest: [], 'node:test': [] };
let fragments = 0;

for (const [page, pageBlocks] of byPage) {
  const dir = join(OUT, slug(page), 'code');
  mkdirSync(dir, { recursive: true });
  // The files the page's blocks make, by the specifier a block imports them with.
  const pageFiles = new Set();
  for (const block of pageBlocks) {
    const runner = runnerOf(block.code);
    block.runs = block.marker.mode === 'complete' && runner !== undefined;
    if (block.runs && !['vitest', 'node:test'].includes(runner)) {
      failures.push(
        `${where(block, block.fenceLine)}: declares ${runner === 'unknown' ? 'tests of a runner it does not import' : `${runner} tests`}, which this check cannot run: mark it compile-only`,
      );
      block.runs = false;
    }
    if (block.runs && block.marker.stub) failures.push(`${where(block, block.markerLine)}: a block with a stub cannot run: mark it compile-only`);
    if (block.runs && runner === 'node:test' && !/\.m?js$|\.cjs$/.test(block.marker.file ?? LANGUAGES[block.lang])) {
      failures.push(`${where(block, block.fenceLine)}: node:test runs JavaScript on Node 20: write the test in JavaScript, or with vitest`);
      block.runs = false;
    }
    const ext = LANGUAGES[block.lang];
    block.name = block.marker.file ?? `L${block.fenceLine}${block.runs && runner === 'vitest' ? '.test' : ''}${ext}`;
    if (block.runs && runner === 'vitest' && !/\.(test|spec)\.[cm]?[jt]s$/.test(block.name)) {
      failures.push(`${where(block, block.markerLine)}: file="${block.name}": vitest runs files named *.test.* or *.spec.*`);
    }
    block.runner = runner;
    block.path = join(dir, block.name);
    pageFiles.add(asImported(block.name));
    if (block.marker.stub) pageFiles.add(block.marker.stub.module);
    if (block.marker.openapi) pageFiles.add(`./${block.marker.openapi.replace(/\.d\.ts$/, '.js')}`);
  }
  for (const block of pageBlocks) {
    checkImports(block, pageFiles);
    writeFileSync(block.path, `${block.code}\n`);
    if (block.marker.stub) {
      const target = resolve(dir, block.marker.stub.module.replace(/\.(m|c)?js$/, '.$1ts'));
      if (relative(join(OUT, slug(page)), target).startsWith('..')) {
        failures.push(`${where(block, block.markerLine)}: stub="${block.marker.stub.module}" leaves the page's folder`);
        continue;
      }
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, `${block.marker.stub.exports.map(({ name, type }) => `export declare const ${name}: ${type};`).join('\n')}\n`);
      block.stubPath = target;
    }
    if (block.marker.openapi) writeFileSync(join(dir, block.marker.openapi), await openapiDeclarations());
    if (block.marker.mode === 'fragment') {
      fragments++;
      const names = new Set(block.marker.given.flatMap(({ type }) => type.match(/\b[A-Z]\w*/g) ?? []).filter((n) => exportedTypes.has(n)));
      block.givenPath = join(dir, `${block.name.replace(/\.\w+$/, '')}.given.ts`);
      writeFileSync(
        block.givenPath,
        [
          `// What ${page}:${block.markerLine}'s marker gives the fragment.`,
          ...(names.size > 0 ? [`import type { ${[...names].join(', ')} } from 'mailyard/testing';`] : []),
          'declare global {',
          ...block.marker.given.map(({ name, type }) => `  const ${name}: ${type};`),
          '}',
          'export {};',
          '',
        ].join('\n'),
      );
    }
  }
  for (const block of pageBlocks) {
    const types = [
      'node',
      ...block.marker.needs
        .map(packageName)
        .filter((n) => n.startsWith('@types/'))
        .map((n) => n.slice('@types/'.length)),
    ];
    const options = compilerOptions(types);
    const roots = [block.path, block.givenPath, block.stubPath].filter(Boolean);
    const program = ts.createProgram(roots, options, hostFor(options));
    const mine = new Set(roots);
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...roots.flatMap((root) => {
        const file = program.getSourceFile(root);
        return file ? [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)] : [];
      }),
    ];
    for (const d of diagnostics) {
      if (d.file && !mine.has(d.file.fileName)) continue;
      const fileLine = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : undefined;
      const line = d.file?.fileName === block.path && fileLine !== undefined ? block.fenceLine + fileLine : (block.markerLine ?? block.fenceLine);
      failures.push(`${where(block, line)}: TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n  ')}`);
    }
    if (block.runs) toRun[block.runner].push(block);
  }
}

const compileSeconds = ((Date.now() - compileStarted) / 1000).toFixed(1);
const ran = [];
function runWith(runner, list, command, args) {
  if (list.length === 0) return;
  const started = Date.now();
  const { FORCE_COLOR: _, ...env } = process.env;
  const result = spawnSync(command, args, { cwd: PROJECT, encoding: 'utf8', env: { ...env, CI: 'true', NO_COLOR: '1' }, timeout: 300_000 });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`;
    // The blocks whose files the runner names as failed (all of them when it names none).
    const named = list.filter((b) => output.split('\n').some((line) => /FAIL|not ok|✖|×/.test(line) && line.includes(relative(PROJECT, b.path))));
    const failed = named.length > 0 ? named : list;
    failures.push(
      `${failed.map((b) => where(b, b.fenceLine)).join(', ')}: ${runner} failed (exit ${result.status ?? result.signal}) in ${seconds} s:\n${output}`,
    );
  }
  ran.push(`${list.length} with ${runner} (${seconds} s)`);
}
runWith('vitest', toRun.vitest, join(PROJECT, 'node_modules/.bin/vitest'), [
  'run',
  '--testTimeout=60000',
  '--hookTimeout=60000',
  ...toRun.vitest.map((b) => relative(PROJECT, b.path)),
]);
runWith('node:test', toRun['node:test'], process.execPath, ['--test', ...toRun['node:test'].map((b) => b.path)]);

const summary = `${blocks.length} blocks in ${byPage.size} pages (${blocks.length - fragments} complete, ${fragments} fragments), compiled with TypeScript ${ts.version} against mailyard ${installedVersion} (${installed}) in ${compileSeconds} s; run: ${ran.join(', ') || 'none'}`;
if (failures.length > 0) fail([...failures, summary]);
console.log(`doc blocks: ${summary}`);
if (existsSync(OUT) && process.env.DOC_BLOCKS_KEEP !== '1') rmSync(OUT, { recursive: true, force: true });
