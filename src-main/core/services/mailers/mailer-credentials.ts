import type { MailerRow } from '../../store/mailers.repo';
import type { SecretBox } from './secret-box';

/** How to log in: a password, an OAuth access token (XOAUTH2), or no login at all. */
export type MailerCredentials = { user: string; pass?: string; accessToken?: string } | null;

/** The token stored on a mailer by oauthLogin. */
export interface StoredToken {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  scope: string | null;
  expires_at: string | null;
  app_id: string;
}

/**
 * How the mailer logs in now: its OAuth token (XOAUTH2) when OAuth is on, else its password, else no
 * login, opened with `secrets`. Throws a plain Error (a connection failure, in words) when a secret
 * cannot be read.
 */
export function credentialsOf(row: MailerRow, secrets: SecretBox): MailerCredentials {
  if (row.connection_type === 'oauth' && row.oauth_active !== 1) {
    throw new Error('OAuth is off for this mailer: log in with oauthLogin or turn it on with setOAuthActive');
  }
  if (row.oauth_active === 1) {
    if (row.oauth_token_enc === null) throw new Error('no OAuth token is stored: log in with oauthLogin first');
    const json = secrets.open(row.oauth_token_enc);
    if (json === undefined) throw new Error('the stored OAuth token cannot be decrypted (the secret key changed); log in again');
    return { user: row.username, accessToken: (JSON.parse(json) as StoredToken).access_token };
  }
  if (row.password_enc === null) return null;
  const pass = secrets.open(row.password_enc);
  if (pass === undefined) throw new Error('the stored password cannot be decrypted (the secret key changed); set it again');
  return { user: row.username, pass };
}
