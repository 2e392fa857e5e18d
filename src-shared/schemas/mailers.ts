import { z } from 'zod';
import { pageSizeParam, Timestamp } from './common';
import { EmailAddress } from './email';
import { WebhookHeaders, WebhookMethod, WebhookUrl } from './webhooks';

/** Explicit limits of mailer configurations (docs/limits.md). */
export const MAILER_LIMITS = {
  nameLength: 256,
  hostLength: 253,
  usernameLength: 320,
  passwordLength: 1024,
  tokenLength: 8192,
  appIdLength: 256,
} as const;

/**
 * How a mailer's connection is secured (SMTP and IMAP alike; the spec's part 2.7 and the real service's
 * `TlsWhenAvailable`):
 * - `Auto`: TLS from the first byte on the protocol's implicit-TLS port (465 for SMTP, 993 for IMAP);
 *   on any other port, as `TlsWhenAvailable`.
 * - `TlsWhenAvailable`: plain connection, upgraded with STARTTLS when the server offers it, plain
 *   otherwise (never TLS from the first byte, whatever the port).
 * - `Tls`: plain connection that must be upgraded with STARTTLS; a server that does not offer it fails.
 * - `SSL`: TLS from the first byte (implicit TLS), whatever the port.
 * - `None`: plain text; STARTTLS is never tried, even when offered.
 */
export const MAILER_SECURE = ['Auto', 'TlsWhenAvailable', 'Tls', 'SSL', 'None'] as const;
export type MailerSecure = (typeof MAILER_SECURE)[number];
export const CONNECTION_TYPES = ['basic', 'oauth'] as const;
export const CONFIG_TYPES = ['smtp', 'imap'] as const;
export type ConfigType = (typeof CONFIG_TYPES)[number];

/** SMTP: untested, ok, error (after a test or a relay). IMAP: connecting, connected, error. */
export const MAILER_STATUSES = ['untested', 'ok', 'error', 'connecting', 'connected'] as const;

const Host = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAILER_LIMITS.hostLength, `must be at most ${MAILER_LIMITS.hostLength} characters`)
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._:-]+)$/, 'must be a host name or an IP address')
  .meta({ example: 'smtp.example.com' });

const MailerPort = z
  .number({ error: 'must be a port number from 1 to 65535' })
  .int('must be a whole number')
  .min(1, 'must be from 1 to 65535')
  .max(65535, 'must be from 1 to 65535');

const Secure = z.enum(MAILER_SECURE, { error: `must be one of ${MAILER_SECURE.join(', ')}` });

/** `config` of a configuration (spec part 2.7). The password is write-only. */
export const MailerConnection = z.strictObject({
  host: Host,
  port: MailerPort,
  username: z.string().max(MAILER_LIMITS.usernameLength, `must be at most ${MAILER_LIMITS.usernameLength} characters`).optional(),
  password: z.string().max(MAILER_LIMITS.passwordLength, `must be at most ${MAILER_LIMITS.passwordLength} characters`).optional(),
  secure: Secure,
});
export type MailerConnection = z.infer<typeof MailerConnection>;

/** On update, every connection field is optional; the given ones replace the stored ones. */
export const MailerConnectionUpdate = z.strictObject({
  host: Host.optional(),
  port: MailerPort.optional(),
  username: MailerConnection.shape.username,
  /** `null` removes the stored password. */
  password: MailerConnection.shape.password.nullable(),
  secure: Secure.optional(),
});

/** Where an IMAP configuration posts each new message (through the dispatcher, with retries). */
export const MailerWebhook = z.strictObject({
  url: WebhookUrl,
  method: WebhookMethod.default('POST'),
  headers: WebhookHeaders.optional(),
});

const Name = z.string().trim().min(1, 'must not be empty').max(MAILER_LIMITS.nameLength, `must be at most ${MAILER_LIMITS.nameLength} characters`);

