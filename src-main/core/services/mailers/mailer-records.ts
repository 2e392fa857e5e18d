import type { ConfigType, ImapMessageSummary, MailerRecord } from '../../../../src-shared/schemas/mailers';
import { appError, type ErrorName } from '../../error-catalogue';
import type { ImapMessageListRow, MailerRow } from '../../store/mailers.repo';
import { smtpCredentialsWouldRefuse, warningText } from '../../would-refuse';
import type { StoredToken } from './mailer-credentials';

/** A configuration type as the messages name it. */
export const MAILER_LABEL: Record<ConfigType, string> = { smtp: 'SMTP', imap: 'IMAP' };

const CONFIG_NOT_FOUND = { smtp: 'smtpConfigNotFound', imap: 'imapConfigNotFound' } as const satisfies Record<ConfigType, ErrorName>;

export const mailerNotFound = (type?: ConfigType) => appError(type ? CONFIG_NOT_FOUND[type] : 'mailerNotFound');

/** An IMAP configuration's webhook as stored (`mailers.webhook`, JSON). */
export interface MailerWebhook {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** A mailer as the API answers it: its settings and status, never its password or tokens. */
export function toMailerRecord(row: MailerRow): MailerRecord {
  const webhook = row.webhook === null ? null : (JSON.parse(row.webhook) as MailerWebhook);
  const meta = row.oauth_meta === null ? null : (JSON.parse(row.oauth_meta) as Omit<StoredToken, 'access_token' | 'refresh_token'>);
  return {
    mailer_id: row.id,
    name: row.name,
    email: row.email,
    config_type: row.config_type,
    connection_type: row.connection_type,
    config: {
      host: row.host,
      port: row.port,
      username: row.username,
      secure: row.secure as MailerRecord['config']['secure'],
      has_password: row.password_enc !== null,
    },
    webhook: webhook as MailerRecord['webhook'],
    oauth_active: row.oauth_active === 1,
    oauth:
      row.connection_type === 'oauth' || row.oauth_token_enc !== null
        ? {
            has_token: row.oauth_token_enc !== null,
            app_id: meta?.app_id ?? null,
            token_type: meta?.token_type ?? null,
            scope: meta?.scope ?? null,
            expires_at: meta?.expires_at ?? null,
          }
        : null,
    status: row.status as MailerRecord['status'],
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * What the real service would refuse in a configuration as it is stored (docs/warnings.md), in
 * X-Mailyard-Warning's words: read from the row, so an update that fixes it clears it.
 */
export function mailerWarnings(row: MailerRow): string[] {
  if (row.config_type !== 'smtp') return [];
  return smtpCredentialsWouldRefuse({ connection_type: row.connection_type, username: row.username !== '', password: row.password_enc !== null }).map(
    warningText,
  );
}

/** A message taken from an inbox as the control API shows it. */
export function toImapMessageSummary(row: ImapMessageListRow): ImapMessageSummary {
  return {
    ref_id: row.ref_id,
    mailer_id: row.mailer_id,
    uidvalidity: row.uidvalidity,
    uid: row.uid,
    message_id: row.message_id,
    from_email: row.from_email,
    subject: row.subject,
    size: row.size,
    bounce_ref_id: row.bounce_ref_id,
    delivery_id: row.delivery_id,
    problem: row.problem,
    created_at: row.created_at,
  };
}
