/**
 * The one rule Mailyard teaches about duplicate webhook requests, word for word wherever it is said:
 * the certifier, the UI and the docs (docs/webhooks.md#duplicates-and-webhook-id says why, and which
 * replay carries which webhook-id). test/unit/duplicates-rule.test.ts holds every place to it.
 */
export const DUPLICATES_RULE = 'Deduplicate by webhook-id: an event keeps one webhook-id through all its retries, and two different events never share one.';
