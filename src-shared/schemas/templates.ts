import { z } from 'zod';
import { Timestamp } from './common';
import { Contents, countPlaceholders, SEND_LIMITS, TOO_MANY_PLACEHOLDERS } from './email';

/** `POST /v1/email/template`, as the real service's docs show it: a name, a subject and content, each may hold `{{variable}}` placeholders. */
export const TemplateBody = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
    subject: z.string().max(SEND_LIMITS.subjectLength, `must be at most ${SEND_LIMITS.subjectLength} characters`),
    content: Contents,
  })
  // A send fills every placeholder once per recipient: a template it would refuse is refused when saved.
  .refine((t) => countPlaceholders([t.subject, ...t.content.map((c) => c.value)]) <= SEND_LIMITS.placeholders, {
    path: ['content'],
    message: TOO_MANY_PLACEHOLDERS,
  })
  .meta({ id: 'TemplateBody' });
export type TemplateBody = z.infer<typeof TemplateBody>;

export const TemplateRecord = z
  .object({
    template_id: z.string(),
    name: z.string(),
    subject: z.string(),
    content: Contents,
    /** The names of its `{{variable}}` placeholders, in the order they first appear (subject, then content). */
    variables: z.array(z.string()),
    created_at: Timestamp,
  })
  .meta({ id: 'TemplateRecord' });
export type TemplateRecord = z.infer<typeof TemplateRecord>;

export const CreateTemplateResponse = z.object({ success: z.literal(true), message: z.string(), template_id: z.string() });

export const TemplateIdParams = z.strictObject({ template_id: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters') });

/** How many templates one account may keep. */
export const MAX_TEMPLATES = 1000;
