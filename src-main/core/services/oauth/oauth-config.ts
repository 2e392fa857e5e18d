import type { OAuthConfigResponse, OAuthLoginBody } from '../../../../src-shared/schemas/mailers';
import type { MailerRow } from '../../store/mailers.repo';

/** The provider name of the emulator's own offline authorization server (`provider`, `config_type`). */
export const OFFLINE_PROVIDER = 'mailyard';

/**
 * The offline provider's mailbox when a token names none (an exchanged token without a readable
 * `id_token`): the address its SMTP mailer is made for.
 */
export const OFFLINE_DEFAULT_ADDRESS = 'user@oauth.mailyard.test';

/**
 * The offline provider's SMTP server, as the mailers it makes name it. Under `.invalid` (RFC 6761: it
 * never resolves): there is no such server, and a send through one of its mailers is captured like
 * any other send, never relayed (sender-policy.ts).
 */
export const OFFLINE_SMTP = { host: 'smtp.mailyard.invalid', port: 587, secure: 'None' } as const;

/** oauthLogin's options, kept with the request (oauth_requests.options) and then on the mailer's token meta. */
export interface OAuthOptions {
  client_state: string | null;
  type: OAuthLoginBody['type'] | null;
  include_sent: boolean;
  include_spam: boolean;
  include_trash: boolean;
  strict_replies: boolean;
  webhook: { url: string; method: 'POST'; headers: Record<string, string> } | null;
}

export function optionsOf(body: OAuthLoginBody): OAuthOptions {
  return {
    client_state: body.state ?? null,
    type: body.type ?? null,
    include_sent: body.include_sent ?? false,
    include_spam: body.include_spam ?? false,
    include_trash: body.include_trash ?? false,
    strict_replies: body.strict_replies ?? false,
    webhook: body.webhook ? { url: body.webhook.url, method: 'POST', headers: body.webhook.headers ?? {} } : null,
  };
}

export const parseOptions = (json: string | null): Partial<OAuthOptions> => (json === null ? {} : (JSON.parse(json) as Partial<OAuthOptions>));

/**
 * A mailer as rest-api/get-o-auth-configuration shows it: flat, `active` its OAuth switch, the IMAP
 * webhook as `{event: "BASIC_IMAP", webhook_url, method, headers}` (null for SMTP without one), `config`
 * its connection without secrets; the include_* and strict_replies of its last OAuth login.
 */
export function toOAuthConfig(row: MailerRow): OAuthConfigResponse {
  const meta = parseOptions(row.oauth_meta);
  const webhook =
    row.webhook === null
      ? null
      : (JSON.parse(row.webhook) as { url: string; method: NonNullable<OAuthConfigResponse['webhook']>['method']; headers?: Record<string, string> });
  return {
    active: row.oauth_active === 1,
    config: { host: row.host, port: row.port, username: row.username, secure: row.secure, type: row.config_type },
    config_type: OFFLINE_PROVIDER,
    connection_type: row.connection_type,
    email: row.email,
    include_sent: meta.include_sent ?? false,
    include_spam: meta.include_spam ?? false,
    include_trash: meta.include_trash ?? false,
    mailer_id: row.id,
    name: row.name,
    provider: OFFLINE_PROVIDER,
    strict_replies: meta.strict_replies ?? false,
    webhook: webhook === null ? null : { event: 'BASIC_IMAP', headers: webhook.headers ?? {}, method: webhook.method, webhook_url: webhook.url },
  };
}
