#!/usr/bin/env node
/**
 * Shows where the compiler asks what a new email event kind does: in a scratch copy of the tree it adds
 * `new_kind` with its payload schema to EMAIL_EVENT_PAYLOADS (step 1 of docs/architecture.md's recipe:
 * the kinds are that table's keys), type-checks, and prints each error's file:line. The tree itself is
 * never touched. Fails when the step type-checks clean (a kind would then slip in unnoticed).
 *
 *   node test/new-event-kind.mjs
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const KIND = 'new_kind';

/** Each step: the file it edits and how (a step whose edit finds nothing stops the script). */
const STEPS = [
  {
    name: `${KIND} with its payload schema in EMAIL_EVENT_PAYLOADS (the kinds are its keys)`,
    file: 'src-shared/schemas/events.ts',
    edit: (s) =>
      s.replace(
        /(\n\} as const satisfies Record<string, z\.ZodObject>;)/,
        `\n  ${KIND}: z.strictObject({ event: z.literal('${KIND}'), ...common, recipient }),$1`,
      ),
  },
];

/** A copy of the tracked files (the examples and images left out), sharing node_modules. */
function scratchCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'mailyard-new-kind-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  for (const file of files) {
    if (!file || file.startsWith('examples/') || /\.(png|ico|icns)$/.test(file)) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** `npm run typecheck` in `dir`: each error as file:line (and its code). */
function typeErrors(dir) {
  const run = spawnSync('npm', ['run', '--silent', 'typecheck'], { cwd: dir, encoding: 'utf8' });
  const lines = `${run.stdout}\n${run.stderr}`.split('\n');
  return lines.flatMap((line) => {
    const m = /^(\S+)\((\d+),\d+\): error (TS\d+)/.exec(line.trim());
    return m ? [{ at: `${m[1]}:${m[2]}`, code: m[3] }] : [];
  });
}

const dir = scratchCopy();
let failed = false;
try {
  for (const [i, step] of STEPS.entries()) {
    const path = join(dir, step.file);
    const before = readFileSync(path, 'utf8');
    const after = step.edit(before);
    if (after === before) throw new Error(`step ${i + 1}: found nothing to edit in ${step.file}`);
    writeFileSync(path, after);
    const errors = typeErrors(dir);
    const places = [...new Set(errors.map((e) => e.at.replace(/:\d+$/, '')))];
    console.log(`\nStep ${i + 1}: ${step.name}: ${errors.length} errors in ${places.length} files`);
    for (const e of errors) console.log(`  ${e.at}  ${e.code}`);
    if (i === 0 && errors.length === 0) failed = true;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) {
  console.error('\nA new kind type-checked clean: the tables keyed by EmailEventKind no longer catch it.');
  process.exit(1);
}
