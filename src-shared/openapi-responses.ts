import type { ControlOperations, Operation, ServiceOperations } from './operations';

/**
 * The error statuses an operation may answer, with the words of each: what the server sends whatever
 * the operation (400, 408, 431), what follows from its shape (413 and 415 with a body, 414 with path
 * parameters, 401 and 403 from its guard, 507 on writes), and what its table entry lists (`errors`).
 */

/** Why `/v1` and `/emulator` answer 403 to any request a browser sends for a page of another site. */
const CROSS_SITE = 'a request a browser marks as sent by a page of another site (Sec-Fetch-Site cross-site or same-site, or a foreign Origin)';

const COMMON: Record<number, string> = {
  400: 'Bad Request: malformed JSON, wrong types, missing fields or a broken rule (`fields` names each problem by its path, `details` in a sentence)',
  404: 'Not Found: the addressed resource does not exist',
  408: 'Request Timeout: the request headers or body did not arrive in time (the connection is then closed)',
  409: 'Conflict: the resource already exists, or the state does not allow the change',
  413: 'Payload Too Large: the body is over the size limit',
  414: 'URI Too Long: a path parameter has more than 1024 characters',
  415: 'Unsupported Media Type: a body that is not application/json',
  422: 'Unprocessable: a value is well formed but cannot be used',
  431: 'Request Header Fields Too Large',
  507: 'Insufficient Storage: the disk of the data directory is full; nothing was stored',
};

const BY_AUTH: Record<Operation['auth'], Record<number, string>> = {
  bearer: {
    401: 'Unauthorized: the API key (Authorization: Bearer or X-API-Key) is missing, malformed or unknown',
    403: `Forbidden: ${CROSS_SITE}`,
  },
  none: {
    401: 'Unauthorized: the control key is missing or wrong (required when the emulator listens beyond loopback, or when one was set)',
    403: `Forbidden: a foreign Host header on the control API, or ${CROSS_SITE}`,
  },
};

/** Words an operation's error statuses have that the common table does not say right. */
const BY_OPERATION: Partial<Record<keyof ServiceOperations | keyof ControlOperations, Record<number, string>>> = {
  sendEmail: {
    403: `Unauthorized From Email: the sender may not send as this address (not at the domain whose mailer_id is given, or, with --strict-senders, not at a verified domain of the account); or Forbidden: ${CROSS_SITE}`,
  },
  configureSMTP: { 422: 'The SMTP server could not be connected to, or refused the login; nothing was saved (the error carries its answer)' },
  configureIMAP: { 422: 'The IMAP server could not be connected to, or refused the login; nothing was saved' },
  updateIMAP: { 422: 'The IMAP server could not be connected to, or refused the login; nothing was changed' },
  registerWebhook: { 409: 'Webhook Already Exists', 422: 'The webhook URL cannot be connected to' },
  updateWebhook: { 404: 'No webhook with this id', 422: 'The webhook URL cannot be connected to' },
  deleteWebhook: { 404: 'No webhook with this id' },
  addDomain: { 409: 'Domain Already Exists' },
  getDomain: { 404: 'The domain is not added to this account' },
  verifyDomain: { 404: 'The domain is not added to this account' },
  configureInboundRouting: { 409: 'Inbound Domain Already Exists', 422: 'The destination URL cannot be connected to' },
  updateInboundDomain: { 404: 'No inbound routing for this domain', 422: 'The destination URL cannot be connected to' },
  createInboundUsername: {
    404: 'No inbound routing for this domain',
    409: 'Inbound Username Already Exists',
    422: 'The destination URL cannot be connected to',
  },
  updateInboundUsername: { 404: 'No such username route', 422: 'The destination URL cannot be connected to' },
  getTemplate: { 404: 'No template with this id' },
  deleteTemplate: { 404: 'No template with this id' },
  getMessage: { 404: 'No captured message with this id' },
  deleteMessage: { 404: 'No captured message with this id' },
  releaseMessage: { 404: 'No captured message, or no SMTP mailer, with this id' },
  createAccount: { 409: 'Account Already Exists: the API key is already the key of another account' },
  resetEmulator: { 409: 'Reset not done: webhook attempts were still in flight after their time-out; try again' },
  retryDelivery: {
    404: 'No delivery with this id',
    409: 'An attempt is in flight, the target no longer exists, or the dispatcher is stopping',
  },
};

/** The error statuses of an operation, each with its description, in ascending order. */
export function errorStatuses(operationId: string, op: Operation): [number, string][] {
  const statuses = new Set<number>([400, 401, 403, 408, 431, ...(op.errors ?? [])]);
  if (op.body) {
    statuses.add(413);
    statuses.add(415);
  }
  if (op.params) statuses.add(414);
  if (op.method !== 'GET') statuses.add(507);
  return [...statuses]
    .sort((a, b) => a - b)
    .map((status) => [status, BY_OPERATION[operationId as keyof typeof BY_OPERATION]?.[status] ?? BY_AUTH[op.auth][status] ?? COMMON[status] ?? 'Error']);
}
