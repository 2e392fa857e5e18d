/**
 * The scenario file, version 1: what a QA run does (outcomes, webhook delivery faults,
 * traffic, clock, app under test) and the terms of its verdict (expectations). One zod schema: the
 * runner validates with it and schemas/scenario.schema.json is generated from it (z.toJSONSchema).
 * Every limit is here, named (SCENARIO_LIMITS), and in docs/scenarios.md.
 */
import { z } from 'zod';
import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../events';

export const SCENARIO_LIMITS = {
  /** Emulated duration of a run. */
  maxDurationMs: 7 * 24 * 3600_000,
  maxOutcomes: 50,
  maxTrafficCount: 100_000,
  maxRatePerSecond: 1000,
  maxClockSpeed: 1000,
  maxOutages: 20,
  maxAppTimeoutMs: 300_000,
} as const;

/** A run's emulated duration when the scenario gives none (10 minutes). */
export const DEFAULT_SCENARIO_DURATION_MS = 600_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250ms`, `30s`, `10m`, `2h`, `1d` (or a number of milliseconds) to milliseconds; null when malformed. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

/** A duration: `30s`, `10m`, `1h30m` is not taken; at least 0, at most `max`. Parsed to milliseconds. */
function duration(max: number = SCENARIO_LIMITS.maxDurationMs) {
  return z
    .union([z.string(), z.number()], { error: 'must be a duration such as "30s", "10m", "2h" or a number of milliseconds' })
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `must be a duration such as "30s", "10m", "2h" (got ${JSON.stringify(v)})` });
        return z.NEVER;
      }
      if (ms < 0) ctx.addIssue({ code: 'custom', message: `must not be negative (got ${JSON.stringify(v)})` });
      else if (ms > max) ctx.addIssue({ code: 'custom', message: `must be at most ${max / 3_600_000}h (got ${JSON.stringify(v)})` });
      return ms;
    })
    .meta({ description: 'A duration: "250ms", "30s", "10m", "2h", "1d", or milliseconds' });
}

const share = z
  .number({ error: 'must be a number from 0 to 1 (a share: 0.03 is 3%)' })
  .min(0, 'must be at least 0')
  .max(1, 'must be at most 1 (100%); a share is a fraction: 0.03 is 3%');

/**
 * The fates an outcome can give a recipient, by the event kind each ends in, in the order the schema
 * and the docs list them. Every kind has its entry: a new kind is a compile error here until it says
 * whether an outcome can give it (the plan's eventsFor then names each fate it must fire).
 */
const FATES_BY_KIND = {
  delivery: ['delivered'],
  bounce: ['hard_bounce', 'soft_bounce', 'deferred'],
  spam: ['spam'],
  unsubscribe: ['unsubscribe'],
  generation_failure: ['generation_failure'],
  generation_rejection: ['generation_rejection'],
  policy_rejection: ['policy_rejection'],
  smtp_error: ['smtp_error'],
  phishing: ['phishing'],
  // An outcome's `opens` and `clicks` give these, after its delivery.
  open: [],
  click: [],
  // About a mailer's IMAP connection, not a recipient.
  imap_error: [],
} as const satisfies Record<EmailEventKind, readonly string[]>;

// Read from the table's own keys: a kind missing from it is one error above, not one here and at each use.
export type ScenarioFate = (typeof FATES_BY_KIND)[keyof typeof FATES_BY_KIND][number];
/** The fates an outcome gives a recipient. */
export const SCENARIO_FATES = Object.values(FATES_BY_KIND).flat() as [ScenarioFate, ...ScenarioFate[]];

const engagement = z.strictObject({ share, after: duration().optional() });

export const ScenarioOutcome = z.strictObject({
  /** Which recipients: a share of them (chosen by address, so every send to one address has one fate), or a pattern (`*` any run). */
  match: z
    .strictObject({ share: share.optional(), pattern: z.string().min(1).max(320).optional() })
    .refine((m) => (m.share === undefined) !== (m.pattern === undefined), 'must be { share: 0.03 } or { pattern: "*@bounce.example" }'),
  fate: z.enum(SCENARIO_FATES, { error: `must be one of ${SCENARIO_FATES.join(', ')}` }),
  /** How long after the send the fate's event comes (default 2s; a spam complaint or unsubscribe: after the delivery). */
  after: duration().optional(),
  /** soft_bounce / deferred: how many soft bounces before `then`. */
  retries: z.number().int('must be a whole number').min(0, 'must be at least 0').max(20, 'must be at most 20').optional(),
  /** soft_bounce / deferred: how it ends after its retries (default delivered). */
  then: z.enum(['bounce', 'delivered'], { error: 'must be bounce or delivered' }).optional(),
  opens: engagement.optional(),
  clicks: engagement.optional(),
});
export type ScenarioOutcome = z.output<typeof ScenarioOutcome>;

export const ScenarioWebhookDelivery = z.strictObject({
  duplicates: share.optional(),
  reorder: z.strictObject({ share, window: duration() }).optional(),
  delay: z
    .strictObject({
      distribution: z.enum(['fixed', 'uniform', 'exponential'], { error: 'must be fixed, uniform or exponential' }),
      ms: duration().optional(),
      min: duration().optional(),
      max: duration().optional(),
      mean: duration().optional(),
    })
    .optional(),
  /** Windows (from the run's start, emulated) in which the receiver is treated as unreachable. */
  outages: z
    .array(z.strictObject({ at: duration(), for: duration() }))
    .max(SCENARIO_LIMITS.maxOutages)
    .optional(),
  /** The older place of the scenario's `seed` (see there); both given, they must agree. */
  seed: z.number().int().optional(),
});

export const ScenarioTraffic = z.strictObject({
  count: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(SCENARIO_LIMITS.maxTrafficCount, `must be at most ${SCENARIO_LIMITS.maxTrafficCount}`),
  /** Sends per second of the emulated clock, e.g. "50/s", "600/m". */
  rate: z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*\/\s*(s|m|h)\s*$/, 'must be a rate such as "50/s", "600/m" or "1000/h"')
    .default('10/s'),
  from: z.string().min(3).max(320).default('shop@example.test'),
  /** Recipient address; `{n}` is the send's number from 1. */
  to: z.string().min(3).max(320).default('user{n}@example.test'),
  subject: z.string().max(998).default('Scenario message {n}'),
  html: z.string().max(100_000).optional(),
  template_id: z.string().max(64).optional(),
  substitutions: z.record(z.string(), z.string()).optional(),
});

export const ScenarioApp = z.strictObject({
  command: z.string().min(1, 'must not be empty').max(4096),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Polled until it answers 2xx; without it the app counts as ready once started. */
  readyUrl: z.url({ error: 'must be a URL' }).optional(),
  timeout: duration(SCENARIO_LIMITS.maxAppTimeoutMs).optional(),
});

export const ScenarioExpect = z.strictObject({
  receiver: z
    .strictObject({
      acknowledgedAll: z.boolean().optional(),
      p95Ms: z.number().min(0, 'must be at least 0').optional(),
      noGiveUps: z.boolean().optional(),
    })
    .optional(),
  app: z
    .strictObject({
      noSendAfterHardBounce: z.boolean().optional(),
      noSendAfterComplaint: z.boolean().optional(),
      noSendAfterUnsubscribe: z.boolean().optional(),
      maxSendsPerRecipient: z.number().int().min(1, 'must be at least 1').optional(),
      noMissingVariables: z.boolean().optional(),
    })
    .optional(),
});

export const Scenario = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal(1, { error: 'must be 1 (the only scenario format version)' }),
    name: z.string().min(1, 'must not be empty').max(200),
    description: z.string().max(4000).optional(),
    clock: z
      .union(
        [
          z.literal('realtime'),
          z.strictObject({
            speed: z.number().positive('must be above 0').max(SCENARIO_LIMITS.maxClockSpeed, `must be at most ${SCENARIO_LIMITS.maxClockSpeed}`),
          }),
        ],
        {
          error: 'must be "realtime" or { speed: 60 }',
        },
      )
      .default('realtime'),
    /** Emulated; the run ends sooner once traffic is done (or the app exited) and all deliveries settled. */
    duration: duration().default(DEFAULT_SCENARIO_DURATION_MS),
    /**
     * The seed of every random choice of the run (which addresses a share takes, opens and clicks, the
     * webhook faults): runs of one file with one seed fire the same events. Default 1 (`scenarioSeed`).
     */
    seed: z.number({ error: 'must be a whole number' }).int('must be a whole number').optional(),
    /** `new` (default): an account of its own per run; `default`: the emulator's default account. */
    account: z.enum(['new', 'default'], { error: 'must be new or default' }).default('new'),
    webhook: z
      .strictObject({
        url: z.url({ error: 'must be a URL' }),
        events: z.array(z.enum(EMAIL_EVENT_KINDS, { error: `must be one of ${EMAIL_EVENT_KINDS.join(', ')}` })).optional(),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
    outcomes: z.array(ScenarioOutcome).max(SCENARIO_LIMITS.maxOutcomes).default([]),
    webhookDelivery: ScenarioWebhookDelivery.optional(),
    traffic: ScenarioTraffic.optional(),
    app: ScenarioApp.optional(),
    expect: ScenarioExpect.default({}),
  })
  .superRefine((s, ctx) => {
    const total = s.outcomes.reduce((sum, o) => sum + (o.match.share ?? 0), 0);
    if (total > 1 + 1e-9) {
      ctx.addIssue({ code: 'custom', path: ['outcomes'], message: `the shares add up to ${Math.round(total * 1000) / 10}%, over 100%` });
    }
    const older = s.webhookDelivery?.seed;
    if (s.seed !== undefined && older !== undefined && older !== s.seed) {
      ctx.addIssue({ code: 'custom', path: ['webhookDelivery', 'seed'], message: `differs from seed (${s.seed}): give the seed once, at the top` });
    }
    if (!s.traffic && !s.app) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give traffic (sends the scenario makes) or app (the app under test that sends)' });
    }
  })
  .meta({ id: 'MailyardScenario', title: 'Mailyard scenario (version 1)' });

export type ScenarioInput = z.input<typeof Scenario>;
export type Scenario = z.output<typeof Scenario>;

/** A run's seed when the scenario gives none: fixed, so a rehearsal replays the same events. */
export const DEFAULT_SCENARIO_SEED = 1;

/** The seed a run of `s` uses: its `seed`, else `webhookDelivery.seed`, else DEFAULT_SCENARIO_SEED. */
export function scenarioSeed(s: Pick<Scenario, 'seed' | 'webhookDelivery'>): number {
  return s.seed ?? s.webhookDelivery?.seed ?? DEFAULT_SCENARIO_SEED;
}

/**
 * One problem of a scenario file: the field's dotted path, where the text has it (1-based), and what
 * is wrong (the runner's parse, the error catalogue's `scenarioFileInvalid`, the control API's answer).
 */
export interface ScenarioFileError {
  path: string;
  line: number | null;
  column: number | null;
  message: string;
}
