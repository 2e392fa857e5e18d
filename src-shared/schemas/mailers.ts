import { z } from 'zod';
import { pageSizeParam, Timestamp } from './common';
import { EmailAddress } from './email';
import { WebhookHeaders, WebhookMethod, WebhookUrl } from './webhooks';

/** Explicit limits of mailer configurations (documented in the README). */
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
      .object({ has_token: z.boolean(), app_id: z.string().nullable(), token_type: z.string().nullable(), scope: z.string().nullable(), expires_at: Timestamp.nullable() })
      .nullable(),
    status: z.enum(MAILER_STATUSES),
    last_error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MailerRecord' });
export type MailerRecord = z.infer<typeof MailerRecord>;

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

/** A token given to oauthLogin: an authorization code to exchange, or a token obtained elsewhere. */
export const OAuthToken = z.union([
  z.strictObject({ code: z.string().min(1, 'must not be empty').max(256) }),
  z.strictObject({
    access_token: z.string().min(1, 'must not be empty').max(MAILER_LIMITS.tokenLength),
    refresh_token: z.string().max(MAILER_LIMITS.tokenLength).optional(),
    token_type: z.string().max(64).optional(),
    scope: z.string().max(1024).optional(),
    expires_in: z.number().int().positive().optional(),
  }),
], { error: 'must be {code} or {access_token, refresh_token?, token_type?, scope?, expires_in?}' });

/** oauthLogin (spec part 2.9). `type`, when given, is the configuration type of the mailer (smtp or imap). */
export const OAuthLoginBody = z
  .strictObject({
    app_id: z.string().trim().min(1, 'must not be empty').max(MAILER_LIMITS.appIdLength),
    redirect_uri: WebhookUrl.optional(),
    token: OAuthToken.optional(),
    mailer_id: z.string().min(1, 'must not be empty').max(64).optional(),
    type: z.enum(CONFIG_TYPES, { error: 'must be smtp or imap' }).optional(),
  })
  .meta({ id: 'OAuthLoginBody' });
export type OAuthLoginBody = z.infer<typeof OAuthLoginBody>;

export const OAuthLoginResult = z.union([
  z.object({ authorization_url: z.string(), state: z.string(), expires_at: Timestamp }),
  z.object({ mailer_id: z.string(), oauth_active: z.boolean(), token_type: z.string(), scope: z.string().nullable(), expires_at: Timestamp.nullable() }),
]);
export type OAuthLoginResult = z.infer<typeof OAuthLoginResult>;

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
    attachments: z.array(z.strictObject({ filename: z.string(), content_type: z.string(), size: z.number().int().nonnegative(), content_id: z.string(), content: z.string() })),
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