/** configureSMTP / configureIMAP (spec part 2.7). */
export const ConfigureMailerBody = z
  .strictObject({
    name: Name,
    email: EmailAddress,
    config_type: z.enum(CONFIG_TYPES, { error: 'must be smtp or imap' }),
    connection_type: z.enum(CONNECTION_TYPES, { error: 'must be basic or oauth' }),
    config: MailerConnection,
    /** IMAP only. */
    webhook: MailerWebhook.optional(),
  })
  .meta({ id: 'ConfigureMailerBody' });
export type ConfigureMailerBody = z.infer<typeof ConfigureMailerBody>;

/** updateSMTP / updateIMAP: `mailer_id` addresses it; the fields given replace the stored ones. */
export const UpdateMailerBody = z
  .strictObject({
    mailer_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    name: Name.optional(),
    email: EmailAddress.optional(),
    config_type: z.enum(CONFIG_TYPES, { error: 'must be smtp or imap' }).optional(),
    connection_type: z.enum(CONNECTION_TYPES, { error: 'must be basic or oauth' }).optional(),
    config: MailerConnectionUpdate.optional(),
    /** IMAP only; `null` removes it. */
    webhook: MailerWebhook.nullable().optional(),
  })
  .meta({ id: 'UpdateMailerBody' });
export type UpdateMailerBody = z.infer<typeof UpdateMailerBody>;

export const MailerIdParams = z.strictObject({ mailer_id: z.string().min(1).max(64, 'must be at most 64 characters') });

