/**
 * The package's main entry (`import ... from 'mailyard'`): the emulator as a library, for scripts
 * and dev servers that run it in-process, and everything of `mailyard/testing`.
 */

import { createEmulator as createCore } from '../core';
import type { EmulatorConfigInput } from '../core/config';
import { builtUiDir } from './built-ui';

export * from './index';

/** Every option of `mailyard serve`, camelCase (`httpPort`, `dataDir`, `memory`, `apiKey`, `strictSenders`, ...). */
export interface EmulatorOptions extends Omit<EmulatorConfigInput, 'uiDir' | 'httpPort' | 'smtpPort'> {
  /** HTTP port (default 4400; 0 picks a free one). */
  httpPort?: number | undefined;
  /** SMTP port (default 2525; 0 picks a free one). */
  smtpPort?: number | undefined;
  /** Serve the web UI at the HTTP URL (default: true). */
  ui?: boolean | undefined;
}

/** A running emulator. */
export interface Emulator {
  readonly version: string;
  readonly urls: { http: string; smtp: string };
  readonly ports: { http: number; smtp: number };
  /** The default account's API key. */
  readonly apiKey: string;
  /** `null` with `memory: true`. */
  readonly dataDir: string | null;
  /** Stops accepting work, lets work in flight finish (bounded), closes the listeners and the store. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts the emulator in this process, as `mailyard serve` does: the same defaults (ports 4400 and
 * 2525, the platform's data folder, logs at `info` on stderr) unless the options say otherwise.
 */
export async function createEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const { ui = true, ...config } = options;
  const handle = await createCore({ ...config, uiDir: ui ? builtUiDir(import.meta.dirname) : undefined });
  return {
    version: handle.version,
    urls: { http: handle.urls.http, smtp: handle.urls.smtp! },
    ports: { http: handle.ports.http, smtp: handle.ports.smtp! },
    apiKey: handle.defaultAccount.apiKey,
    dataDir: handle.dataDir,
    close: () => handle.close(),
  };
}
