import { statSync } from 'node:fs';
import { delimiter } from 'node:path';
import { parseArgs } from 'node:util';
import { type EmulatorConfigInput, EmulatorConfigSchema, LOG_LEVELS } from '../core/config';
import { errorMap } from '../core/zod-errors';

/** A bad command line or environment value: the CLI prints it and exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

interface FlagSpec {
  type: 'string' | 'boolean';
  key: keyof EmulatorConfigInput;
  value?: string;
  help: string;
  /** Given more than once, each value counts (the environment variable lists them with the path delimiter). */
  multiple?: true;
  /** With multiple: the environment variable is one value, never split (Mailpit's MP_TAG holds every rule). */
  envWhole?: true;
}

/** The flags of `mailyard serve`; each is also `MAILYARD_<FLAG>` in the environment (flags win). */
export const SERVE_FLAGS: Record<string, FlagSpec> = {
  host: { type: 'string', key: 'host', value: 'ADDR', help: 'address to listen on (default 127.0.0.1)' },
  'http-port': { type: 'string', key: 'httpPort', value: 'PORT', help: 'HTTP port: API, control API and web UI (default 4400; 0 picks a free one)' },
  'smtp-port': { type: 'string', key: 'smtpPort', value: 'PORT', help: 'SMTP sink port (default 2525; 0 picks a free one)' },
  'data-dir': { type: 'string', key: 'dataDir', value: 'DIR', help: 'where the database lives (default: the platform data folder)' },
  memory: { type: 'boolean', key: 'memory', help: 'keep everything in memory; nothing is written to disk' },
  'control-key': {
    type: 'string',
    key: 'controlKey',
    value: 'KEY',
    help: 'the key the control API and web UI need when --host is beyond loopback (default: a random one, printed at start); given on loopback, it is needed there too',
  },
  'api-key': { type: 'string', key: 'apiKey', value: 'KEY', help: 'make sure an account with this API key exists (for CI and tests)' },
  scenarios: {
    type: 'string',
    key: 'scenarioDirs',
    value: 'DIR',
    multiple: true,
    help: 'a folder of scenario files the web UI and control API may run, with the app they start (repeat for more); scenario text posted over HTTP never starts an app',
  },
  'strict-webhook-urls': {
    type: 'boolean',
    key: 'strictWebhookUrls',
    help: 'webhook URLs must be https and public, as the real service requires',
  },
  'strict-senders': {
    type: 'boolean',
    key: 'strictSenders',
    help: "a send's sender must be at a verified domain of the account (else 403 Unauthorized From Email), as the real service requires",
  },
  'strict-requests': {
    type: 'boolean',
    key: 'strictRequests',
    help: '/v1 refuses what the real service refuses and Mailyard otherwise takes with a warning (X-Mailyard-Warning: an unverified sender, an empty subject, an attachment without type, an SMTP configuration without username and password, a date without a time), and unknown fields and query parameters and null for optional fields (400), otherwise ignored and named in X-Mailyard-Ignored',
  },
  'smtp-auth': {
    type: 'string',
    key: 'smtpAuth',
    value: 'MODE',
    help: 'optional (default): mail without AUTH goes to the default account; required: AUTH with an API key first',
  },
  'smtp-max-size': {
    type: 'string',
    key: 'maxMessageBytes',
    value: 'SIZE',
    help: 'largest message the SMTP sink takes, e.g. 60MB (units KB, MB, GB count in 1024s; a plain number is bytes; default 25MB, at most 1024MB); advertised in EHLO SIZE, 552 beyond',
  },
  'smtp-tls': {
    type: 'string',
    key: 'smtpTls',
    value: 'MODE',
    help: 'off (default): no STARTTLS, any client sends with its default settings; starttls: STARTTLS offered with a self-signed certificate (the start-up lines say where to find it, to trust it)',
  },
  'enable-chaos': {
    type: 'boolean',
    key: 'enableChaos',
    help: "Mailpit's chaos: /api/v1/chaos (and the Simulation screen) may set triggers that make the SMTP sink refuse MAIL FROM, RCPT TO or AUTH with a code, at a probability",
  },
  'tags-plus-addresses': {
    type: 'boolean',
    key: 'tagsPlusAddresses',
    help: "tag captured mail by its plus-addresses, as Mailpit does: mail to or from user+tag@ gets the tag 'tag' (off by default: the simulator's addresses use + too)",
  },
  tag: {
    type: 'string',
    key: 'tagRules',
    value: 'RULE',
    multiple: true,
    envWhole: true,
    help: "a tag rule, as Mailpit's --tag: captured mail the search finds gets the tags, e.g. 'Invoice=subject:invoice'; rules in one value are separated by spaces, a search of several words goes in double quotes (repeat for more)",
  },
  'tags-config': {
    type: 'string',
    key: 'tagsConfig',
    value: 'FILE',
    help: "tag rules from Mailpit's YAML file: filters, each a match (a search) and tags (comma-separated)",
  },
  'tags-username': { type: 'boolean', key: 'tagsUsername', help: "tag mail sent with SMTP AUTH with the login's user name, as Mailpit does" },
  'tags-title-case': {
    type: 'boolean',
    key: 'tagsTitleCase',
    help: "tags from X-Tags and plus-addresses get each word's first letter in upper case, as Mailpit's",
  },
  'tags-disable': {
    type: 'string',
    key: 'tagsDisable',
    value: 'LIST',
    help: "Mailpit's: x-tags (the X-Tags header is not read) and/or plus-addresses (off even with --tags-plus-addresses), comma-separated",
  },
  'retry-schedule': {
    type: 'string',
    key: 'retrySchedule',
    value: 'LIST',
    help: 'delays between webhook attempts, e.g. 5s,5m,30m,2h,5h,10h,10h (the default), or none',
  },
  'payload-format': {
    type: 'string',
    key: 'payloadFormat',
    value: 'SHAPE',
    help: "spec (default): email event webhook bodies as the service spec shows them; mailer-events: the newer webhooks guide's mailer_events object (an account's own choice wins)",
  },
  'geo-default': {
    type: 'string',
    key: 'geoDefault',
    value: 'COUNTRY,CITY',
    help: 'geo_location of opens from loopback and private addresses (default "United States,San Francisco")',
  },
  'dns-verification': {
    type: 'string',
    key: 'dnsVerification',
    value: 'MODE',
    help: 'simulated (default): verifyDomain gives the outcome set in the UI or control API; real: looks the records up in DNS',
  },
  'spam-filter': {
    type: 'string',
    key: 'spamFilter',
    value: 'MODE',
    help: "off (default); spamassassin: score each send with SpamAssassin's spamd (started by the emulator), a spam event at or over the threshold",
  },
  'spam-threshold': { type: 'string', key: 'spamThreshold', value: 'SCORE', help: 'the SpamAssassin score that makes a message spam (default 5.0)' },
  'from-snapshot': {
    type: 'string',
    key: 'fromSnapshot',
    value: 'FILE',
    help: 'start from a copy of a snapshot (mailyard snapshot save), with --memory or into an empty --data-dir; the file is only read',
  },
  'max-messages': {
    type: 'string',
    key: 'maxMessages',
    value: 'N',
    help: 'keep the newest N messages; older ones are pruned with their events and deliveries (default 20000 with a data directory, no limit with --memory; 0: no limit)',
  },
  'max-age': {
    type: 'string',
    key: 'maxAge',
    value: 'AGE',
    help: 'prune messages older than AGE on the emulator clock, e.g. 12h, 30d, 2w (default 0: no limit)',
  },
  'log-level': { type: 'string', key: 'logLevel', value: 'LEVEL', help: `one of ${LOG_LEVELS.join(', ')} (default info)` },
};

