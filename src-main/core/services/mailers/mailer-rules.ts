import type { ConfigType } from '../../../../src-shared/schemas/mailers';
import { appError } from '../../error-catalogue';
import { MAILER_LABEL } from './mailer-records';

const invalid = (path: string, problem: string) => appError('invalidField', { path, problem });

/** Rules beyond the schema, on the configuration as it will be stored (a 400 naming the field). */
export function checkMailerRules(type: ConfigType, c: { connection_type: string; username: string; hasPassword: boolean; webhook: unknown }): void {
  if (c.webhook !== null && c.webhook !== undefined && type !== 'imap') throw invalid('webhook', 'is only for IMAP configurations');
  if (c.connection_type === 'oauth') {
    if (c.username === '') throw invalid('config.username', 'is required with connection_type oauth (the XOAUTH2 login names the user)');
    return;
  }
  if (type === 'imap' && c.username === '') throw invalid('config.username', 'is required for an IMAP configuration');
  if (type === 'imap' && !c.hasPassword) throw invalid('config.password', 'is required for an IMAP configuration with connection_type basic');
  if (c.hasPassword && c.username === '') throw invalid('config.username', 'is required with a password');
}

/** A body's `config_type`, when given, must be the path's. */
export function checkConfigType(pathType: ConfigType, given: ConfigType | undefined): void {
  if (given !== undefined && given !== pathType) throw invalid('config_type', `must be ${pathType} for an ${MAILER_LABEL[pathType]} configuration`);
}
