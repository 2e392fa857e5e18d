/**
 * The TypeScript and JavaScript code blocks of README.md and docs/*.md, with their doc-check markers
 * (the scheme is described in check.mjs). Pure: reads text, answers blocks and the problems of their
 * markers; check.mjs compiles and runs them, test/unit/doc-blocks.test.ts holds the markers valid.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The info strings of the fences checked, and the extension each block's file gets. */
export const LANGUAGES = { ts: '.ts', typescript: '.ts', js: '.js', javascript: '.js', mjs: '.mjs', cjs: '.cjs' };

const MODES = ['fragment', 'compile-only'];
const KEYS = ['needs', 'given', 'file', 'stub', 'openapi'];
const MARKER = /^\s*<!--\s*doc-check:(.*?)-->\s*$/;
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(ts|mts|cts|js|mjs|cjs)$/;

/** The pages whose blocks are checked, as paths from the repository's root. */
export function docPages(root) {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** Splits `text` on `separator` outside brackets, quotes and template literals. */
export function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if ('([{<'.includes(c)) depth++;
    else if (')]}>'.includes(c) && !(c === '>' && text[i - 1] === '=')) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** `name: Type; name2: Type2` as [{name, type}]. */
export function parseDeclarations(text) {
  return splitTopLevel(text, ';').map((decl) => {
    const [name = '', ...rest] = splitTopLevel(decl, ':');
    return { name: name.trim(), type: rest.join(': ').trim() };
  });
}

/** A marker's text (`fragment given="..." needs="..."`) as {mode, attributes}, or the problem with it. */
export function parseMarker(text) {
  const marker = { mode: 'complete', needs: [], given: [], file: undefined, stub: undefined, openapi: undefined };
  const seen = new Set();
  const token = /\s*([a-z-]+)(?:="([^"]*)")?/gy;
  let rest = text.trim();
  while (rest.length > 0) {
    token.lastIndex = 0;
    const m = token.exec(rest);
    if (!m || m[0].trim() === '') return { error: `cannot read the marker at "${rest}" (words and key="value" pairs)` };
    rest = rest.slice(m[0].length).trimStart();
    const [, word, value] = m;
    if (value === undefined) {
      if (!MODES.includes(word)) return { error: `unknown word "${word}" (known: ${MODES.join(', ')}; keys: ${KEYS.join(', ')})` };
      if (marker.mode !== 'complete') return { error: `"${word}" and "${marker.mode}" together: a block is one of them` };
      marker.mode = word;
      continue;
    }
    if (!KEYS.includes(word)) return { error: `unknown key "${word}" (known: ${KEYS.join(', ')})` };
    if (seen.has(word)) return { error: `"${word}" given twice` };
    seen.add(word);
    if (word === 'needs') marker.needs = value.split(/\s+/).filter(Boolean);
    else if (word === 'given') marker.given = parseDeclarations(value);
    else if (word === 'stub') {
      const space = value.search(/\s/);
      if (space < 0) return { error: 'stub="<module> <name: Type; ...>" names the module and what it exports' };
      marker.stub = { module: value.slice(0, space), exports: parseDeclarations(value.slice(space + 1)) };
    } else marker[word] = value;
  }
  if (marker.given.length > 0 && marker.mode !== 'fragment') return { error: 'given="..." is for a fragment: say "fragment" too' };
  if (marker.mode === 'fragment' && marker.given.length === 0) return { error: 'a fragment names what it uses without defining it: given="name: Type; ..."' };
  for (const { name, type } of [...marker.given, ...(marker.stub?.exports ?? [])]) {
    if (!/^[A-Za-z_$][\w$]*$/.test(name) || !type) return { error: `"${name}: ${type}" is not a declaration (name: Type)` };
  }
  if (marker.file !== undefined && !FILE_NAME.test(marker.file))
    return { error: `file="${marker.file}" must be a file name ending .ts, .mts, .cts, .js, .mjs or .cjs` };
  if (marker.openapi !== undefined && !/^[\w-]+\.d\.ts$/.test(marker.openapi))
    return { error: `openapi="${marker.openapi}" must be a declaration file's name (api.d.ts)` };
  if (marker.stub && !/^\.\.?\//.test(marker.stub.module))
    return { error: `stub="${marker.stub.module} ..." must be a relative module (your own code, as the block imports it)` };
  for (const need of marker.needs) {
    if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^\s@]+)?$/.test(need)) return { error: `needs="${need}" is not a package name (with an optional @version)` };
  }
  return { marker };
}

/**
 * The checked code blocks of one page and the problems of its markers: a marker must stand on the line
 * right before the opening fence of a TypeScript or JavaScript block.
 */
export function parseBlocks(page, text) {
  const lines = text.split('\n');
  const blocks = [];
  const errors = [];
  let fence;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      const close = /^(\s*)(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[2][0] === fence.char && close[2].length >= fence.length) {
        if (fence.block) blocks.push({ ...fence.block, code: fence.code.join('\n') });
        fence = undefined;
      } else {
        fence.code.push(line.startsWith(fence.indent) ? line.slice(fence.indent.length) : line.trimStart());
      }
      continue;
    }
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    const markerText = MARKER.exec(line)?.[1];
    if (markerText !== undefined) {
      const next = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i + 1] ?? '');
      if (!next || !(next[3] in LANGUAGES)) errors.push(`${page}:${i + 1}: a doc-check marker must be on the line right before a \`\`\`ts or \`\`\`js block`);
      continue;
    }
    if (!open) continue;
    const [, indent, marks, lang] = open;
    fence = { char: marks[0], length: marks.length, indent, code: [] };
    if (!(lang in LANGUAGES)) continue;
    const markerLine = MARKER.exec(lines[i - 1] ?? '')?.[1];
    const parsed = markerLine === undefined ? { marker: parseMarker('').marker } : parseMarker(markerLine);
    if (parsed.error) {
      errors.push(`${page}:${i}: doc-check marker: ${parsed.error}`);
      continue;
    }
    // Line numbers are 1-based: the fence is line i + 1, the code starts on the next.
    fence.block = { page, lang, fenceLine: i + 1, markerLine: markerLine === undefined ? undefined : i, marker: parsed.marker };
  }
  if (fence) errors.push(`${page}: a code fence is never closed`);
  const names = new Map();
  for (const block of blocks) {
    const name = block.marker.file;
    if (name === undefined) continue;
    if (names.has(name)) errors.push(`${page}:${block.fenceLine}: file="${name}" is also the block at line ${names.get(name)}`);
    names.set(name, block.fenceLine);
  }
  return { blocks, errors };
}

/** The test runner a block's tests need, from its imports, or undefined when it declares no tests. */
export function runnerOf(code) {
  const declaresTests = /^\s*(test|it|describe)(\.\w+)*\s*\(/m.test(code);
  if (!declaresTests) return undefined;
  const imports = [...code.matchAll(/(?:\bfrom\s*|\brequire\s*\(\s*|^\s*import\s*)['"]([^'"]+)['"]/gm)].map((m) => m[1]);
  if (imports.includes('vitest')) return 'vitest';
  if (imports.includes('node:test')) return 'node:test';
  if (imports.includes('@jest/globals')) return 'jest';
  if (imports.includes('@playwright/test')) return 'playwright';
  return 'unknown';
}