export function envName(flag: string): string {
  return `MAILYARD_${flag.toUpperCase().replace(/-/g, '_')}`;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function parseBoolean(value: string, source: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off|)$/i.test(value)) return false;
  throw new UsageError(`invalid value for ${source}: expected true or false, got "${value}"`);
}

/** Command line and environment to a validated emulator config; throws UsageError naming the flag. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv): { config: EmulatorConfigInput; help: boolean } {
  let parsed: { values: Record<string, string | string[] | boolean | undefined> };
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(Object.entries(SERVE_FLAGS).map(([flag, spec]) => [flag, { type: spec.type, multiple: spec.multiple === true }])),
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const values = parsed.values;

  const raw: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [flag, spec] of Object.entries(SERVE_FLAGS)) {
    const fromEnv = env[envName(flag)];
    if (values[flag] !== undefined) {
      raw[spec.key] = values[flag];
      sources[spec.key] = `--${flag}`;
    } else if (fromEnv !== undefined) {
      raw[spec.key] =
        spec.type === 'boolean'
          ? parseBoolean(fromEnv, envName(flag))
          : spec.multiple
            ? spec.envWhole
              ? [fromEnv]
              : fromEnv.split(delimiter).filter(Boolean)
            : fromEnv;
      sources[spec.key] = envName(flag);
    }
  }

  const result = EmulatorConfigSchema.safeParse(raw, { error: errorMap });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    if (key === 'memory' && raw.memory && raw.dataDir) {
      throw new UsageError(`${sources.dataDir} and ${sources.memory} cannot be used together`);
    }
    const source = sources[key] ?? key;
    throw new UsageError(`invalid value for ${source}: ${issue.message}, got "${String(raw[key])}"`);
  }
  for (const dir of result.data.scenarioDirs) {
    if (!isFolder(dir)) throw new UsageError(`invalid value for ${sources.scenarioDirs}: no such folder "${dir}"`);
  }
  return { config: raw as EmulatorConfigInput, help: values.help === true };
}

export function serveUsage(): string {
  const entries = Object.entries(SERVE_FLAGS).map(([flag, spec]) => ({ left: `  --${flag}${spec.value ? ` ${spec.value}` : ''}`, flag, spec }));
  // The descriptions start two spaces after the longest flag with its value (`--geo-default COUNTRY,CITY`).
  const width = Math.max(...entries.map((e) => e.left.length)) + 2;
  const lines = entries.map(({ left, flag, spec }) => `${left.padEnd(width)}${spec.help}\n${''.padEnd(width)}env ${envName(flag)}`);
  return [
    'Usage: mailyard serve [options]',
    '',
    'Starts the emulator headless.',
    '',
    'Options:',
    ...lines,
    `${'  -h, --help'.padEnd(width)}show this help`,
  ].join('\n');
}
