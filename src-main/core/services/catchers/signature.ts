import { timingSafeEqual } from 'node:crypto';
import type { CatcherRequest } from '../../../../src-shared/schemas/catchers';
import { signWebhook } from '../../dispatch/sign';

/** How far a `webhook-timestamp` may be from wall time before Standard Webhooks receivers reject it. */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

/**
 * Whether a request's Standard Webhooks signature verifies with `secret`, as a receiver using the
 * `standardwebhooks` package would check it: any of the space-separated `v1,` signatures matches the
 * HMAC of `{webhook-id}.{webhook-timestamp}.{body}`, and the timestamp is within the tolerance.
 */
export function signatureVerdict(secret: string | null, headers: Record<string, string>, body: Buffer, nowMs: number): CatcherRequest['signature'] {
  const header = headers['webhook-signature'];
  if (header === undefined) return 'unsigned';
  if (secret === null) return 'no_secret';
  const id = headers['webhook-id'] ?? '';
  const timestamp = Number(headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp)) return 'invalid';
  const expected = Buffer.from(signWebhook([secret], id, timestamp, body.toString('utf8')));
  const matches = header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return 'invalid';
  return Math.abs(nowMs / 1000 - timestamp) > TIMESTAMP_TOLERANCE_S ? 'stale' : 'valid';
}
