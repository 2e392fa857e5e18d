import { z } from 'zod';
import { PAYLOAD_FORMATS } from '../payload-format';
import { ApiKey, Timestamp } from './common';

export const AccountRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    api_key: z.string(),
    is_default: z.boolean(),
    created_at: Timestamp,
    /** Standard Webhooks secret; null when webhook requests are not signed. */
    signing_secret: z.string().nullable(),
    /** The secret a rotation replaced, which still signs every request beside the new one until `previous_secret_until`; null when none does. */
    previous_signing_secret: z.string().nullable(),
    /** When the previous secret stops signing, on the emulator clock; null when none signs. */
    previous_secret_until: Timestamp.nullable(),
    /** The shape of its email event webhook bodies: `spec` (the default) or `mailer-events` (the newer guide's). */
    payload_format: z.enum(PAYLOAD_FORMATS),
  })
  .meta({ id: 'Account' });
export type AccountRecord = z.infer<typeof AccountRecord>;

export const CreateAccountBody = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    api_key: ApiKey.optional(),
  })
  .meta({ id: 'CreateAccountBody' });
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

export const PayloadFormatSchema = z.enum(PAYLOAD_FORMATS, { error: `must be one of ${PAYLOAD_FORMATS.join(', ')}` });

export const SetPayloadFormatBody = z.strictObject({ payload_format: PayloadFormatSchema }).meta({ id: 'SetPayloadFormatBody' });

export const StoreSpace = z
  .object({
    full: z.boolean(),
    /** When the disk was first found full, while it is. */
    since: Timestamp.nullable(),
  })
  .meta({ id: 'StoreSpace' });
export type StoreSpace = z.infer<typeof StoreSpace>;

export const Health = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    started_at: Timestamp,
    urls: z.object({ http: z.string(), smtp: z.string().nullable() }),
    ports: z.object({ http: z.number().int(), smtp: z.number().int().nullable() }),
    /** `null` when running with `--memory`. */
    data_dir: z.string().nullable(),
    /**
     * Whether the disk of the data directory had room at the last writes. While `full`, sends answer
     * 507 and SMTP 451, and the workers wait; they go on by themselves once there is room.
     */
    store: StoreSpace,
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof Health>;

/** What `POST /emulator/reset` removed, by kind, and the accounts it kept. */
export const ResetResult = z
  .object({
    messages: z.number().int(),
    deliveries: z.number().int(),
    webhooks: z.number().int(),
    domains: z.number().int(),
    mailers: z.number().int(),
    inbound_domains: z.number().int(),
    inbound_usernames: z.number().int(),
    templates: z.number().int(),
    simulation_rules: z.number().int(),
    suppressions: z.number().int(),
    scheduled_events: z.number().int(),
    catchers: z.number().int(),
    /** Accounts removed: every one but the default and the `--api-key` account. */
    accounts_removed: z.number().int(),
    /** The ids of the accounts kept, with their API keys and signing secrets. */
    accounts_kept: z.array(z.string()),
  })
  .meta({ id: 'ResetResult' });
export type ResetResult = z.infer<typeof ResetResult>;

/** What an account's deletion removed, by kind (each kind's rows of that account only). */
export const AccountRemovedCounts = ResetResult.pick({
  messages: true,
  deliveries: true,
  webhooks: true,
  domains: true,
  mailers: true,
  inbound_domains: true,
  inbound_usernames: true,
  templates: true,
  suppressions: true,
  scheduled_events: true,
  catchers: true,
});

export const AccountDeleted = z
  .object({
    account_id: z.string(),
    name: z.string(),
    /** How many of each kind went with it; their events, attempts, tags and search entries went too. */
    removed: AccountRemovedCounts,
  })
  .meta({ id: 'AccountDeleted' });
export type AccountDeleted = z.infer<typeof AccountDeleted>;
