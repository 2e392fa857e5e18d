import { DUPLICATES_RULE } from '../../../../src-shared/duplicates';
import type { ReceiverCheckResult } from '../../../../src-shared/schemas/receiver-check';
import type { HttpAttemptRequest, HttpAttemptResult } from '../../dispatch/attempt';

/** The receiver's effects count (`processed`), or why it could not be read, in words. */
export type EffectsReading = { processed: number } | { error: string };

/**
 * Reads the effects URL: a GET the receiver answers 2xx with JSON `{"processed": N}`, N the events it
 * has acted on so far (a whole number, 0 or more). Sent as a check's requests are (`send`).
 */
export async function readEffects(
  url: string,
  runner: { send: (request: HttpAttemptRequest) => Promise<HttpAttemptResult>; userAgent: string },
): Promise<EffectsReading> {
  const result = await runner.send({ method: 'GET', url, headers: { accept: 'application/json', 'user-agent': runner.userAgent }, body: '' });
  const where = `the effects URL (GET ${url})`;
  if (!result.response) return { error: `${where} got no answer: ${result.error?.message ?? 'unknown error'}` };
  const { status, body } = result.response;
  const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, 120);
  if (status < 200 || status >= 300) return { error: `${where} answered ${status}${excerpt ? ` ${excerpt}` : ''}` };
  let processed: unknown;
  try {
    processed = (JSON.parse(body) as { processed?: unknown } | null)?.processed;
  } catch {
    processed = undefined;
  }
  if (typeof processed !== 'number' || !Number.isSafeInteger(processed) || processed < 0) {
    return { error: `${where} answered ${status} ${excerpt || '(an empty body)'}, not {"processed": N} with N a whole number of events` };
  }
  return { processed };
}

/** How a check that judges processing came out: what it records, and a failure or a note in words. */
export interface ProcessingVerdict {
  processed: NonNullable<ReceiverCheckResult['processed']>;
  /** Why it fails, when it does. */
  problem?: string;
  /** What a passing check says besides: that processing was not observed. */
  note?: string;
}

/**
 * Grades what a receiver did with a check's requests, of which a correct receiver acts on `acts`:
 * `readings` are its effects count before and after them (undefined: it has no effects URL).
 */
export function judgeProcessing(acts: number, readings: { before: EffectsReading; after: EffectsReading } | undefined): ProcessingVerdict {
  const correct = acts === 1 ? 'acts on the event once' : `acts on each of the ${acts} events`;
  if (readings === undefined) {
    return {
      processed: { expected: acts, observed: null },
      note: `Only the answers were graded: whether the receiver ${correct} was not observed (give an effects URL, a GET it answers with {"processed": N}).`,
    };
  }
  const { before, after } = readings;
  if ('error' in before || 'error' in after) {
    const error = 'error' in before ? before.error : (after as { error: string }).error;
    return { processed: { expected: acts, observed: null }, problem: `could not observe processing: ${error}` };
  }
  const grew = after.processed - before.processed;
  const processed = { expected: acts, observed: grew };
  if (grew === acts) return { processed };
  const what = grew > acts ? 'it acted on an event more than once' : 'it left out an event it had acknowledged';
  return {
    processed,
    problem: `processed went from ${before.processed} to ${after.processed} (${signed(grew)}; a receiver that ${correct} makes ${signed(acts)}): ${what}. ${DUPLICATES_RULE}`,
  };
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));
