import { ApiError, ControlClient, ServiceClient } from '../../src-shared/clients';

/** The UI is served by the emulator itself, so every request is same-origin. */
export const control = new ControlClient({ baseUrl: '' });

/** The service API (`/v1`) as one account: the same requests a user's code makes, with its API key. */
export function serviceAs(apiKey: string): ServiceClient {
  return new ServiceClient({ baseUrl: '', apiKey });
}

/** A failure in words: the API's own message when it answered, else why it could not be reached. */
export function describeError(err: unknown): string {
  return err instanceof ApiError ? err.body.error : `Cannot reach the emulator: ${(err as Error).message}`;
}

/** The API's field errors by path (`webhook_url`, `webhook_options.events`, ...), to show beside each field. */
export function fieldErrors(err: unknown): Array<{ path: string; message: string }> {
  return err instanceof ApiError ? err.fieldErrors : [];
}
