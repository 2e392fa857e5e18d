import { z } from 'zod';

/**
 * Mailpit's REST API (version 1) as its published swagger document describes it: PascalCase members,
 * Go's shapes (empty lists as [], a missing address as null). Mailyard answers these over its captured
 * copies (docs/mailpit.md); the schemas are the contract, and the types the service builds from them.
 */

export const MailpitAddress = z.object({ Name: z.string(), Address: z.string() });
export type MailpitAddress = z.infer<typeof MailpitAddress>;

export const MailpitAttachment = z.object({
  PartID: z.string(),
  FileName: z.string(),
  ContentType: z.string(),
  ContentID: z.string(),
  Size: z.number().int(),
  Checksums: z.object({ MD5: z.string(), SHA1: z.string(), SHA256: z.string() }),
});
export type MailpitAttachment = z.infer<typeof MailpitAttachment>;

/** One row of a list or search. */
export const MailpitMessageSummary = z.object({
  ID: z.string(),
  MessageID: z.string(),
  Read: z.boolean(),
  From: MailpitAddress.nullable(),
  To: z.array(MailpitAddress),
  Cc: z.array(MailpitAddress),
  Bcc: z.array(MailpitAddress),
  ReplyTo: z.array(MailpitAddress),
  Subject: z.string(),
  Created: z.string(),
  Username: z.string(),
  Tags: z.array(z.string()),
  Size: z.number().int(),
  Attachments: z.number().int(),
  Snippet: z.string(),
});
export type MailpitMessageSummary = z.infer<typeof MailpitMessageSummary>;

export const MailpitMessagesSummary = z.object({
  total: z.number().int(),
  unread: z.number().int(),
  count: z.number().int(),
  messages_count: z.number().int(),
  messages_unread: z.number().int(),
  start: z.number().int(),
  tags: z.array(z.string()),
  messages: z.array(MailpitMessageSummary),
});
export type MailpitMessagesSummary = z.infer<typeof MailpitMessagesSummary>;

export const MailpitMessage = z.object({
  ID: z.string(),
  MessageID: z.string(),
  From: MailpitAddress.nullable(),
  To: z.array(MailpitAddress),
  Cc: z.array(MailpitAddress),
  Bcc: z.array(MailpitAddress),
  ReplyTo: z.array(MailpitAddress),
  ReturnPath: z.string(),
  Subject: z.string(),
  ListUnsubscribe: z.object({ Header: z.string(), Links: z.array(z.string()), Errors: z.string(), HeaderPost: z.string() }),
  Date: z.string(),
  Tags: z.array(z.string()),
  Username: z.string(),
  Text: z.string(),
  HTML: z.string(),
  Size: z.number().int(),
  Inline: z.array(MailpitAttachment),
  Attachments: z.array(MailpitAttachment),
});
export type MailpitMessage = z.infer<typeof MailpitMessage>;

export const MailpitInfo = z.object({
  Version: z.string(),
  LatestVersion: z.string(),
  Database: z.string(),
  DatabaseSize: z.number().int(),
  Messages: z.number().int(),
  Unread: z.number().int(),
  Tags: z.record(z.string(), z.number().int()),
  RuntimeStats: z.object({
    Uptime: z.number().int(),
    Memory: z.number().int(),
    MessagesDeleted: z.number().int(),
    SMTPAccepted: z.number().int(),
    SMTPAcceptedSize: z.number().int(),
    SMTPRejected: z.number().int(),
    SMTPIgnored: z.number().int(),
  }),
});
export type MailpitInfo = z.infer<typeof MailpitInfo>;

export const MailpitWebUi = z.object({
  Label: z.string(),
  MessageRelay: z.object({
    Enabled: z.boolean(),
    SMTPServer: z.string(),
    ReturnPath: z.string(),
    AllowedRecipients: z.string(),
    BlockedRecipients: z.string(),
    RecipientAllowlist: z.string(),
    OverrideFrom: z.string(),
    PreserveMessageIDs: z.boolean(),
  }),
  SpamAssassin: z.boolean(),
  ChaosEnabled: z.boolean(),
  DuplicatesIgnored: z.boolean(),
  HideDeleteAllButton: z.boolean(),
});

export const MailpitSpamCheck = z.object({
  Error: z.string(),
  IsSpam: z.boolean(),
  Score: z.number(),
  Rules: z.array(z.object({ Name: z.string(), Score: z.number(), Description: z.string() })).nullable(),
});
export type MailpitSpamCheck = z.infer<typeof MailpitSpamCheck>;

export const MailpitLinkCheck = z.object({
  Errors: z.number().int(),
  Links: z.array(z.object({ URL: z.string(), StatusCode: z.number().int(), Status: z.string() })),
});
export type MailpitLinkCheck = z.infer<typeof MailpitLinkCheck>;

/** The most rows one list or search answers (Mailpit has no bound; its default is 50). */
export const MAILPIT_MAX_LIMIT = 1000;
/** The most ids one request names (a read-state change, a tag change, a delete). */
export const MAILPIT_MAX_IDS = 10_000;
/** A tag's longest name, and the most tags one copy carries. */
export const MAILPIT_MAX_TAG_LENGTH = 100;
export const MAILPIT_MAX_TAGS = 50;

