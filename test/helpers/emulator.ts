import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type EmulatorHandle, type EmulatorSeams } from '../../src-main/core';
import type { EmulatorConfigInput } from '../../src-main/core/config';
import { ControlClient, ServiceClient } from '../../src-shared/clients';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';

export interface TestEmulator {
  handle: EmulatorHandle;
  url: string;
  apiKey: string;
  dataDir: string;
  service: ServiceClient;
  control: ControlClient;
  /** A raw HTTP request to the emulator; the body is sent as given (a string) or as JSON. */
  request(method: string, path: string, options?: RequestOptions): Promise<RawResponse>;
  /** Registers the account's EMAIL_EVENT webhook at `url` (POST) with every event kind enabled. */
  registerEmailWebhook(url: string): Promise<unknown>;
  /** Stops the emulator; the data directory is kept until `cleanup`. */
  stop(): Promise<void>;
  /** Stops the emulator and removes its data directory. */
  cleanup(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Authenticate with this key (default: the default account's); `null` sends no Authorization. */
  apiKey?: string | null;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * One HTTP request with node:http, which sends headers exactly as given (fetch drops a custom Host
 * header, and the control API's Host check needs testing).
 */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  const all = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Starts the real emulator in-process: port 0, a temp data directory, silent logs. */
export async function startEmulator(config: EmulatorConfigInput = {}, seams: EmulatorSeams = {}, reuseDataDir?: string): Promise<TestEmulator> {
  const dataDir = reuseDataDir ?? (await mkdtemp(join(tmpdir(), 'mailyard-test-')));
  const handle = await createEmulator({ httpPort: 0, smtpPort: 0, logLevel: 'silent', dataDir, ...config }, seams);
  const url = handle.urls.http;
  const apiKey = handle.defaultAccount.apiKey;
  const stop = () => handle.close();
  const service = new ServiceClient({ baseUrl: url, apiKey });
  return {
    handle,
    url,
    apiKey,
    dataDir,
    service,
    control: new ControlClient({ baseUrl: url }),
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.apiKey === undefined ? apiKey : options.apiKey;
      if (key !== null && path.startsWith('/v1')) headers.authorization ??= `Bearer ${key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      return rawRequest(url, method, path, headers, body);
    },
    registerEmailWebhook(webhookUrl) {
      const events = Object.fromEntries(EMAIL_EVENT_KINDS.map((k) => [k, true]));
      return service.registerWebhook({ webhook_url: webhookUrl, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events } });
    },
    stop,
    async cleanup() {
      await stop();
      if (!reuseDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
