import { join } from 'node:path';
import { createEmulator, type EmulatorHandle, VERSION } from '../core';
import { isLoopbackHost } from '../core/http/control-auth';
import { parseServeArgs, serveUsage, UsageError } from './args';
import { checkReceiverCommand } from './check-receiver';
import { exportCommand, importCommand } from './mail-files';
import { scenarioCommand } from './scenario';
import { snapshotCommand } from './snapshot';

const USAGE = `Mailyard ${VERSION}: an offline email delivery service emulator

Usage:
  mailyard serve [options]   start the emulator headless (see mailyard serve --help)
  mailyard scenario run <file> [options]
                             run a QA scenario file, exit 0 on pass, 1 on fail (see mailyard scenario --help)
  mailyard check-receiver <url> [options]
                             grade your webhook receiver against what the service sends it,
                             exit 0 on pass, 1 on fail (see mailyard check-receiver --help)
  mailyard snapshot save <file> --url URL [--without-secrets]
                             save a running emulator's whole state; start from it with
                             mailyard serve --from-snapshot <file> (see mailyard snapshot --help)
  mailyard import <path>... --url URL
                             capture .eml files, folders and mbox files as if over SMTP
  mailyard export <file> --url URL [--query Q]
                             write the messages a search finds as an mbox
  mailyard --version         print the version
  mailyard --help            show this help`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM). */
  stopSignal: () => Promise<string>;
}

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  stopSignal: () =>
    new Promise((resolve) => {
      const onSignal = (signal: string) => {
        // A second signal while stopping ends the process at once.
        process.once('SIGINT', () => process.exit(130));
        process.once('SIGTERM', () => process.exit(143));
        resolve(signal);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    }),
};

/**
 * What start-up says of the control key: beyond loopback, a warning that the listeners are reachable
 * from the network and how to authenticate; a key made at start is printed (one given is not echoed).
 */
function controlKeyLines(emulator: EmulatorHandle, keyGiven: boolean): string[] {
  const key = emulator.config.controlKey;
  if (key === undefined) return [];
  const shown = keyGiven ? '(the one given with --control-key / MAILYARD_CONTROL_KEY)' : `${key}  (made at start; set one with --control-key)`;
  const lines = [`Control:  ${shown}`, '          send "Authorization: Bearer <control key>" to /emulator, or log in to the web UI with it'];
  if (isLoopbackHost(emulator.config.host)) return lines;
  const smtp = emulator.config.smtpAuth === 'required' ? 'an API key' : 'nothing (--smtp-auth required asks for an API key)';
  return [
    `WARNING:  listening on ${emulator.config.host}: reachable from the network, not only this machine. The control API,`,
    `          the web UI and message release need the control key; /v1 needs an API key; SMTP needs ${smtp}.`,
    ...lines,
  ];
}

/**
 * What start-up says of STARTTLS: off, or offered with the certificate a client must trust, as its
 * file or, in memory where no file is kept, as the PEM itself.
 */
function smtpTlsLines(emulator: EmulatorHandle): { note: string; lines: string[] } {
  const cert = emulator.smtpCertificate;
  if (cert === null) return { note: 'STARTTLS off (--smtp-tls starttls)', lines: [] };
  const trust = 'self-signed: trust it in the client, e.g. nodemailer tls: { ca }';
  if (cert.file !== null) return { note: 'STARTTLS offered', lines: [`TLS cert: ${cert.file}  (${trust})`] };
  return { note: 'STARTTLS offered', lines: [`TLS cert: made for this run, kept nowhere (--memory)  (${trust}):`, ...cert.pem.trimEnd().split(/\r?\n/)] };
}

function startupLines(emulator: EmulatorHandle, keyGiven: boolean): string[] {
  const auth = emulator.config.smtpAuth === 'required' ? 'AUTH required' : 'AUTH optional';
  const tls = smtpTlsLines(emulator);
  const smtp = `${emulator.urls.smtp}  (${auth}: any user name, an API key as the password; ${tls.note})`;
  return [
    `Mailyard ${emulator.version}`,
    `HTTP:     ${emulator.urls.http}  (web UI, /v1 service API, /emulator control API, /openapi.json)`,
    `SMTP:     ${smtp}`,
    ...tls.lines,
    `API key:  ${emulator.defaultAccount.apiKey}  (account "${emulator.defaultAccount.name}")`,
    ...controlKeyLines(emulator, keyGiven),
    ...(emulator.config.scenarioDirs.length > 0
      ? [`Scenarios: ${emulator.services.scenarios.folders.dirs.join(', ')}  (the web UI's Scenarios screen runs their files, apps included)`]
      : []),
    `Data:     ${emulator.dataDir ?? 'in memory (--memory): nothing is kept after exit'}`,
    ...emulator.warnings.map((w) => `WARNING:  ${w}`),
  ];
}

function describeStartError(err: unknown, args: { host?: unknown; httpPort?: unknown; smtpPort?: unknown }): string {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e.code === 'EADDRINUSE') {
    const flag = e.port !== undefined && e.port !== 0 && String(e.port) === String(args.smtpPort ?? 2525) ? '--smtp-port' : '--http-port';
    const port = e.port ?? (flag === '--smtp-port' ? args.smtpPort : args.httpPort) ?? 4400;
    return `port ${String(port)} on ${String(e.address ?? args.host ?? '127.0.0.1')} is already in use (${flag}); choose another port, or 0 for a free one`;
  }
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${String(args.host)}: no such address on this machine (--host)`;
  if (e.code === 'EACCES') return `permission denied: ${e.message}`;
  return e.message ?? String(err);
}

async function serve(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parseServeArgs>;
  try {
    parsed = parseServeArgs(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`mailyard: ${err.message}`);
    io.err('Run `mailyard serve --help` for the options.');
    return 2;
  }
  if (parsed.help) {
    io.out(serveUsage());
    return 0;
  }
  let emulator: EmulatorHandle;
  try {
    emulator = await createEmulator({ ...parsed.config, uiDir: join(import.meta.dirname, '../renderer') });
  } catch (err) {
    io.err(`mailyard: could not start: ${describeStartError(err, parsed.config)}`);
    return 1;
  }
  for (const line of startupLines(emulator, parsed.config.controlKey !== undefined)) io.out(line);
  const signal = await io.stopSignal();
  io.out(`Stopping (${signal})...`);
  await emulator.close();
  io.out('Stopped.');
  return 0;
}

/** The `mailyard` command. Resolves with the exit status. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest, io);
    case 'scenario':
      return scenarioCommand(rest, io);
    case 'check-receiver':
      return checkReceiverCommand(rest, io);
    case 'snapshot':
      return snapshotCommand(rest, io);
    case 'import':
      return importCommand(rest, io);
    case 'export':
      return exportCommand(rest, io);
    case '--version':
    case '-v':
      io.out(VERSION);
      return 0;
    case '--help':
    case '-h':
    case 'help':
      io.out(USAGE);
      return 0;
    default:
      io.err(command ? `mailyard: unknown command "${command}"` : 'mailyard: a command is required');
      io.err(USAGE);
      return 2;
  }
}