const count = (name: string, fallback: number, max: number) =>
  z.preprocess(
    (v) => (v === undefined || v === '' ? fallback : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
    z
      .number({ error: `${name} must be a whole number` })
      .int()
      .min(0)
      .max(max, { error: `${name} must be at most ${max}` }),
  );

export const MailpitPageQuery = z.object({ start: count('start', 0, Number.MAX_SAFE_INTEGER), limit: count('limit', 50, MAILPIT_MAX_LIMIT) });
/** `tz` is taken and ignored: dates in a search are UTC unless they carry an offset. */
export const MailpitSearchQuery = MailpitPageQuery.extend({ query: z.string().optional(), tz: z.string().optional() });
export const MailpitQueryOnly = z.object({ query: z.string().optional(), tz: z.string().optional() });

const Ids = z.array(z.string()).max(MAILPIT_MAX_IDS, { error: `IDs may name at most ${MAILPIT_MAX_IDS} messages` });
/** A tag's name: Mailpit's rules, for its API and the control API alike. */
export const MessageTag = z
  .string()
  .trim()
  .min(1, { error: 'a tag must not be empty' })
  .max(MAILPIT_MAX_TAG_LENGTH, { error: `a tag is at most ${MAILPIT_MAX_TAG_LENGTH} characters` });

export const MailpitReadBody = z.object({ IDs: Ids.optional(), Read: z.boolean().optional(), Search: z.string().optional() });
export const MailpitIdsBody = z.object({ IDs: Ids.optional() });
export const MailpitSetTagsBody = z.object({
  IDs: Ids,
  Tags: z
    .array(MessageTag)
    .max(MAILPIT_MAX_TAGS, { error: `a message carries at most ${MAILPIT_MAX_TAGS} tags` })
    .optional(),
});
export const MailpitRenameTagBody = z.object({ Name: MessageTag });
export const MailpitIdParams = z.object({ ID: z.string().min(1) });
export const MailpitPartParams = MailpitIdParams.extend({ PartID: z.string().min(1) });
export const MailpitTagParams = z.object({ Tag: z.string().min(1) });

/** Mailpit's send (`POST /api/v1/send`): addresses as `{Email, Name}`, Bcc as bare addresses, attachments in base64. */
const SendAddress = z.object({ Email: z.string().min(1, { error: 'Email must not be empty' }), Name: z.string().optional() });
export const MailpitSendBody = z.object({
  From: SendAddress,
  To: z.array(SendAddress).optional(),
  Cc: z.array(SendAddress).optional(),
  Bcc: z.array(z.string()).optional(),
  ReplyTo: z.array(SendAddress).optional(),
  Subject: z.string().optional(),
  Text: z.string().optional(),
  HTML: z.string().optional(),
  Headers: z.record(z.string(), z.string()).optional(),
  Tags: z
    .array(MessageTag)
    .max(MAILPIT_MAX_TAGS, { error: `a message carries at most ${MAILPIT_MAX_TAGS} tags` })
    .optional(),
  Attachments: z
    .array(z.object({ Content: z.string(), Filename: z.string(), ContentType: z.string().optional(), ContentID: z.string().optional() }))
    .optional(),
});
export type MailpitSendBody = z.infer<typeof MailpitSendBody>;

/** Mailpit's release body: the addresses to relay the message to. */
export const MailpitReleaseBody = z.object({ To: z.array(z.string()).max(MAILPIT_MAX_IDS).optional() });

const HtmlCheckResult = z.object({
  Name: z.string(),
  Platform: z.string(),
  Family: z.string(),
  Version: z.string(),
  Support: z.enum(['yes', 'no', 'partial']),
  NoteNumber: z.string(),
});
const HtmlCheckScore = z.object({ Found: z.number().int(), Supported: z.number(), Partial: z.number(), Unsupported: z.number() });
export const MailpitHtmlCheck = z.object({
  Warnings: z.array(
    z.object({
      Slug: z.string(),
      Title: z.string(),
      Description: z.string(),
      URL: z.string(),
      Category: z.enum(['css', 'html']),
      Tags: z.array(z.string()),
      Keywords: z.string(),
      Results: z.array(HtmlCheckResult),
      NotesByNumber: z.record(z.string(), z.string()),
      Score: HtmlCheckScore,
    }),
  ),
  Platforms: z.record(z.string(), z.array(z.string())),
  Total: z.object({ Tests: z.number().int(), Nodes: z.number().int(), Supported: z.number(), Partial: z.number(), Unsupported: z.number() }),
});
export type MailpitHtmlCheck = z.infer<typeof MailpitHtmlCheck>;

/** One of Mailpit's chaos triggers: the SMTP reply code the sink answers, and in how many of 100 commands. */
export const ChaosTrigger = z.object({
  ErrorCode: z.number().int().describe('The SMTP reply code (400-599)'),
  Probability: z.number().int().describe('In how many of 100 commands it answers so (0-100; 0: never)'),
});
export type ChaosTrigger = z.infer<typeof ChaosTrigger>;

/** Mailpit's chaos triggers: `Sender` answers MAIL FROM, `Recipient` RCPT TO, `Authentication` AUTH. */
export const ChaosTriggers = z.object({ Sender: ChaosTrigger, Recipient: ChaosTrigger, Authentication: ChaosTrigger });
export type ChaosTriggers = z.infer<typeof ChaosTriggers>;

/** Triggers to set: each replaces all (a trigger left out is off, its code the default), as in Mailpit. */
export const ChaosTriggersInput = z.object({
  Sender: ChaosTrigger.partial().optional(),
  Recipient: ChaosTrigger.partial().optional(),
  Authentication: ChaosTrigger.partial().optional(),
});
export type ChaosTriggersInput = z.infer<typeof ChaosTriggersInput>;

/** The control API's chaos (`/emulator/chaos`): whether it is on (`--enable-chaos`) and its triggers. */
export const ChaosState = z.object({ enabled: z.boolean(), triggers: ChaosTriggers });
export type ChaosState = z.infer<typeof ChaosState>;
