import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileMessages } from '../../src-shared/mbox';

export const IMPORT_USAGE = `Usage: mailyard import <path>... --url URL [options]

Captures messages from files in a running emulator as if they had arrived over SMTP (the same parsing,
search index and events): .eml files, folders of them (and of mbox files), and mbox files (mboxrd:
a body line ">From " is read back as "From "). Each message goes from its From header to the
recipients of its To and Cc headers. A message that cannot be captured is named (its file, and its
number in an mbox) with the reason; the others are captured; none is ever half stored.

Options:
  --url URL            the emulator (its HTTP URL)
  --account ID         capture for this account (default: the default account)
  --control-key KEY    the emulator's control key, when it listens beyond loopback (or MAILYARD_CONTROL_KEY)
  -h, --help           show this help
Exit status: 0 every message captured, 1 some could not be, 2 a bad command line.`;

export const EXPORT_USAGE = `Usage: mailyard export <file> --url URL [--query Q] [options]

Writes the captured messages a search finds (every message without --query) to <file> as an mbox
(mboxrd: a body line starting "From " is written ">From "), oldest first, each copy (one per
recipient) as its raw message byte for byte. mailyard import reads it back.

Options:
  --url URL            the emulator (its HTTP URL)
  --query Q            the Messages search, e.g. 'from:shop@example.com is:bounced' (see docs/search.md)
  --account ID         only this account's messages
  --control-key KEY    the emulator's control key, when it listens beyond loopback (or MAILYARD_CONTROL_KEY)
  -h, --help           show this help
Exit status: 0 written, 1 the emulator refused or could not be reached, 2 a bad command line.`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

const OPTIONS = {
  url: { type: 'string' },
  query: { type: 'string' },
  account: { type: 'string' },
  'control-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[], io: Io, usage: string, allowQuery: boolean) {
  try {
    const parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    if (parsed.values.help) return { help: true as const };
    const problem =
      parsed.positionals.length === 0
        ? 'give what to read or write'
        : parsed.values.url === undefined
          ? '--url is required: the running emulator'
          : !allowQuery && parsed.values.query !== undefined
            ? '--query is for mailyard export'
            : undefined;
    if (problem !== undefined) throw new Error(problem);
    return { help: false as const, values: parsed.values, paths: parsed.positionals };
  } catch (err) {
    io.err(`mailyard: ${(err as Error).message}`);
    io.err(usage);
    return undefined;
  }
}

/** A client of the control API at `url`, with the control key when one is given. */
function controlApi(url: string, key: string | undefined) {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> =>
    fetch(base + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

/** The error words of an answer that is not 2xx. */
async function refusal(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const json = JSON.parse(text) as { error?: string };
    if (typeof json.error === 'string') return json.error;
  } catch {}
  return `${res.status} ${text.slice(0, 300)}`;
}

/** The files a path stands for: itself, or every file under a folder (by name, sorted). */
async function filesOf(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.(eml|mbox|mbx)$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** `mailyard import <path>... --url URL`: resolves with the exit status. */
export async function importCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parse(argv, io, IMPORT_USAGE, false);
  if (parsed === undefined) return 2;
  if (parsed.help) {
    io.out(IMPORT_USAGE);
    return 0;
  }
  const call = controlApi(parsed.values.url!, parsed.values['control-key'] ?? io.env.MAILYARD_CONTROL_KEY);
  let captured = 0;
  let copies = 0;
  const failures: string[] = [];
  for (const path of parsed.paths) {
    let files: string[];
    try {
      files = await filesOf(path);
    } catch (err) {
      failures.push(`${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (err as Error).message}`);
      continue;
    }
    for (const file of files) {
      for (const { number, raw } of fileMessages(await readFile(file))) {
        const where = number === null ? file : `${file}: message ${number}`;
        try {
          const res = await call('POST', '/emulator/messages/import', {
            raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64'),
            account_id: parsed.values.account,
          });
          if (!res.ok) {
            failures.push(`${where}: ${await refusal(res)}`);
            continue;
          }
          const { data } = (await res.json()) as { data: { recipients: string[] } };
          captured++;
          copies += data.recipients.length;
        } catch (err) {
          io.err(`mailyard: could not reach ${parsed.values.url}: ${(err as Error).cause ?? (err as Error).message}`);
          return 1;
        }
      }
    }
  }
  for (const f of failures) io.err(`mailyard: not imported: ${f}`);
  io.out(
    `Imported ${captured} message${captured === 1 ? '' : 's'} (${copies} cop${copies === 1 ? 'y' : 'ies'})${failures.length ? `; ${failures.length} not imported` : ''}`,
  );
  return failures.length === 0 ? 0 : 1;
}

/** `mailyard export <file> --url URL [--query Q]`: resolves with the exit status. */
export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parse(argv, io, EXPORT_USAGE, true);
  if (parsed === undefined) return 2;
  if (parsed.help) {
    io.out(EXPORT_USAGE);
    return 0;
  }
  if (parsed.paths.length !== 1) {
    io.err('mailyard: give one file to write');
    return 2;
  }
  const file = parsed.paths[0]!;
  const call = controlApi(parsed.values.url!, parsed.values['control-key'] ?? io.env.MAILYARD_CONTROL_KEY);
  try {
    // The same file the Messages screen's Export downloads.
    const query = new URLSearchParams();
    if (parsed.values.query !== undefined) query.set('q', parsed.values.query);
    if (parsed.values.account !== undefined) query.set('account_id', parsed.values.account);
    const res = await call('GET', `/emulator/messages/export?${query}`);
    if (!res.ok) {
      io.err(`mailyard: ${parsed.values.url} refused the export: ${await refusal(res)}`);
      return 1;
    }
    const mbox = Buffer.from(await res.arrayBuffer());
    // Every line that starts "From " is an entry's first: a body's is quoted.
    const count = mbox.toString('latin1').match(/^From /gm)?.length ?? 0;
    const partial = `${file}.partial`;
    try {
      await writeFile(partial, mbox);
      await rename(partial, file);
    } catch (err) {
      await rm(partial, { force: true });
      io.err(`mailyard: could not write ${file}: ${(err as Error).message}`);
      return 1;
    }
    io.out(`Exported ${count} message${count === 1 ? '' : 's'} to ${file}`);
    return 0;
  } catch (err) {
    io.err(`mailyard: could not reach ${parsed.values.url}: ${(err as Error).cause ?? (err as Error).message}`);
    return 1;
  }
}
