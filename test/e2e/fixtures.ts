import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { test as base } from '@playwright/test';

export interface Served {
  url: string;
  apiKey: string;
}

const BIN = resolve(import.meta.dirname, '../../bin/mailyard.js');

/** Starts the built `mailyard serve` (port 0, in memory) and waits for its start-up lines. */
async function startServe(apiKey: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http-port', '0', '--smtp-port', '0', '--memory', '--api-key', apiKey, '--log-level', 'warn']);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  const deadline = Date.now() + 15_000;
  while (!/^Data: /m.test(stdout)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`mailyard serve did not start:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const url = /^HTTP:\s+(\S+)/m.exec(stdout)![1]!;
  return { child, url };
}

export const test = base.extend<{ served: Served }>({
  served: async ({}, use) => {
    const apiKey = 'e2e-key-0123456789';
    const { child, url } = await startServe(apiKey);
    await use({ url, apiKey });
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('close', r)));
  },
});

export { expect } from '@playwright/test';
