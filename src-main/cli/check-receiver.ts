import { parseArgs } from 'node:util';
import { EMAIL_EVENT_KINDS } from '../../src-shared/events';
import { RECEIVER_CHECK_LIMITS, ReceiverCheckBody, type ReceiverCheckReport } from '../../src-shared/schemas/receiver-check';
import { EmulatorConfigSchema } from '../core/config';
import { attemptTransport } from '../core/emulator/delivery';
import { lookupHost } from '../core/net/reachability';
import { checkReceiver } from '../core/services/receiver-check/receiver-check.service';
import { errorMap } from '../core/zod-errors';

export const CHECK_RECEIVER_USAGE = `Usage: mailyard check-receiver <url> [options]

Sends your webhook receiver what the service will send it, and grades each check with its request and
answer: every event kind of the subscription answered 2xx and within a bound, the same event twice, events
out of order, two events of one kind for one message, unknown extra fields, the secret header missing and wrong (401 or 403 expected), and with a
signing secret a bad signature and a stale timestamp (a 4xx expected). Point it at your own receiver.
With --effects-url, the duplicate and the pairs of different events are also graded on what the
receiver did with them (acted on a duplicate once, on each different event); without it, only their
answers are, and the report says processing was not observed.
Exit status: 0 every check passed, 1 a check failed, 2 a bad command line.

Options:
  --header "Name: value"   a header your webhook is configured with, e.g. its shared secret (repeat for more)
  --secret-header NAME     which header is the secret (default: the first named like one: secret, token, auth, key)
  --method M               POST (default), GET, PUT, DELETE or PATCH
  --events LIST            the subscription's kinds, comma-separated (default: all ${EMAIL_EVENT_KINDS.length})
  --payload-format SHAPE   spec (default) or mailer-events
  --signing-secret SECRET  the account's Standard Webhooks secret (whsec_...): requests are signed, signatures checked
  --ack-within MS          "acknowledged quickly" means within this (default ${RECEIVER_CHECK_LIMITS.defaultAckWithinMs})
  --effects-url URL        a GET your receiver answers with {"processed": N}, the events it has acted on so far
  --json                   print the JSON report on stdout
  -h, --help               show this help`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

class BadUsage extends Error {}

/** The flag that gave each field of the check, to name it in an error. */
const FLAG_OF: Record<string, string> = {
  url: 'the URL',
  method: '--method',
  headers: '--header',
  secret_header: '--secret-header',
  events: '--events',
  payload_format: '--payload-format',
  signing_secret: '--signing-secret',
  ack_within_ms: '--ack-within',
  effects_url: '--effects-url',
};

/** `Name: value` as a header pair. */
function headerPair(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new BadUsage(`--header must be "Name: value", got "${text}"`);
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      header: { type: 'string', multiple: true },
      'secret-header': { type: 'string' },
      method: { type: 'string' },
      events: { type: 'string' },
      'payload-format': { type: 'string' },
      'signing-secret': { type: 'string' },
      'ack-within': { type: 'string' },
      'effects-url': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true as const };
  if (positionals.length !== 1) throw new BadUsage(positionals.length === 0 ? 'give the URL of your receiver' : 'give one URL');
  const ack = values['ack-within'];
  if (ack !== undefined && !/^\d+$/.test(ack)) throw new BadUsage(`--ack-within must be a number of milliseconds, got "${ack}"`);
  const body = {
    url: positionals[0],
    method: values.method?.toUpperCase(),
    headers: Object.fromEntries((values.header ?? []).map(headerPair)),
    secret_header: values['secret-header'],
    events: values.events?.split(',').map((k) => k.trim()),
    payload_format: values['payload-format'],
    signing_secret: values['signing-secret'],
    ack_within_ms: ack === undefined ? undefined : Number(ack),
    effects_url: values['effects-url'],
  };
  const result = ReceiverCheckBody.safeParse(body, { error: errorMap });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = String(issue.path[0] ?? '');
    throw new BadUsage(`${FLAG_OF[field] ?? 'the command line'}${issue.path.length > 1 ? ` (${issue.path.slice(1).join('.')})` : ''} ${issue.message}`);
  }
  return { help: false as const, options: result.data, json: values.json === true };
}

/** What a passed check saw: its answers (the quick-ack check: how many, and the slowest), what processing grew by. */
function evidence(c: ReceiverCheckReport['checks'][number]): string {
  if (c.id === 'quick-ack') return `: ${c.detail}`;
  if (c.exchanges.length === 0) return '';
  const answers = c.exchanges.map((e) => `${e.response?.status} in ${e.duration_ms} ms`).join(', ');
  return `: ${answers}${c.processed?.observed != null ? `, processed +${c.processed.observed}` : ''}`;
}

/** The report in lines: what was checked, each check's verdict, the failures' evidence, the total. */
export function reportLines(report: ReceiverCheckReport): string[] {
  const how = [
    report.method,
    `${report.events.length} event kind${report.events.length === 1 ? '' : 's'}`,
    `payload ${report.payload_format}`,
    report.secret_header ? `secret header ${report.secret_header}` : 'no secret header',
    report.signed ? 'signed' : 'unsigned',
    report.effects_url ? `effects ${report.effects_url}` : 'no effects URL',
  ].join(', ');
  const lines = [`Checking ${report.url} (${how})`];
  const width = Math.max(...report.checks.map((c) => c.id.length));
  for (const c of report.checks) {
    const mark = c.status === 'passed' ? 'ok  ' : c.status === 'failed' ? 'FAIL' : 'skip';
    lines.push(`  ${mark} ${c.id.padEnd(width)}  ${c.title}${c.status === 'passed' ? evidence(c) : ''}`);
    if (c.status === 'failed') lines.push(`       expected ${c.expected}`, `       got ${c.detail}`);
    // A passed check's note (processing not observed) and a skipped one's reason.
    else if (c.detail && c.id !== 'quick-ack') lines.push(`       ${c.detail}`);
  }
  const { passed, failed, skipped } = report.counts;
  const failedIds = report.checks.filter((c) => c.status === 'failed').map((c) => c.id);
  // A failure names its checks first.
  const tally = failed > 0 ? `${failed} failed (${failedIds.join(', ')}), ${passed} passed` : `${passed} passed, 0 failed`;
  lines.push(`${report.passed ? 'PASS' : 'FAIL'}: ${tally}, ${skipped} skipped (${report.duration_ms} ms)`);
  return lines;
}

/** `mailyard check-receiver <url>`: resolves with the exit status. */
export async function checkReceiverCommand(argv: string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.err(`mailyard: ${(err as Error).message}`);
    io.err(CHECK_RECEIVER_USAGE);
    return 2;
  }
  if (parsed.help) {
    io.out(CHECK_RECEIVER_USAGE);
    return 0;
  }
  // Sent as a default emulator's dispatcher sends (its time-out and agent); from the command line no
  // URL policy applies: it is the user's own command, like curl.
  const transport = attemptTransport(EmulatorConfigSchema.parse({ memory: true }), lookupHost);
  const report = await checkReceiver(parsed.options, transport);
  const say = parsed.json ? io.err : io.out;
  for (const line of reportLines(report)) say(line);
  if (parsed.json) io.out(JSON.stringify(report, null, 2));
  return report.passed ? 0 : 1;
}
