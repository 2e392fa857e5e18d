import { ApiError, ControlClient, ServiceClient } from '../../src-shared/clients';

/** Announced on `window` when the control API asks for the control key (features/login shows the login again). */
export const CONTROL_KEY_NEEDED = 'mailyard:control-key-needed';

/** fetch, announcing a 401 (the login cookie no longer holds: a restart with a new control key). */
const controlFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status === 401) window.dispatchEvent(new Event(CONTROL_KEY_NEEDED));
  return res;
};

/** The UI is served by the emulator itself, so every request is same-origin (the login's cookie goes with it). */
export const control = new ControlClient({ baseUrl: '', fetch: controlFetch });

/**
 * The service API (`/v1`) as one account: the same requests a user's code makes, with its API key.
 * `onIgnored` hears what an answer says it ignored (`X-Mailyard-Ignored`), `onWarning` what the real
 * service would have refused (`X-Mailyard-Warning`).
 */
export function serviceAs(apiKey: string, onIgnored?: (paths: string[]) => void, onWarning?: (warnings: string[]) => void): ServiceClient {
  return new ServiceClient({ baseUrl: '', apiKey, onIgnored, onWarning });
}

/** A failure in words: the API's own message when it answered, else why it could not be reached. */
export function describeError(err: unknown): string {
  return err instanceof ApiError ? err.body.error : `Cannot reach the emulator: ${(err as Error).message}`;
}

/** The API's field errors by path (`webhook_url`, `webhook_options.events`, ...), to show beside each field. */
export function fieldErrors(err: unknown): Array<{ path: string; message: string }> {
  return err instanceof ApiError ? err.fieldErrors : [];
}
