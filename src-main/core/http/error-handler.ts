import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, MESSAGES } from '../../../src-shared/errors';
import type { ErrorResponse } from '../../../src-shared/schemas/common';
import { AppError } from '../errors';

/** Fastify's own client errors, in our words. */
const FASTIFY_ERRORS: Record<string, { status: number; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: MESSAGES.unsupportedMediaType },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: MESSAGES.payloadTooLarge },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'request body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400 },
};

export function errorBody(message: string, errors?: ErrorResponse['errors']): ErrorResponse {
  return errors?.length ? { success: false, message, errors } : { success: false, message };
}

export function handleError(error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AppError) {
    return reply.status(ERROR_STATUS[error.code]).send(errorBody(error.message, error.errors));
  }
  const fst = error as FastifyError;
  const known = fst.code ? FASTIFY_ERRORS[fst.code] : undefined;
  if (known) return reply.status(known.status).send(errorBody(known.message ?? fst.message));
  // Other errors fastify marks as the client's (4xx) keep their status and words.
  if (typeof fst.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    return reply.status(fst.statusCode).send(errorBody(fst.message));
  }
  request.log.error({ err: error, method: request.method, url: request.url }, 'unexpected error');
  return reply.status(500).send(errorBody('Internal Server Error: this is a Mailyard bug; the log has the details'));
}
