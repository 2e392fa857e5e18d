import type MailComposerClass from 'nodemailer/lib/mail-composer';
import { lazyRequire } from '../lazy-load';

/**
 * nodemailer's MIME composer, loaded with the first message composed. Synchronous: a send's message is
 * also composed on its first read, inside the store's own synchronous read.
 */
export const mailComposer = lazyRequire<typeof MailComposerClass>('nodemailer/lib/mail-composer');
