import type { z } from 'zod';
import type { FieldError } from '../../src-shared/errors';

const ARTICLE: Record<string, string> = { object: 'an object', array: 'an array', integer: 'an integer' };

/** Wording for zod's own issues where a schema gives none: predicates such as "is required". */
export const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'is required';
    if (issue.input === null) return `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}, not null`;
    return `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}`;
  }
  // Bounds in words ("must be at most 64 characters"), where zod would say "Too big: expected string to have <=64 characters".
  if ((issue.code === 'too_big' || issue.code === 'too_small') && (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'number')) {
    const limit = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    const bound = issue.code === 'too_big' ? 'at most' : 'at least';
    if (issue.origin === 'number') return `must be ${bound} ${limit}`;
    if (issue.code === 'too_small' && limit === 1) return issue.origin === 'string' ? 'must not be empty' : 'must have at least one item';
    const unit = issue.origin === 'string' ? 'character' : 'item';
    return issue.origin === 'string'
      ? `must be ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'}`
      : `must have ${bound} ${limit} ${unit}${limit === 1 ? '' : 's'}`;
  }
  // A choice in words ('must be "hard" or "soft"'), where zod would say 'Invalid option: expected one of "hard"|"soft"'.
  if (issue.code === 'invalid_value' && issue.values.length > 0) {
    const shown = issue.values.map((v) => JSON.stringify(v));
    return shown.length === 1 ? `must be ${shown[0]}` : `must be ${shown.length > 2 ? 'one of ' : ''}${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
  }
  return undefined;
};

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Flattens zod issues into `{path, message}`; unknown keys become one entry each. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: joinPath([...issue.path, key]), message: 'is not a known field' });
    } else {
      out.push({ path: joinPath(issue.path), message: issue.message });
    }
  }
  return out;
}

/** "webhook_url must be ..." for our predicates, "webhook_url: Invalid ..." for anything else. */
export function describeFieldError(e: FieldError, where: string): string {
  const subject = e.path || where;
  return /^[a-z]/.test(e.message) ? `${subject} ${e.message}` : `${subject}: ${e.message}`;
}
