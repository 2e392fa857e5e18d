import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type FieldError } from '../../../src-shared/errors';
import type { ErrorResponse } from '../../../src-shared/schemas/common';
import { appError } from '../error-catalogue';
import { AppError, type ErrorExtras } from '../errors';
import { isStoreFull } from '../store/store-space';

/**
 * Fastify's own client errors, in our words. (An over-long path parameter and a bad URL are the
 * router's: `frameworkErrors` in app.ts answers them.)
 */
const FASTIFY_ERRORS: Record<string, () => AppError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => appError('unsupportedMediaType'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => appError('contentLengthMismatch'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => appError('payloadTooLarge'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => appError('emptyJsonBody'),
};

/** How an operation's errors look beyond `{success, error}` (its route's `config.errorShape`). */
export type ErrorShape = 'plain' | 'details' | 'records';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

/** A `details` sentence names at most this many fields (the rest are counted); `fields` has them all. */
const DETAILS_FIELDS = 10;

/**
 * The fields with a problem as `details` words them: `to: must list at least one recipient;
 * from.email: must be an email address`, the body as a whole named "the body".
 */
export function detailsSentence(fields: Record<string, string>): string {
  const entries = Object.entries(fields);
  const named = entries.slice(0, DETAILS_FIELDS).map(([path, problem]) => `${path === 'body' ? 'the body' : path}: ${problem}`);
  const more = entries.length > DETAILS_FIELDS ? `; and ${entries.length - DETAILS_FIELDS} more fields (see fields)` : '';
  const lead = entries.length === 1 ? 'One field has a problem' : `${entries.length} fields have problems`;
  return `${lead}: ${named.join('; ')}${more}`;
}

/**
 * The one error body: `{success: false, error, details?, fields?, errors?, records?}`. `details` is a
 * string, as the real service's getting-started page shows it: a sentence naming each field with a
 * problem. Field problems go under `fields` as `{path: problem}` (two problems of one path joined by
 * "; "). `shape` adds the members an operation always carries: on the webhook calls `details` is an
 * object, as their REST pages show it (`{"details": {}, "error", "success": false}`), holding the
 * field map when there is one; on the domain calls `records: {}`.
 */
export function errorBody(message: string, errors?: readonly FieldError[], extras: ErrorExtras = {}, shape: ErrorShape = 'plain'): ErrorResponse {
  const body: Omit<ErrorResponse, 'details'> & { details?: ErrorResponse['details'] } = { success: false, error: message };
  if (errors?.length) {
    const fields: Record<string, string> = {};
    for (const e of errors) {
      const path = e.path || 'body';
      fields[path] = fields[path] === undefined ? e.message : `${fields[path]}; ${e.message}`;
    }
    body.details = shape === 'details' ? { fields } : detailsSentence(fields);
    body.fields = fields;
  } else if (shape === 'details') body.details = {};
  if (extras.errors !== undefined) body.errors = extras.errors as ErrorResponse['errors'];
  if (extras.records !== undefined || shape === 'records') body.records = extras.records ?? {};
  return body as ErrorResponse;
}

/** Answers `error` in the one error body, with the status its code sets. */
export function sendError(reply: FastifyReply, error: AppError, shape: ErrorShape = 'plain'): FastifyReply {
  return reply.status(ERROR_STATUS[error.code]).send(errorBody(error.message, error.errors, error.extras, shape));
}

/** The error shape the matched route declares (`plain` outside the operation table). */
export function shapeOf(request: FastifyRequest): ErrorShape {
  return (request.routeOptions?.config as { errorShape?: ErrorShape } | undefined)?.errorShape ?? 'plain';
}

export function handleError(error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const shape = shapeOf(request);
  if (error instanceof AppError) return sendError(reply, error, shape);
  const fst = error as FastifyError;
  const known = fst.code ? FASTIFY_ERRORS[fst.code] : undefined;
  if (known) return sendError(reply, known(), shape);
  // Other errors fastify marks as the client's (4xx) keep their status and words.
  if (typeof fst.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    return reply.status(fst.statusCode).send(errorBody(fst.message, undefined, undefined, shape));
  }
  // The disk of the data directory is full: the client may try again once there is room.
  if (isStoreFull(error)) return sendError(reply, appError('storeFull'), shape);
  request.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error');
  return sendError(reply, appError('internal'), shape);
}
