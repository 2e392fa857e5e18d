import type { FieldError } from '../../src-shared/errors';
import { withThousands } from '../../src-shared/format';
import type { ScenarioFileError } from '../../src-shared/scenario/format';
import { CATCHER_LIMITS } from '../../src-shared/schemas/catchers';
import type { DomainDnsRecords } from '../../src-shared/schemas/domains';
import { LOGS_WINDOW_TOO_LONG, SEND_LIMITS, TOO_MANY_PLACEHOLDERS } from '../../src-shared/schemas/email';
import { MAX_TEMPLATES } from '../../src-shared/schemas/templates';
import { type ErrorEntry, entry, fieldEntry, sameWords } from './error-entry';
import { AppError } from './errors';
import { STORE_FULL_MESSAGE } from './store/store-space';

/** The real service's answer to a sender the account may not send as. */
const UNAUTHORIZED_FROM_EMAIL = 'Unauthorized From Email';

/**
 * Every error the emulator answers, by a stable name, in the way fastify's `lib/errors.js` keeps
 * its own: the one place their words are written. Services throw `appError(name, params)`; the HTTP
 * layer answers the ones it raises itself from here too. docs/errors.md lists them (a unit test keeps
 * it up to date).
 */
export const ERRORS = {
  // The HTTP layer, before any route runs
  unauthorized: entry({ code: 'unauthorized', message: 'Unauthorized', realService: true }),
  crossSiteRequest: entry({
    code: 'forbidden',
    message: ({ origin }: { origin: string }) =>
      `Forbidden: a request from another site (${origin}): this API answers Mailyard's own web UI and programs, not pages of other sites`,
  }),
  foreignHost: entry({ code: 'forbidden', message: ({ host }: { host: string }) => `Forbidden: the control API answers only loopback hosts, not "${host}"` }),
  /** Beyond loopback, without the control key. */
  controlKeyRequired: entry({
    code: 'unauthorized',
    message:
      'Unauthorized: this Mailyard is reachable from the network, so the control API and the web UI need its control key ' +
      '(send Authorization: Bearer <control key>, or log in to the web UI); the key is printed at start-up or set with --control-key',
  }),
  /** A keyed listener on loopback: the key was given when it was started. */
  controlKeyGivenRequired: entry({
    code: 'unauthorized',
    message:
      'Unauthorized: this Mailyard was started with a control key, so the control API and the web UI need it ' +
      "(send Authorization: Bearer <control key>, or log in to the web UI): the key given with --control-key, MAILYARD_CONTROL_KEY or the testing API's controlKey",
  }),
  controlKeyGuesses: entry({
    code: 'too_many_requests',
    message: ({ count, whose, window, seconds }: { count: number; whose: string; window: number; seconds: number }) =>
      `Too Many Requests: ${count} wrong control keys ${whose} within ${window} s; no key is checked for the next ${seconds} s (Retry-After), ` +
      'the right one included, and logins already made go on',
  }),
  controlKeyWrong: entry({ code: 'unauthorized', message: 'Unauthorized: that is not the control key of this Mailyard' }),
  loginBodyInvalid: entry({ code: 'bad_request', message: ({ problem }: { problem: string }) => `Bad Request: ${problem}` }),
  unsupportedMediaType: entry({ code: 'unsupported_media_type', message: 'Content-Type must be application/json', realService: true }),
  payloadTooLarge: entry({ code: 'payload_too_large', message: 'Payload Too Large', realService: true }),
  contentLengthMismatch: entry({ code: 'bad_request', message: 'Content-Length does not match the body' }),
  emptyJsonBody: entry({ code: 'bad_request', message: 'request body is empty; send a JSON object' }),
  invalidJsonBody: entry({ code: 'bad_request', message: ({ reason }: { reason: string }) => `request body is not valid JSON: ${reason}` }),
  /** Keys that would pollute prototypes. */
  forbiddenJsonKeys: entry({ code: 'bad_request', message: 'request body may not contain the keys __proto__ or constructor.prototype' }),
  badUrlEncoding: entry({ code: 'bad_request', message: 'Bad Request: the URL path is not valid percent-encoding' }),
  uriTooLong: entry({ code: 'uri_too_long', message: ({ max }: { max: number }) => `URI Too Long: a path parameter may have at most ${max} characters` }),
  headersLate: entry({
    code: 'request_timeout',
    message: ({ limit }: { limit: string }) => `Request Timeout: the request headers were not received within ${limit}`,
  }),
  bodyLate: entry({
    code: 'request_timeout',
    message: ({ limit }: { limit: string }) => `Request Timeout: the request was not received in full within ${limit}`,
  }),
  headersTooLarge: entry({ code: 'header_fields_too_large', message: 'Request headers are too large' }),
  notHttp: entry({ code: 'bad_request', message: 'Bad Request: the request could not be parsed as HTTP' }),
  routeNotFound: entry({ code: 'not_found', message: ({ method, path }: { method: string; path: string }) => `Route ${method} ${path} not found` }),
  storeFull: entry({ code: 'insufficient_storage', message: STORE_FULL_MESSAGE }),
  /** Never on purpose. */
  internal: entry({ code: 'internal', message: 'Internal Server Error: this is a Mailyard bug; the log has the details' }),

  // Any request
  invalidField: fieldEntry((params: { path: string; problem: string }) => params),
  /** Schema checks: `problem` is the first of `errors`, in words. */
  invalidFields: entry({
    code: 'validation',
    message: ({ problem }: { problem: string; errors: readonly FieldError[] }) => problem,
    fields: ({ errors }) => errors,
  }),
  bodyRequired: entry({ code: 'validation', ...sameWords('', 'request body is required (a JSON object)') }),
  bodyNotObject: entry({ code: 'validation', ...sameWords('', 'request body must be a JSON object') }),
  bodyNotAllowed: entry({
    code: 'bad_request',
    message: ({ method, path }: { method: string; path: string }) => `request body must be empty: ${method} ${path} takes no body`,
    fields: [{ path: '', message: 'must be empty' }],
  }),
  invalidCursor: entry({
    code: 'validation',
    message: ({ field }: { field: string }) => `${field} is not a ${field} this API gave out`,
    fields: ({ field }) => [{ path: field, message: 'is not valid' }],
  }),

  // Accounts
  accountNotFound: entry({ code: 'not_found', message: 'Account Not Found' }),
  accountExists: entry({
    code: 'conflict',
    message: 'Account Already Exists',
    fields: [{ path: 'api_key', message: 'is already the key of another account' }],
  }),
  /** The default account and the `--api-key` account are where keyless mail and a CI job's key go: never deleted. */
  accountKept: entry({
    code: 'conflict',
    message: ({ which }: { which: 'default' | 'api-key' }) =>
      which === 'default'
        ? 'The default account cannot be deleted: mail without a key and the UI use it'
        : 'The account of --api-key cannot be deleted: the emulator was started with its key',
  }),
  accountInUse: entry({
    code: 'conflict',
    message: ({ run }: { run: string }) => `The account is in use by the scenario run under way (${run}); stop it or wait for it to finish`,
  }),
  accountDeleteNotDone: entry({
    code: 'conflict',
    message:
      'Account not deleted: its webhook attempts are still in flight after their time-out; its pending deliveries were cancelled, nothing else was removed; try again',
  }),

  // Sending
  /** `--strict-senders`, or `--strict-requests` (the option that refused it is named). */
  senderDomainUnverified: entry({
    code: 'forbidden',
    message: UNAUTHORIZED_FROM_EMAIL,
    fields: ({ domain, option }: { domain: string; option: '--strict-senders' | '--strict-requests' }) => [
      { path: 'from.email', message: `${domain} is not a verified domain of this account (${option})` },
    ],
    realService: true,
  }),
  /** A domain's `mailer_id` sends for that domain only. */
  senderNotMailersDomain: entry({
    code: 'forbidden',
    message: UNAUTHORIZED_FROM_EMAIL,
    fields: ({ mailerId, domain, fromDomain }: { mailerId: string; domain: string; fromDomain: string }) => [
      { path: 'from.email', message: `mailer_id ${mailerId} sends for ${domain}, not ${fromDomain}` },
    ],
    realService: true,
  }),
  mailerIdIsImap: entry({
    code: 'validation',
    message: 'mailer_id names an IMAP configuration; only domains and SMTP configurations send',
    fields: [{ path: 'mailer_id', message: 'names an IMAP configuration' }],
  }),
  mailerIdUnknown: entry({
    code: 'validation',
    message: 'mailer_id names no domain or SMTP configuration of this account',
    fields: [{ path: 'mailer_id', message: 'names no domain or SMTP configuration of this account' }],
  }),
  templateIdUnknown: entry({
    code: 'validation',
    message: 'template_id names no template of this account',
    fields: [{ path: 'template_id', message: 'names no template of this account' }],
  }),
  tooManyPlaceholders: fieldEntry(() => ({ path: 'content', problem: TOO_MANY_PLACEHOLDERS })),
  filledTooLong: fieldEntry(({ recipient }: { recipient: string }) => ({
    path: 'substitutions',
    problem: `make the copy for ${recipient} longer than ${withThousands(SEND_LIMITS.filledLength)} characters of subject and content`,
  })),
  logsWindowTooLong: entry({
    code: 'validation',
    message: LOGS_WINDOW_TOO_LONG,
    fields: [{ path: 'endCreatedAt', message: 'must be at most 7 days after startCreatedAt' }],
    realService: true,
  }),
  logsWindowReversed: fieldEntry(() => ({ path: 'endCreatedAt', problem: 'must not be before startCreatedAt' })),

  // Messages
  messageNotFound: entry({ code: 'not_found', message: 'Message Not Found' }),
  attachmentNotFound: entry({ code: 'not_found', message: 'Attachment Not Found' }),

  // Catchers
  catcherNotFound: entry({ code: 'not_found', message: 'Catcher Not Found' }),
  catcherHoldsFull: entry({
    code: 'unavailable',
    message: ({ held, holder }: { held: number; holder: string }) =>
      `Service Unavailable: ${holder} ${held} requests already (hanging or waiting out a delay), the most at once; ` +
      'this request was recorded and refused at once. Try again when one of them ends',
  }),
  tooManyCatchers: entry({ code: 'validation', message: `an account may keep at most ${CATCHER_LIMITS.perAccount} catchers; delete one first` }),

  // Mailpit's API (/api/v1): Mailpit's own words where its clients may read them
  mailpitNoQuery: entry({ code: 'validation', message: 'Error: no search query' }),
  mailpitIdsAndSearch: entry({ code: 'validation', message: 'You may specify either IDs or a search query, not both' }),
  mailpitChaosOff: entry({ code: 'validation', message: 'Chaos is not enabled' }),
  /** A chaos trigger out of range, in Mailpit's words (`error code must be between 400 and 599`). */
  chaosBadTrigger: entry<{ problem: string }>({ code: 'validation', message: (p) => p.problem }),
  mailpitNoHtml: entry({ code: 'not_found', message: 'This message has no HTML part' }),
  /** A send, release or check Mailpit refuses with a 400 and these words (`invalid To address: x`, `No valid addresses found`). */
  mailpitBadRequest: entry<{ problem: string }>({ code: 'validation', message: (p) => p.problem }),
  mailpitNoHtmlToCheck: entry({ code: 'validation', message: 'message does not contain HTML' }),
  mailpitRelayOff: entry({
    code: 'validation',
    message: "SMTP relay is not configured: give the message's account an SMTP mailer (Mailers page, or configureSMTP) to release through",
  }),
  mailpitRelayAmbiguous: entry<{ count: number }>({
    code: 'validation',
    message: (p) =>
      `The message's account has ${p.count} SMTP mailers and Mailpit's release cannot name one: keep one, or release with POST /emulator/messages/{id}/release and a mailer_id`,
  }),
  mailpitRelayFailed: entry<{ reply: string }>({ code: 'validation', message: (p) => `SMTP error: ${p.reply}` }),

  // Templates
  templateNotFound: entry({ code: 'not_found', message: 'Template Not Found' }),
  tooManyTemplates: entry({ code: 'validation', message: `an account may keep at most ${MAX_TEMPLATES} templates; delete one first` }),

  // Webhooks
  noEventEnabled: entry({
    code: 'validation',
    ...sameWords('webhook_options.events', 'at least one of webhook_options.events must be true'),
    realService: true,
  }),
  eventsForDomainVerification: entry({
    code: 'validation',
    ...sameWords('webhook_options.events', 'invalid webhook_options.events for DOMAIN_VERIFICATION'),
    realService: true,
  }),
  webhookNotFound: entry({ code: 'not_found', message: 'Webhook Not Found', realService: true }),
  webhookExists: entry({ code: 'conflict', message: 'Webhook Already Exists', realService: true }),
  /** A URL the emulator will post to (a webhook, an inbound route) could not be connected to. */
  urlUnreachable: entry({
    code: 'unreachable',
    message: ({ reason }: { path: string; reason: string }) => `Webhook URL is not reachable: ${reason}`,
    fields: ({ path, reason }) => [{ path, message: reason }],
    realService: true,
  }),
  /** `--strict-webhook-urls` is on. */
  httpsRequired: fieldEntry(({ path }: { path: string }) => ({ path, problem: 'must be an https URL (strict webhook URLs are on)' })),

  // Email events (fired by hand or by the rules)
  eventCopyNotFound: entry({
    code: 'not_found',
    message: ({ refId, recipient }: { refId: string; recipient: string }) => `Message Not Found: ${noCopy(refId, recipient)}`,
    fields: ({ refId, recipient }) => [{ path: 'recipient', message: noCopy(refId, recipient) }],
  }),
  eventSendNotFound: entry({
    code: 'not_found',
    message: ({ refId }: { refId: string }) => `Message Not Found: ${noSend(refId)}`,
    fields: ({ refId }) => [{ path: 'ref_id', message: noSend(refId) }],
  }),
  eventKindMismatch: fieldEntry(() => ({ path: 'fields.event', problem: 'must match event' })),
  notSuppressed: entry({ code: 'not_found', message: ({ email }: { email: string }) => `${email} is not suppressed for this account` }),

  // Sending domains
  domainNotFound: entry({ code: 'not_found', message: 'Domain Not Found', realService: true }),
  domainExists: entry({ code: 'conflict', message: 'Domain Already Exists', realService: true }),
  invalidDnsRecords: entry({
    code: 'validation',
    message: 'Invalid DNS records',
    extras: ({ records }: { records: DomainDnsRecords }) => ({ records }),
    realService: true,
  }),

  // Inbound routing
  inboundDomainNotFound: entry({ code: 'not_found', message: 'Inbound Domain Not Found' }),
  inboundDomainExists: entry({ code: 'conflict', message: 'Inbound Domain Already Exists' }),
  inboundUsernameNotFound: entry({ code: 'not_found', message: 'Inbound Username Not Found' }),
  inboundUsernameExists: entry({ code: 'conflict', message: 'Inbound Username Already Exists' }),
  inboundNeedsUrl: entry({
    code: 'validation',
    message: ({ path }: { path: 'method' | 'headers' }) => `${path} needs url (without url, mail goes to the domain's URL with its method and headers)`,
    fields: ({ path }) => [{ path, message: 'needs url' }],
  }),

  // Mailers and OAuth
  mailerNotFound: entry({ code: 'not_found', message: 'Mailer Not Found' }),
  smtpConfigNotFound: entry({ code: 'not_found', message: 'SMTP Config Not Found' }),
  imapConfigNotFound: entry({ code: 'not_found', message: 'IMAP Config Not Found' }),
  imapMessageNotFound: entry({ code: 'not_found', message: 'IMAP Message Not Found' }),
  emailConfigNotFound: entry({ code: 'not_found', message: 'Email config not found' }),
  /** smtpbasic/verify: the server refused the login or could not be reached; `reason` in its words. */
  smtpLoginFailed: entry({ code: 'unreachable', message: ({ reason }: { reason: string }) => reason }),
  /** `--strict-webhook-urls` refused a mail server's host (not public, not found). */
  serverHostRefused: entry({
    code: 'unreachable',
    message: ({ reason }: { path: string; reason: string }) => reason,
    fields: ({ path, reason }) => [{ path, message: reason }],
  }),
  relayMailerIsImap: fieldEntry(() => ({ path: 'mailer_id', problem: 'names an IMAP configuration; only SMTP configurations send' })),
  relayMailerUnknown: fieldEntry(() => ({ path: 'mailer_id', problem: 'names no SMTP mailer' })),

  // The emulator's control API
  clockNeedsMove: entry({ code: 'validation', ...sameWords('', 'give speed, advance_ms or both') }),
  resetDuringRun: entry({
    code: 'conflict',
    message: ({ run }: { run: string }) =>
      `Reset not done: the scenario run ${run} is under way and uses what a reset wipes; stop it or wait for it to finish, then reset`,
  }),
  resetNotDone: entry({
    code: 'conflict',
    message:
      'Reset not done: webhook attempts are still in flight after their time-out; pending deliveries were cancelled, nothing else was removed; try again',
  }),
  deliveryNotFound: entry({ code: 'not_found', message: 'Delivery Not Found' }),
  dispatcherStopping: entry({ code: 'conflict', message: 'The dispatcher is stopping; try again after a restart' }),
  deliveryTargetGone: entry({ code: 'conflict', message: 'The target of this delivery no longer exists (its webhook was deleted)' }),
  deliveryInFlight: entry({ code: 'conflict', message: 'An attempt of this delivery is in flight; retry when it has finished' }),
  invalidDeliveryFaults: entry({ code: 'validation', message: 'Invalid delivery faults', fields: ({ errors }: { errors: readonly FieldError[] }) => errors }),

  // QA scenarios
  /** `first` is the first problem with its place in the file; every problem is in `fields` and `errors`. */
  scenarioFileInvalid: entry({
    code: 'validation',
    message: ({ count, first }: { count: number; first: string; fields: readonly FieldError[]; errors: readonly ScenarioFileError[] }) =>
      `the scenario file has ${count} problem${count === 1 ? '' : 's'}: ${first}`,
    fields: ({ fields }) => fields,
    extras: ({ errors }) => ({ errors }),
  }),
  postedAppRefused: entry({
    code: 'forbidden',
    message:
      'a scenario posted as text cannot start an app (app.command would run a program on this machine): run its file instead, ' +
      'with `mailyard scenario run FILE`, or start Mailyard with --scenarios DIR and run the file from that folder ' +
      '(the Scenarios screen lists its files; POST /emulator/scenarios/runs {"path": "..."})',
  }),
  scenarioRunNotFound: entry({ code: 'not_found', message: ({ id }: { id: string }) => `no scenario run ${id}` }),
  scenarioAccountNotFound: entry({
    code: 'not_found',
    message: ({ id }: { id: string }) =>
      `no account ${id} to run the scenario on: give the id of one of GET /emulator/accounts, or leave account_id out for the scenario's own account (new or default)`,
    fields: [{ path: 'account_id', message: 'is not an account of this Mailyard' }],
  }),
  /** A run on an account that has a webhook of its own uses it: a scenario's `webhook` would replace the account's. */
  scenarioWebhookTaken: entry({
    code: 'conflict',
    message: ({ account, url }: { account: string; url: string }) =>
      `the account ${account} has an EMAIL_EVENT webhook (${url}) and the scenario registers its own: remove \`webhook\` from the scenario to run with the account's, or run on another account`,
  }),
  scenarioRunBusy: entry({
    code: 'conflict',
    message: ({ id, name }: { id: string; name: string }) => `a scenario run is under way (${id}, ${name}); stop it or wait for it to finish`,
  }),
  /** Receiver checks send their requests one at a time; a few may run at once (docs/limits.md). */
  receiverChecksBusy: entry({
    code: 'conflict',
    message: ({ max }: { max: number }) => `${max} receiver checks are under way, the most at once; wait for one to finish`,
  }),
  scenarioReportPending: entry({
    code: 'not_found',
    message: ({ id }: { id: string }) => `scenario run ${id} has not finished; its report comes when it does`,
  }),
  noScenarioFolders: entry({
    code: 'forbidden',
    message:
      'no scenarios folder: Mailyard runs scenario files only from folders you allowed (mailyard serve --scenarios DIR; in the desktop app, Allow a Scenarios Folder… in its menu)',
  }),
  /** `folders`: the folders' names as a path starts with them, listed. */
  scenarioFolderUnknown: entry({
    code: 'not_found',
    message: ({ path, folders }: { path: string; folders: string }) =>
      `no scenario file ${JSON.stringify(path)}: a path starts with a scenarios folder's name (${folders}), as GET /emulator/scenarios/files lists them`,
  }),
  scenarioPathNotListed: entry({
    code: 'not_found',
    message: ({ path }: { path: string }) => `no scenario file ${JSON.stringify(path)}: name it as it is listed`,
  }),
  scenarioFileNotFound: entry({ code: 'not_found', message: ({ path }: { path: string }) => `no scenario file ${JSON.stringify(path)}` }),
  scenarioFileNotScenario: entry({
    code: 'not_found',
    message: ({ path }: { path: string }) => `no scenario file ${JSON.stringify(path)}: a scenario file ends in .yaml, .yml or .json`,
  }),
  /** `folders`: the folders Mailyard was started with, listed; `dir`: the one the file is in. */
  scenarioFileOutside: entry({
    code: 'forbidden',
    message: ({ path, folders, dir }: { path: string; folders: string; dir: string }) =>
      `${JSON.stringify(path)} is outside the scenarios folders Mailyard was started with (${folders}): start it with --scenarios ${JSON.stringify(dir)} to run it from there`,
  }),
  scenarioFileTooLarge: entry({
    code: 'validation',
    message: ({ path, bytes, max }: { path: string; bytes: number; max: number }) => `${path} is ${bytes} bytes: a scenario file has at most ${max}`,
  }),
} as const;

export type { ErrorEntry };
export type ErrorName = keyof typeof ERRORS;
type ParamsOf<N extends ErrorName> = (typeof ERRORS)[N] extends ErrorEntry<infer P> ? P : never;
/** No argument for an entry without parameters; its parameters, typed, otherwise. */
type ParamArgs<P> = keyof P extends never ? [] : [params: P];

/** The error `name` of the catalogue, with its parameters. */
export function appError<N extends ErrorName>(name: N, ...args: ParamArgs<ParamsOf<N>>): AppError {
  // One entry of the union, read with the parameters the signature above checked.
  const e = ERRORS[name] as ErrorEntry<object>;
  const params: object = args[0] ?? {};
  const message = typeof e.message === 'function' ? e.message(params) : e.message;
  const fields = typeof e.fields === 'function' ? e.fields(params) : e.fields;
  return new AppError(e.code, message, fields, e.extras?.(params));
}

function noCopy(refId: string, recipient: string): string {
  return `the send ${refId} has no copy to ${recipient}`;
}

function noSend(refId: string): string {
  return `no stored message has ref_id ${refId}; leave ref_id out (or set fields.ref_id) to fire a free-standing event`;
}
