import { ControlClient } from '../../src-shared/clients';

/** The UI is served by the emulator itself, so every request is same-origin. */
export const control = new ControlClient({ baseUrl: '' });
