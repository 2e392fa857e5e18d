import { rename, rm, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

export const SNAPSHOT_USAGE = `Usage: mailyard snapshot save <file> --url URL [options]

Saves a snapshot of a running emulator's whole state (messages, events, deliveries, accounts, webhooks,
domains, mailers, templates, rules, catchers, the clock) to <file>, written while it runs. Start from it
with: mailyard serve --from-snapshot <file> (with --memory, or an empty --data-dir); the file is only read.
A snapshot holds the accounts' API keys, webhook signing secrets, DKIM private keys and mailer passwords
and OAuth tokens (with the key that seals them): keep it as you keep those, or leave them out.

Options:
  --url URL            the emulator (its HTTP URL, as its start-up line prints it)
  --without-secrets    leave secrets out: new API keys and DKIM keys, no signing secrets, no mailer passwords or tokens
  --control-key KEY    the emulator's control key, when it listens beyond loopback (or MAILYARD_CONTROL_KEY)
  -h, --help           show this help
Exit status: 0 saved, 1 the emulator refused or could not be reached, 2 a bad command line.`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

/** `mailyard snapshot save <file> --url URL`: resolves with the exit status. */
export async function snapshotCommand(argv: string[], io: Io): Promise<number> {
  let parsed: { values: { url?: string; 'without-secrets'?: boolean; 'control-key'?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        'without-secrets': { type: 'boolean' },
        'control-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`mailyard: ${(err as Error).message}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(SNAPSHOT_USAGE);
    return 0;
  }
  const [action, file, ...extra] = positionals;
  const problem =
    action !== 'save'
      ? 'the action is save: mailyard snapshot save <file> --url URL'
      : file === undefined || extra.length > 0
        ? 'give one file to save to'
        : values.url === undefined
          ? '--url is required: the running emulator'
          : undefined;
  if (problem !== undefined) {
    io.err(`mailyard: ${problem}`);
    io.err(SNAPSHOT_USAGE);
    return 2;
  }
  const key = values['control-key'] ?? io.env.MAILYARD_CONTROL_KEY;
  const url = `${values.url!.replace(/\/+$/, '')}/emulator/snapshot?secrets=${values['without-secrets'] ? 'false' : 'true'}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  } catch (err) {
    io.err(`mailyard: could not reach ${values.url}: ${(err as Error).cause ?? (err as Error).message}`);
    return 1;
  }
  if (!res.ok) {
    io.err(`mailyard: ${values.url} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    return 1;
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  // Written beside and renamed: an interrupted save never leaves half a snapshot under the name.
  const partial = `${file}.partial`;
  try {
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file!);
  } catch (err) {
    await rm(partial, { force: true });
    io.err(`mailyard: could not write ${file}: ${(err as Error).message}`);
    return 1;
  }
  io.out(
    `Saved a snapshot of ${values.url} to ${file} (${bytes.length.toLocaleString('en')} bytes${values['without-secrets'] ? ', without secrets' : '; it holds API keys and other secrets'})`,
  );
  return 0;
}
