/**
 * `connectMailyard(url)`: the same helpers on an emulator that runs already (`mailyard serve` in a CI
 * job, a jest `globalSetup` that called startMailyard). Nothing is started or stopped here.
 */
import { ApiError, ControlClient } from '../../src-shared/clients';
import { buildHelpers } from './helpers';
import { MailyardStartError } from './options';
import type { MailyardHelpers } from './types';

/** Options; one given as `undefined` is not given (`{ controlKey: process.env.MAILYARD_CONTROL_KEY }`). */
export interface ConnectMailyardOptions {
  /** The API key the code under test uses; the default account's when absent. */
  apiKey?: string | undefined;
  /** The control key, when the emulator needs one (`--control-key`, or beyond loopback). */
  controlKey?: string | undefined;
}

export interface ConnectedMailyard extends MailyardHelpers {
  readonly version: string;
  /** The account `apiKey` belongs to. */
  readonly accountId: string;
  readonly urls: { http: string; smtp: string | null };
}

/** Attaches to a running emulator at `url` (its HTTP URL, e.g. http://127.0.0.1:4400). */
export async function connectMailyard(url: string, options: ConnectMailyardOptions = {}): Promise<ConnectedMailyard> {
  let base: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    base = parsed.origin;
  } catch {
    throw new MailyardStartError(`connectMailyard: url must be the emulator's HTTP URL such as http://127.0.0.1:4400, got ${JSON.stringify(url)}`, 'url');
  }
  const controlKey = options.controlKey ?? null;
  const control = new ControlClient({ baseUrl: base, headers: controlKey === null ? undefined : { authorization: `Bearer ${controlKey}` } });
  const { health, accounts } = await reach(control, base);
  const account = options.apiKey === undefined ? (accounts.find((a) => a.is_default) ?? accounts[0]) : accounts.find((a) => a.api_key === options.apiKey);
  if (!account) {
    throw new MailyardStartError(`connectMailyard: no account of the emulator at ${base} has the given apiKey (start it with --api-key)`, 'apiKey');
  }
  const helpers = buildHelpers({ url: base, apiKey: account.api_key, controlKey });
  return { ...helpers, version: health.version, accountId: account.id, urls: { http: base, smtp: health.urls.smtp ?? null } };
}

/** The emulator's health and accounts; throws MailyardStartError saying why none answered. */
async function reach(control: ControlClient, base: string) {
  try {
    return { health: (await control.getHealth()).data, accounts: (await control.listAccounts()).data };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new MailyardStartError(
        `connectMailyard: ${base} wants a control key: pass { controlKey } (the one \`mailyard serve\` printed or was given)`,
        'controlKey',
        { cause: err },
      );
    }
    const why = err instanceof ApiError ? `it answered ${err.status}` : (err as Error).message;
    throw new MailyardStartError(`connectMailyard: no Mailyard emulator answered at ${base} (${why})`, 'url', { cause: err });
  }
}
