import type { z } from 'zod';
import { appError } from '../error-catalogue';
import { describeFieldError, errorMap, fieldErrors } from '../zod-errors';
import { parseLeniently } from './leniency';

const STRICT = { error: errorMap } as const;
const LENIENT = { error: errorMap, reportInput: true } as const;

function refuse(issues: readonly z.core.$ZodIssue[], where: string): never {
  const errors = fieldErrors(issues);
  throw appError('invalidFields', { problem: describeFieldError(errors[0]!, where), errors });
}

/**
 * Parses one part of a request (`body`, `query`, `params`); a failure is a 400 naming every problem.
 * Given `ignored`, the parse is lenient (see leniency.ts): unknown members and nulls for optional
 * fields are dropped and their paths pushed onto `ignored` rather than refused.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params', ignored?: string[]): z.output<S> {
  if (where === 'body' && (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw appError(value === undefined ? 'bodyRequired' : 'bodyNotObject');
  }
  if (ignored === undefined) {
    const result = schema.safeParse(value, STRICT);
    return result.success ? result.data : refuse(result.error.issues, where);
  }
  const result = parseLeniently(schema, value, LENIENT);
  // Not a spread: the list is as long as the client makes it, and a spread of a long one overflows the stack.
  for (const path of result.ignored) ignored.push(path);
  return result.success ? result.data : refuse(result.issues, where);
}
