import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/mailyard.js');
const BUILT = resolve(import.meta.dirname, '../../out/main/cli.js');

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string | null>;
}

/**
 * Starts the built `mailyard serve` as a child process and waits for its start-up lines. The SMTP
 * sink gets a free port unless the caller names one (tests run in parallel).
 */
export async function startServeProcess(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  if (!existsSync(BUILT)) throw new Error('the CLI is not built: run `npm run build` (npm test does) first');
  const smtpPort = args.includes('--smtp-port') || env.MAILYARD_SMTP_PORT !== undefined ? [] : ['--smtp-port', '0'];
  const child = spawn(process.execPath, [BIN, 'serve', ...args, ...smtpPort], { env: { ...process.env, MAILYARD_LOG_LEVEL: 'warn', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | string | null>((r) => child.on('close', (code, signal) => r(code ?? signal)));
  const deadline = Date.now() + 15_000;
  while (!/^Data: /m.test(stdout)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`mailyard serve did not start:\n${stdout}\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const url = /^HTTP:\s+(\S+)/m.exec(stdout)![1]!;
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited };
}
