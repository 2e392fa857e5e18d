import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, MESSAGES, type FieldError } from '../../../src-shared/errors';
import type { ErrorResponse } from '../../../src-shared/schemas/common';
import { AppError, type ErrorExtras } from '../errors';
import { isStoreFull, STORE_FULL_MESSAGE } from '../store/store-space';

/** Fastify's own client errors, in our words. */
const FASTIFY_ERRORS: Record<string, { status: number; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: MESSAGES.unsupportedMediaType },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: MESSAGES.payloadTooLarge },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'request body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400 },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, message: 'URI Too Long: a path parameter may have at most 1024 characters' },
};

/** How an operation's errors look beyond `{success, error}` (its route's `config.errorShape`). */
export type ErrorShape = 'plain' | 'details' | 'records';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

/**
 * The one error body: `{success: false, error, details?, records?}`. Field problems go under
 * `details.fields` as `{path: problem}` (two problems of one path joined by "; "); `shape` adds the
 * members an operation always carries (`details: {}` on the webhook calls, `records: {}` on the domain calls).
 */
export function errorBody(message: string, errors?: readonly FieldError[], extras: ErrorExtras = {}, shape: ErrorShape = 'plain'): ErrorResponse {
  const body: ErrorResponse = { success: false, error: message };
  let details = extras.details;
  if (errors?.length) {
    const fields: Record<string, string> = {};
    for (const e of errors) {
      const path = e.path || 'body';
      fields[path] = fields[path] === undefined ? e.message : `${fields[path]}; ${e.message}`;
    }
    details = { ...details, fields };
  }
  if (details !== undefined || shape === 'details') body.details = details ?? {};
  if (extras.records !== undefined || shape === 'records') body.records = extras.records ?? {};
  return body;
}

/** The error shape the matched route declares (`plain` outside the operation table). */
export function shapeOf(request: FastifyRequest): ErrorShape {
  return (request.routeOptions?.config as { errorShape?: ErrorShape } | undefined)?.errorShape ?? 'plain';
}

export function handleError(error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const shape = shapeOf(request);
  if (error instanceof AppError) {
    return reply.status(ERROR_STATUS[error.code]).send(errorBody(error.message, error.errors, error.extras, shape));
  }
  const fst = error as FastifyError;
  const known = fst.code ? FASTIFY_ERRORS[fst.code] : undefined;
  if (known) return reply.status(known.status).send(errorBody(known.message ?? fst.message, undefined, undefined, shape));
  // Other errors fastify marks as the client's (4xx) keep their status and words.
  if (typeof fst.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    return reply.status(fst.statusCode).send(errorBody(fst.message, undefined, undefined, shape));
  }
  // The disk of the data directory is full: the client may try again once there is room.
  if (isStoreFull(error)) return reply.status(507).send(errorBody(STORE_FULL_MESSAGE, undefined, undefined, shape));
  request.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error');
  return reply.status(500).send(errorBody('Internal Server Error: this is a Mailyard bug; the log has the details', undefined, undefined, shape));
}
