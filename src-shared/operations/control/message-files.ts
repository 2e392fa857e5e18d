import { z } from 'zod';
import type { MessageChecks, SpamCheck } from '../../schemas/checks';
import { dataResponse } from '../../schemas/common';
import { MessageIdParams } from '../../schemas/messages';
import { defineOperations, defineRoutes } from '../operation';

const LinkProblem = z.object({
  code: z.enum(['empty', 'unsafe_scheme', 'relative', 'insecure', 'invalid', 'duplicate', 'tracked', 'tracking_params']),
  level: z.enum(['error', 'warning', 'info']),
  message: z.string(),
});

/** `MessageChecks` (schemas/checks.ts) as a schema, for the document; the compiler holds the two together below. */
const MessageChecksSchema = z
  .object({
    id: z.string(),
    has_html: z.boolean(),
    html: z.string().nullable(),
    links: z.array(z.object({ href: z.string(), url: z.string(), text: z.string(), problems: z.array(LinkProblem) })),
    remote_images: z.number().int(),
    compatibility: z.object({
      source: z.string(),
      findings: z.array(z.object({ feature: z.string(), level: z.enum(['error', 'warning']), clients: z.array(z.string()), notes: z.array(z.string()) })),
      families: z.array(z.object({ family: z.string(), errors: z.number().int(), warnings: z.number().int() })),
    }),
  })
  .meta({ id: 'MessageChecks' });

const SpamCheckSchema = z
  .discriminatedUnion('status', [
    z.object({
      status: z.literal('ok'),
      score: z.number(),
      threshold: z.number(),
      is_spam: z.boolean(),
      rules: z.array(z.object({ name: z.string(), score: z.number(), description: z.string() })),
      version: z.string().nullable(),
      spam_filter: z.boolean().meta({
        description: '`--spam-filter spamassassin` is on: a send scored at or over the threshold gets a spam event. Off, the score changed nothing.',
      }),
    }),
    z.object({ status: z.literal('unavailable'), reason: z.string() }),
    z.object({ status: z.literal('error'), reason: z.string() }),
  ])
  .meta({ id: 'SpamCheck' });

// The schemas say what the interfaces say, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const checksAgree: Same<z.infer<typeof MessageChecksSchema>, MessageChecks> = true;
const spamAgrees: Same<z.infer<typeof SpamCheckSchema>, SpamCheck> = true;
void checksAgree;
void spamAgrees;

/** A captured message's Checks tab, as JSON (`/emulator/messages/{id}/checks` and `/spam`). */
export const messageCheckOperations = defineOperations({
  getMessageChecks: {
    method: 'GET',
    path: '/emulator/messages/{id}/checks',
    summary: "A message's links with their problems, its remote images, and its HTML against email clients (caniemail's data)",
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    response: dataResponse(MessageChecksSchema),
    errors: [404],
  },
  getMessageSpamScore: {
    method: 'GET',
    path: '/emulator/messages/{id}/spam',
    summary: "SpamAssassin's score of a message with the rules that fired, or why there is none (spamd starts on first use)",
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    response: dataResponse(SpamCheckSchema),
    errors: [404],
  },
});

const binary = { type: 'string', format: 'binary' };

/** A captured message's routes that answer files or a preview rather than JSON: in the document, handled by hand. */
export const messageFileRoutes = defineRoutes({
  downloadMessageRaw: {
    method: 'GET',
    path: '/emulator/messages/{id}/raw',
    summary: 'The message as received, byte for byte, as a .eml download',
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    errors: [404],
    answer: { mediaType: 'message/rfc822', description: 'The raw message (Content-Disposition: attachment)', schema: { type: 'string' } },
  },
  previewMessageHtml: {
    method: 'GET',
    path: '/emulator/messages/{id}/html',
    summary:
      "The message's HTML for the preview: no tracking pixel, under a CSP that runs nothing; remote images, style sheets and fonts only with images=allow",
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams,
    query: z.object({ images: z.enum(['allow', 'block']).default('block') }),
    errors: [404],
    answer: { mediaType: 'text/html', description: 'The HTML part (a short note when the message has none)', schema: { type: 'string' } },
  },
  downloadMessageAttachment: {
    method: 'GET',
    path: '/emulator/messages/{id}/attachments/{n}',
    summary: "One of the message's attachments, by its index (from 0), as a download with its own content type",
    tag: 'Messages',
    auth: 'none',
    params: MessageIdParams.extend({
      n: z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), z.number({ error: 'must be an attachment index' }).int().min(0)),
    }),
    errors: [404],
    answer: { mediaType: '*/*', description: "The attachment's bytes, under its own Content-Type (Content-Disposition: attachment)", schema: binary },
  },
});
