import { test as base } from '@playwright/test';
import { startServeProcess } from '../helpers/serve-process';

export interface Served {
  url: string;
  apiKey: string;
}

export const test = base.extend<{ served: Served }>({
  // The built `mailyard serve` on a free port, in memory, for one test.
  served: async ({}, use) => {
    const apiKey = 'e2e-key-0123456789';
    const serve = await startServeProcess(['--http-port', '0', '--smtp-port', '0', '--memory', '--api-key', apiKey]);
    await use({ url: serve.url, apiKey });
    serve.child.kill('SIGTERM');
    await serve.exited;
  },
});

export { expect } from '@playwright/test';
