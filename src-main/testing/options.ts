/**
 * startMailyard's options checked before anything starts, and its failures said in one line naming
 * the option (as the CLI says them), never a dump of validation issues.
 */
import { type EmulatorConfigInput, EmulatorConfigSchema } from '../core/config';
import { errorMap } from '../core/zod-errors';

/** startMailyard or connectMailyard could not start or attach: `option` names what was wrong, when one was. */
export class MailyardStartError extends Error {
  override name = 'MailyardStartError';
  constructor(
    message: string,
    readonly option?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Ports fetch() refuses to connect to (the Fetch standard's "bad ports"): an emulator there could not
 * be reached by the helpers or by most code under test.
 */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Checks the core's options as createEmulator would, and says the first problem in one line. */
export function checkOptions(config: EmulatorConfigInput): void {
  const result = EmulatorConfigSchema.safeParse(config, { error: errorMap });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const option = issue.path.map(String).join('.') || 'options';
    const given = issue.path.length > 0 ? (config as Record<string, unknown>)[String(issue.path[0])] : undefined;
    const shown = given === undefined ? '' : `, got ${JSON.stringify(given)}`;
    const message =
      issue.code === 'unrecognized_keys'
        ? `startMailyard: unknown option ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : `startMailyard: invalid option ${option}: ${issue.message}${shown}`;
    throw new MailyardStartError(message, issue.code === 'unrecognized_keys' ? issue.keys[0] : option);
  }
  const port = result.data.httpPort;
  if (FETCH_BAD_PORTS.has(port)) {
    throw new MailyardStartError(
      `startMailyard: httpPort ${port} is a port fetch() refuses to connect to (a "bad port" of the Fetch standard); pick another, or 0 for a free one`,
      'httpPort',
    );
  }
}

/** A listener that could not start, said with its port and option; other errors pass through. */
export function startFailure(err: unknown, config: { httpPort?: unknown; smtpPort?: unknown }): unknown {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== 'EADDRINUSE' && e?.code !== 'EACCES') return err;
  const port = e.port ?? Number(/:(\d+)\s*$/.exec(e.message)?.[1]);
  const option = Number(config.smtpPort) === port ? 'smtpPort' : 'httpPort';
  const why = e.code === 'EADDRINUSE' ? 'is already in use' : 'needs privileges this process lacks';
  return new MailyardStartError(`startMailyard: ${option} ${port} ${why}; pick another, or 0 for a free one`, option, { cause: err });
}
