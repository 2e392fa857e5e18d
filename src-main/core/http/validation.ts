import type { z } from 'zod';
import { AppError } from '../errors';
import { describeFieldError, errorMap, fieldErrors } from '../zod-errors';

/** Parses one part of a request (`body`, `query`, `params`); a failure is a 400 naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  if (where === 'body' && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
    const message = value === undefined ? 'request body is required (a JSON object)' : 'request body must be a JSON object';
    throw new AppError('validation', message, [{ path: '', message }]);
  }
  const result = schema.safeParse(value, { error: errorMap });
  if (result.success) return result.data;
  const errors = fieldErrors(result.error.issues);
  throw new AppError('validation', describeFieldError(errors[0]!, where), errors);
}