export const MailerRecord = z
  .object({
    mailer_id: z.string(),
    name: z.string(),
    email: z.string(),
    config_type: z.enum(CONFIG_TYPES),
    connection_type: z.enum(CONNECTION_TYPES),
    config: z.object({ host: z.string(), port: z.number(), username: z.string(), secure: Secure, has_password: z.boolean() }),
    webhook: z.object({ url: z.string(), method: WebhookMethod, headers: z.record(z.string(), z.string()) }).nullable(),
    oauth_active: z.boolean(),
    /** The stored OAuth token, without its secrets. */
    oauth: z
      .object({
        has_token: z.boolean(),
        app_id: z.string().nullable(),
        token_type: z.string().nullable(),
        scope: z.string().nullable(),
        expires_at: Timestamp.nullable(),
      })
      .nullable(),
    status: z.enum(MAILER_STATUSES),
    last_error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MailerRecord' });
export type MailerRecord = z.infer<typeof MailerRecord>;

/** A mailer as the control API lists it (never a `/v1` answer, which keeps the service's fields). */
export const EmulatorMailerRecord = MailerRecord.extend({
  account_id: z.string(),
  /**
   * What the real service would refuse in the configuration as it stands (docs/warnings.md), each
   * starting with its rule's name: an SMTP one with a basic login but no username or password. Empty
   * when nothing; an update that gives what was missing clears it.
   */
  warnings: z.array(z.string()),
});
export type EmulatorMailerRecord = z.infer<typeof EmulatorMailerRecord>;

/** `POST /emulator/mailers/{mailer_id}/test`: a real connection and login. */
export const MailerTestResult = z.object({
  ok: z.boolean(),
  /** What the server said or why the connection failed. */
  message: z.string(),
  duration_ms: z.number(),
  mailer: MailerRecord,
});
export type MailerTestResult = z.infer<typeof MailerTestResult>;

/** setOAuthActive (spec part 2.9). */
export const SetOAuthActiveBody = z
  .strictObject({ mailer_id: z.string().min(1, 'must not be empty').max(64), active: z.boolean().optional() })
  .meta({ id: 'SetOAuthActiveBody' });
export type SetOAuthActiveBody = z.infer<typeof SetOAuthActiveBody>;

export const OAuthActiveResult = z.object({ mailer_id: z.string(), oauth_active: z.boolean() });

/** `type` of oauthLogin (rest-api/initiate-o-auth-login-flow): what the login configures. */
export const OAUTH_LOGIN_TYPES = ['smtp_imap', 'smtp', 'imap'] as const;
export type OAuthLoginType = (typeof OAUTH_LOGIN_TYPES)[number];

const TokenString = z.string().max(MAILER_LIMITS.tokenLength, `must be at most ${MAILER_LIMITS.tokenLength} characters`);

/** A token obtained elsewhere (oauthLogin's `token`, as the page shows it). */
export const OAuthToken = z.strictObject({
  access_token: TokenString.optional(),
  expires_in: z.number({ error: 'must be a number of seconds' }).int('must be a whole number').positive('must be positive').optional(),
  id_token: TokenString.optional(),
  refresh_token: TokenString.optional(),
  scope: z.string().max(1024, 'must be at most 1024 characters').optional(),
  token_type: z.string().max(64, 'must be at most 64 characters').optional(),
});

/** The IMAP side's webhook in oauthLogin: only POST, the default. */
export const OAuthLoginWebhook = z.strictObject({
  url: WebhookUrl,
  method: z.literal('POST', { error: 'must be POST' }).default('POST'),
  headers: WebhookHeaders.optional(),
});

/**
 * oauthLogin (`POST /v1/oauth/login`), the body of the real page with its conditional rules:
 * `type` is required without `mailer_id`; `imap`/`smtp_imap` without `mailer_id` need `webhook`;
 * `smtp` takes no `webhook` and no `include_*: true`; `exchange_token: true` needs `token.refresh_token`.
 */
export const OAuthLoginBody = z
  .strictObject({
    app_id: z.string().trim().min(1, 'must not be empty').max(MAILER_LIMITS.appIdLength, `must be at most ${MAILER_LIMITS.appIdLength} characters`),
    exchange_token: z.boolean().optional(),
    include_sent: z.boolean().optional(),
    include_spam: z.boolean().optional(),
    include_trash: z.boolean().optional(),
    mailer_id: z.string().max(64, 'must be at most 64 characters').optional(),
    redirect_uri: WebhookUrl.optional(),
    /** The client's own value, given back unchanged on the redirect. */
    state: z.string().max(1024, 'must be at most 1024 characters').optional(),
    strict_replies: z.boolean().optional(),
    token: OAuthToken.optional(),
    type: z.enum(OAUTH_LOGIN_TYPES, { error: 'must be smtp_imap, smtp or imap' }).optional(),
    webhook: OAuthLoginWebhook.optional(),
  })
  .superRefine((body, ctx) => {
    const noMailer = body.mailer_id === undefined || body.mailer_id === '';
    if (noMailer && body.type === undefined) ctx.addIssue({ code: 'custom', path: ['type'], message: 'is required when mailer_id is empty' });
    if (noMailer && (body.type === 'imap' || body.type === 'smtp_imap') && body.webhook === undefined) {
      ctx.addIssue({ code: 'custom', path: ['webhook'], message: `is required with type ${body.type} when mailer_id is empty` });
    }
    if (body.type === 'smtp') {
      if (body.webhook !== undefined) ctx.addIssue({ code: 'custom', path: ['webhook'], message: 'must be omitted with type smtp' });
      for (const f of ['include_sent', 'include_spam', 'include_trash'] as const) {
        if (body[f] === true) ctx.addIssue({ code: 'custom', path: [f], message: 'must be false with type smtp' });
      }
    }
    if (body.exchange_token === true && !body.token?.refresh_token) {
      ctx.addIssue({
        code: 'custom',
        path: body.token ? ['token', 'refresh_token'] : ['token'],
        message: 'is required (with a non-empty refresh_token) when exchange_token is true',
      });
    }
  })
  .meta({ id: 'OAuthLoginBody' });
export type OAuthLoginBody = z.infer<typeof OAuthLoginBody>;

/** oauthLogin's answer, as the page shows it: the consent page's URL (or, for an exchanged token, where the login ends). */
export const OAuthLoginResponse = z.object({ success: z.literal(true), url: z.string() }).meta({ id: 'OAuthLoginResponse' });
export type OAuthLoginResponse = z.infer<typeof OAuthLoginResponse>;

/** getOAuthConfig (`GET /v1/oauth/{mailer_id}`): the flat configuration of rest-api/get-o-auth-configuration. */
export const OAuthConfigResponse = z
  .object({
    active: z.boolean(),
    config: z.record(z.string(), z.unknown()),
    /** The provider (`mailyard` for the offline authorization server). */
    config_type: z.string(),
    connection_type: z.enum(CONNECTION_TYPES),
    email: z.string(),
    include_sent: z.boolean(),
    include_spam: z.boolean(),
    include_trash: z.boolean(),
    mailer_id: z.string(),
    name: z.string(),
    provider: z.string(),
    strict_replies: z.boolean(),
    webhook: z.object({ event: z.literal('BASIC_IMAP'), headers: z.record(z.string(), z.string()), method: WebhookMethod, webhook_url: z.string() }).nullable(),
  })
  .meta({ id: 'OAuthConfigResponse' });
export type OAuthConfigResponse = z.infer<typeof OAuthConfigResponse>;

const Address = z.object({ email: z.string(), name: z.string() });

/** The body an IMAP configuration's webhook receives for each new message in the inbox. */
export const ImapMessagePayload = z
  .strictObject({
    event: z.literal('imap_message'),
    timestamp: Timestamp,
    ref_id: z.string(),
    mailer_id: z.string(),
    mailbox: z.string(),
    uid: z.number().int(),
    message_id: z.string(),
    from: Address,
    to: z.array(Address),
    cc: z.array(Address),
    subject: z.string(),
    date: z.string().nullable(),
    text: z.string(),
    html: z.string(),
    headers: z.record(z.string(), z.string()),
    attachments: z.array(
      z.strictObject({ filename: z.string(), content_type: z.string(), size: z.number().int().nonnegative(), content_id: z.string(), content: z.string() }),
    ),
    /** A delivery-status notification about a message Mailyard sent: that message and what the DSN says. */
    bounce: z
      .strictObject({ ref_id: z.string(), recipient: z.string(), bounce_type: z.enum(['hard', 'soft']), status: z.string(), diagnostic: z.string() })
      .nullable(),
    /**
     * Why the message is not carried whole, or null: mailparser refused it (then only what its header
     * block says is carried), or it was over the size limit (only its header block was fetched).
     */
    problem: z.string().nullable(),
  })
  .meta({ id: 'ImapMessagePayload' });
export type ImapMessagePayload = z.infer<typeof ImapMessagePayload>;

/** A message the IMAP connector took from an inbox, as the control API lists it (the raw source is a download). */
export const ImapMessageSummary = z
  .object({
    ref_id: z.string(),
    mailer_id: z.string(),
    uidvalidity: z.number().int(),
    uid: z.number().int(),
    message_id: z.string(),
    from_email: z.string(),
    subject: z.string(),
    /** Bytes of the message on the server (the raw download is only its header block when `problem` says it was over the limit). */
    size: z.number().int().nonnegative(),
    /** A delivery-status notification about a message Mailyard sent: that message's ref_id. */
    bounce_ref_id: z.string().nullable(),
    /** The delivery that posts it to the configuration's webhook; null without a webhook. */
    delivery_id: z.string().nullable(),
    /** Why it was not taken whole (mailparser refused it; over the size limit: only its header block is kept), or null. */
    problem: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'ImapMessageSummary' });
export type ImapMessageSummary = z.infer<typeof ImapMessageSummary>;

export const ListImapMessagesQuery = z.strictObject({
  limit: pageSizeParam(500, 50),
  cursor: z.string().max(200).optional(),
});

export const ImapMessagePage = z.object({ messages: z.array(ImapMessageSummary), total: z.number().int().nonnegative(), next_cursor: z.string().nullable() });
export type ImapMessagePage = z.infer<typeof ImapMessagePage>;
