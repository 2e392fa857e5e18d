import { lazyRequire } from '../../lazy-load';

/** HTML entities (he), loaded with the first send that needs them, not with the emulator. */
export const he = lazyRequire<typeof import('he')>('he');
