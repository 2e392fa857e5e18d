import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the source, read with the TypeScript parser (no type checking, so it takes
 * well under a second): every static `import`, `export ... from`, `import x = require(...)`,
 * `import('...')` with a string literal (a call or a type like `typeof import('./x')`) and
 * `require('...')` call. Specifiers are resolved the way the compiler resolves them
 * (ts.resolveModuleName with tsconfig.base.json's options, the ones every layer's project shares:
 * .ts/.tsx, index files, `paths` aliases).
 */

export interface ImportEdge {
  /** The importing file, relative to the root, with forward slashes. */
  from: string;
  line: number;
  specifier: string;
  /** The imported file (relative, forward slashes) when it is a file of the checkout outside node_modules. */
  file?: string;
  /** `node:fs`, `fs`, `fs/promises`: a Node built-in (with or without the `node:` prefix). */
  builtin: boolean;
  /** Relative specifier that names no file: the graph would silently miss an edge. */
  unresolved: boolean;
  /** `import type`, `export type ... from`, all specifiers `type`, or an `import('...')` type. */
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const BUILTINS = new Set(builtinModules);

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier);
}

export function sourceFiles(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of dirs) walk(join(root, dir));
  return out.sort();
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.base.json');
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath).options;
}

interface RawImport {
  specifier: string;
  pos: number;
  typeOnly: boolean;
}

function namedBindingsAllTypes(clause: ts.ImportClause): boolean {
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function rawImports(source: ts.SourceFile): RawImport[] {
  const found: RawImport[] = [];
  const add = (literal: ts.Expression | undefined, typeOnly: boolean) => {
    if (literal && ts.isStringLiteralLike(literal)) found.push({ specifier: literal.text, pos: literal.getStart(source), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      add(node.moduleSpecifier, !!clause && (clause.isTypeOnly || namedBindingsAllTypes(clause)));
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const allTypes = !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || allTypes);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg)) add(arg.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const callee = node.expression;
      const isDynamicImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      if (isDynamicImport || isRequire) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const posix = (path: string) => path.split(sep).join('/');

export function readImportGraph(root: string, dirs: string[]): { files: string[]; edges: ImportEdge[] } {
  const options = compilerOptions(root);
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const files = sourceFiles(root, dirs);
  const edges: ImportEdge[] = [];
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    const kind = path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
    for (const raw of rawImports(source)) {
      const edge: ImportEdge = {
        from: posix(relative(root, path)),
        line: source.getLineAndCharacterOfPosition(raw.pos).line + 1,
        specifier: raw.specifier,
        builtin: isBuiltin(raw.specifier),
        unresolved: false,
        typeOnly: raw.typeOnly,
      };
      if (!edge.builtin) {
        const resolved = ts.resolveModuleName(raw.specifier, path, options, ts.sys, cache).resolvedModule;
        const target = resolved?.resolvedFileName;
        if (target && !resolved.isExternalLibraryImport && !target.includes('/node_modules/')) {
          const rel = posix(relative(root, target));
          if (!rel.startsWith('../')) edge.file = rel;
        }
        // A stylesheet, an image or JSON the compiler does not resolve: still a file of the checkout.
        const asset = !target && raw.specifier.startsWith('.') ? resolve(dirname(path), raw.specifier) : undefined;
        if (asset && existsSync(asset) && statSync(asset).isFile()) edge.file = posix(relative(root, asset));
        edge.unresolved = raw.specifier.startsWith('.') && !target && !edge.file;
      }
      edges.push(edge);
    }
  }
  return { files: files.map((f) => posix(relative(root, f))), edges };
}

/** A glob over forward-slash paths: `**` any depth of folders (or none), `*` and `?` within one name. */
export function globMatcher(glob: string): (path: string) => boolean {
  let pattern = '';
  for (let i = 0; i < glob.length; ) {
    if (glob.startsWith('**/', i)) {
      pattern += '(?:.*/)?';
      i += 3;
    } else if (glob.startsWith('**', i)) {
      pattern += '.*';
      i += 2;
    } else {
      const c = glob[i]!;
      pattern += c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  const regex = new RegExp(`^${pattern}$`);
  return (path) => regex.test(path);
}
