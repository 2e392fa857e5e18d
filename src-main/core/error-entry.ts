import type { ErrorCode, FieldError } from '../../src-shared/errors';
import type { ErrorExtras } from './errors';

/**
 * One error the emulator answers, as the catalogue (error-catalogue.ts) writes it. `code` sets the HTTP status (ERROR_STATUS); `message` is the body's
 * `error`, a function of the entry's parameters when the words carry values; `fields` the problems
 * listed by path under `fields` (and named in the `details` sentence); `extras` what the body carries beside them.
 */
export interface ErrorEntry<P extends object> {
  readonly code: ErrorCode;
  readonly message: string | ((params: P) => string);
  readonly fields?: readonly FieldError[] | ((params: P) => readonly FieldError[]);
  readonly extras?: (params: P) => ErrorExtras;
  /** The real service (or its spec) answers these very words: clients may compare them, so they never change. */
  readonly realService?: true;
}

/** An entry whose parameters are those its functions declare (none for fixed words). */
export const entry = <P extends object = Record<never, never>>(e: ErrorEntry<P>): ErrorEntry<P> => e;

/** A 400 for one field's problem, the message naming the field first ("to must list at least one recipient"). */
export function fieldEntry<P extends object = Record<never, never>>(field: (params: P) => { path: string; problem: string }): ErrorEntry<P> {
  return {
    code: 'validation',
    message: (params) => {
      const { path, problem } = field(params);
      return `${path} ${problem}`;
    },
    fields: (params) => {
      const { path, problem } = field(params);
      return [{ path, message: problem }];
    },
  };
}

/** Words that are both the message and the problem of one field (`''`: the body as a whole). */
export const sameWords = (path: string, message: string) => ({ message, fields: [{ path, message }] });
