import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PAYLOAD_FORMATS } from '../../src-shared/payload-format';
import { parseMaxAge } from '../../src-shared/retention';
import { ApiKey } from '../../src-shared/schemas/common';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './dispatch/retry-policy';
import { parseTagArgs, parseTagsDisable, readTagsConfig } from './mail/tag-rules';

/**
 * A transform that parses a value with `parse`, a parser that throws with its words: they become the
 * field's issue (named by its path, as every other problem of the config).
 */
function parsedBy<T, R>(parse: (value: T) => R) {
  return (value: T, ctx: z.RefinementCtx): R => {
    try {
      return parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  };
}

/** A port number; from the command line or environment it arrives as digits. */
/** The largest SMTP message size that may be set: a message is held whole in memory while it is stored. */
export const MAX_SMTP_SIZE = 1024 * 1024 * 1024;

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `60MB`, `512kb`, `1GiB`, `2000000` to bytes; units count in 1024s, as Mailpit's MB. Anything else is left for the schema to refuse. */
function byteSize(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(v);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  return m && unit !== undefined ? Math.round(Number(m[1]) * unit) : v;
}

const Port = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z
    .number({ error: 'must be a port number from 0 to 65535' })
    .int('must be a whole number')
    .min(0, 'must be from 0 to 65535')
    .max(65535, 'must be from 0 to 65535'),
);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Everything `createEmulator` accepts. Each field maps to a CLI flag and a `MAILYARD_*` variable. */
export const EmulatorConfigSchema = z
  .strictObject({
    host: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
    httpPort: Port.default(4400),
    smtpPort: Port.default(2525),
    /** Where the database lives. Ignored with `memory`. */
    dataDir: z.string().trim().min(1, 'must not be empty').optional(),
    memory: z.boolean().default(false),
    apiKey: ApiKey.optional(),
    /**
     * The key the control API, the web UI and the release path require when the HTTP listener is not
     * loopback-only (`Authorization: Bearer <key>` or the UI's login). Not given there: a random one is
     * made at start. Loopback-only listeners need none.
     */
    controlKey: z
      .string()
      .regex(/^[\x21-\x7e]*$/, 'must be printable ASCII without spaces')
      .min(16, 'must be at least 16 characters')
      .max(256, 'must be at most 256 characters')
      .optional(),
    strictWebhookUrls: z.boolean().default(false),
    /** A send's sender must be at a verified domain of the account (403 `Unauthorized From Email` otherwise). */
    strictSenders: z.boolean().default(false),
    /**
     * `/v1` refuses unknown body fields and query parameters, and `null` for an optional field (400),
     * where by default they are accepted, ignored and named in `X-Mailyard-Ignored`.
     */
    strictRequests: z.boolean().default(false),
    /** `required`: the SMTP sink refuses mail without AUTH (an account's API key as the password). */
    smtpAuth: z.enum(['optional', 'required'], { error: 'must be optional or required' }).default('optional'),
    /** Mailpit's chaos: `/api/v1/chaos` and `/emulator/chaos` may set triggers that make the SMTP sink refuse MAIL FROM, RCPT TO or AUTH. */
    enableChaos: z.boolean().default(false),
    /** Mailpit's plus-address tags: mail to or from `user+tag@` is tagged `tag` (Mailpit does it unless told not to; Mailyard when asked). */
    tagsPlusAddresses: z.boolean().default(false),
    /** Mailpit's tag rules (`--tag`): each value one or more `tags=search` (mail/tag-rules.ts); a captured copy the search finds gets the tags. */
    tagRules: z
      .union([z.string(), z.array(z.string())])
      .default([])
      .transform(parsedBy((value) => (Array.isArray(value) ? value : [value]).flatMap(parseTagArgs))),
    /** Mailpit's tags configuration file (`--tags-config`, YAML `filters` of `match` and `tags`): read at start, its rules added to tagRules. */
    tagsConfig: z
      .string()
      .optional()
      .transform(parsedBy((file) => (file === undefined || file.trim() === '' ? [] : readTagsConfig(file)))),
    /** Mailpit's `--tags-username`: mail sent with SMTP AUTH is tagged with the login's user name. */
    tagsUsername: z.boolean().default(false),
    /** Mailpit's `--tags-title-case`: tags from X-Tags and plus-addresses get each word's first letter upper-cased. */
    tagsTitleCase: z.boolean().default(false),
    /** Mailpit's `--tags-disable`: `x-tags` (the header is not read) and/or `plus-addresses` (wins over tagsPlusAddresses). */
    tagsDisable: z.string().default('').transform(parsedBy(parseTagsDisable)),
    /**
     * `off`: the SMTP sink offers no STARTTLS, so every client sends with its default settings (as to
     * Mailpit or MailDev). `starttls`: offered, with a self-signed certificate the client must trust
     * (kept in the data directory as smtp-tls-cert.pem; the handle and the start-up lines say where).
     */
    smtpTls: z.enum(['off', 'starttls'], { error: 'must be off or starttls' }).default('off'),
    logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    /** `geo_location` of opens from loopback and private addresses: `Country,City`. */
    geoDefault: z
      .string()
      .regex(/^[^,]+,[^,]+$/, 'must be Country,City (for example "United States,San Francisco")')
      .default('United States,San Francisco')
      .transform((v) => {
        const [country, city] = v.split(',').map((p) => p.trim());
        return { country: country!, city: city! };
      }),
    /**
     * Where the emulator clock starts on a fresh store (an ISO 8601 time such as 2026-01-01T00:00:00Z):
     * it runs on from there. A store that kept a clock offset keeps its own time (never moved back).
     */
    clockStart: z
      .string()
      .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && Number.isFinite(Date.parse(v)), 'must be an ISO 8601 time such as 2026-01-01T00:00:00Z')
      .optional(),
    /** How verifyDomain decides: `simulated` (the outcome set through the control API) or `real` (DNS lookups). */
    dnsVerification: z.enum(['simulated', 'real'], { error: 'must be simulated or real' }).default('simulated'),
    /** Delays between delivery attempts: `5s,5m,30m,...` or `none`, or milliseconds. */
    retrySchedule: z
      .union([z.array(z.number().int().positive()), z.string()])
      .default([...DEFAULT_RETRY_SCHEDULE_MS])
      .transform(parsedBy((value) => (Array.isArray(value) ? value : parseRetrySchedule(value)))),
    /** The shape of email event webhook bodies of accounts that chose none: the spec's, or the newer guide's `mailer_events`. */
    payloadFormat: z.enum(PAYLOAD_FORMATS, { error: `must be one of ${PAYLOAD_FORMATS.join(', ')}` }).default('spec'),
    /** How long one webhook attempt may take; a receiver that does not answer frees its slot after it. */
    deliveryTimeoutMs: z.number().int().positive().default(15_000),
    /**
     * Webhook requests in flight to one target at most: the only cap on attempts in flight (no slot is
     * shared between targets, so receivers that hang never delay another's deliveries).
     */
    perTargetConcurrency: z.number().int().positive().default(8),
    /** Deliveries the dispatcher claims in one commit at most (the work of one commit, not a cap on attempts in flight). */
    claimBatch: z.number().int().positive().default(128),
    /**
     * Folders whose scenario files the control API and the web UI may run, apps included (`--scenarios
     * DIR`): the only way a scenario reaching Mailyard over HTTP starts a program. Each must exist.
     */
    scenarioDirs: z.array(z.string().trim().min(1, 'must not be empty')).default([]),
    /** Folder of the built web UI (index.html); the CLI and desktop entries point it at out/renderer. */
    uiDir: z.string().optional(),
    /** Largest message the SMTP sink accepts, in bytes (552 beyond; EHLO's SIZE): a number, or a size with its unit (`60MB`). */
    maxMessageBytes: z
      .preprocess(
        byteSize,
        z
          .number({ error: 'must be a size such as 60MB, 512KB or a number of bytes' })
          .int('must be a whole number of bytes')
          .min(1024, 'must be at least 1KB')
          .max(MAX_SMTP_SIZE, 'must be at most 1024MB'),
      )
      .default(25 * 1024 * 1024),
    /** Largest request body accepted, in bytes. */
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(25 * 1024 * 1024),
    /** On close, how long requests in flight may take before their connections are cut. */
    shutdownGraceMs: z.number().int().nonnegative().default(5000),
    /** How long the webhook URL reachability check may take. */
    reachabilityTimeoutMs: z.number().int().positive().default(3000),
    /** HTTP: a request's headers must arrive within this long of the connection or the previous answer (408 after). */
    httpHeadersTimeoutMs: z.number().int().positive().default(10_000),
    /** HTTP: a whole request, headers and body, must arrive within this long (408 after): 25 MB on loopback takes well under a second. */
    httpRequestTimeoutMs: z.number().int().positive().default(60_000),
    /** HTTP: an idle keep-alive connection is closed this long after its last answer. */
    httpKeepAliveTimeoutMs: z.number().int().positive().default(5_000),
    /** HTTP: a connection with no byte read or written for this long is closed (a client that stops reading an answer). */
    httpIdleTimeoutMs: z.number().int().positive().default(120_000),
    /** SMTP: a connection with nothing from the client for this long is told 421 and closed. */
    smtpIdleTimeoutMs: z.number().int().positive().default(60_000),
    /** SMTP: one message's DATA must arrive in full within this long (421 and closed after). */
    smtpDataTimeoutMs: z.number().int().positive().default(120_000),
    /** SMTP: a session (connection) lasts at most this long; past it the client is told 421 and closed once no message is arriving. */
    smtpSessionTimeoutMs: z.number().int().positive().default(600_000),
    /** SMTP: connections open at once at most; one more is told 421 and closed (keeps file descriptors for HTTP). */
    smtpMaxClients: z.number().int().positive().default(256),
    /** SMTP: bytes of messages arriving or being stored at once, all connections together (never less than maxMessageBytes): a message past 1 MiB waits (TCP holds its client back) for room for a whole maxMessageBytes message; 451 when small ones fill it. */
    smtpInFlightBytes: z
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    /**
     * Retention: the newest copies kept at most (older ones are pruned with everything that is theirs);
     * 0 keeps every copy. Not given: DEFAULT_MAX_MESSAGES in a data directory, no limit in memory
     * (services/retention). The same number bounds the webhook deliveries and the catchers' requests.
     */
    maxMessages: z
      .preprocess(
        (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
        z.number({ error: 'must be a whole number (0: no limit)' }).int('must be a whole number').nonnegative('must be 0 (no limit) or more'),
      )
      .optional(),
    /** Retention: copies (and deliveries, catcher requests) older than this on the emulator clock are pruned: `30d`, `12h`, or milliseconds; 0 for no limit. */
    maxAge: z
      .union([z.number().int().nonnegative(), z.string()])
      .transform(parsedBy((value) => (typeof value === 'number' ? value : parseMaxAge(value))))
      .optional(),
    /** Start from a copy of this snapshot (`mailyard snapshot save`): with `memory`, or into a data directory that holds no store yet. The file is only read. */
    fromSnapshot: z.string().trim().min(1, 'must not be empty').optional(),
    /** How often (wall time) retention checks the limits and the store checks whether it is idle. */
    retentionIntervalMs: z.number().int().positive().default(1_000),
    /** How long the store must see no write before it shrinks its WAL and frees unused pages (docs/storage.md). */
    storeIdleMs: z.number().int().positive().default(5_000),
    /** `spamassassin`: each new copy is scored by SpamAssassin (spamd, started by the emulator); at or over the threshold its recipient gets a `spam` event. */
    spamFilter: z.enum(['off', 'spamassassin'], { error: 'must be off or spamassassin' }).default('off'),
    /** The SpamAssassin score at and over which a message is spam (its `required_score`). */
    spamThreshold: z
      .preprocess(
        (v) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
        z.number({ error: 'must be a number such as 5.0' }).min(-100, 'must be from -100 to 1000').max(1000, 'must be from -100 to 1000'),
      )
      .default(5),
  })
  .refine((c) => !(c.memory && c.dataDir), { message: '--data-dir and --memory cannot be used together', path: ['memory'] })
  .refine((c) => c.httpHeadersTimeoutMs <= c.httpRequestTimeoutMs, {
    message: 'must not be longer than httpRequestTimeoutMs',
    path: ['httpHeadersTimeoutMs'],
  });

export type EmulatorConfigInput = z.input<typeof EmulatorConfigSchema>;
export type EmulatorConfig = z.output<typeof EmulatorConfigSchema>;

/**
 * The platform's application-data folder for Mailyard, shared by the desktop app and headless mode:
 * `$XDG_DATA_HOME/mailyard` or `~/.local/share/mailyard` on Linux, `~/Library/Application Support/mailyard`
 * on macOS, `%APPDATA%\mailyard` on Windows.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'mailyard');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'mailyard');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'mailyard');
}
