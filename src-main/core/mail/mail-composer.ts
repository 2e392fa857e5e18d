import { lazyImport } from '../lazy-load';

/** nodemailer's MIME composer, loaded with the first message composed. */
export const loadMailComposer = lazyImport(async () => (await import('nodemailer/lib/mail-composer')).default);
