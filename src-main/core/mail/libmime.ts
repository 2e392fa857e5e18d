import { lazyRequire } from '../lazy-load';

/** libmime (MIME words and header values), loaded with the first message read, not with the emulator. */
export const libmime = lazyRequire<typeof import('libmime')>('libmime');
