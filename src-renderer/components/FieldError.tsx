import type { ReactNode } from 'react';

/** One problem the API found, by its path in the request body (`to.0.email`, `webhook_url`, ...). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** The problems at `path` or under it: `to` takes `to` and `to.0.email`, not `tomorrow`. */
export function problemsAt(errors: readonly FieldProblem[] | null | undefined, path: string): FieldProblem[] {
  return errors?.filter((e) => e.path === path || e.path.startsWith(`${path}.`)) ?? [];
}

/** The problems under none of these paths: what no field of the form shows. */
export function problemsElsewhere(errors: readonly FieldProblem[] | null | undefined, paths: readonly string[]): FieldProblem[] {
  return errors?.filter((e) => !paths.some((p) => e.path === p || e.path.startsWith(`${p}.`))) ?? [];
}

/** "1st", "2nd", "3rd", "4th", "11th", "21st"... */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The props that tie an input to its message: invalid, and described by it, while there is one. */
export function describedBy(id: string, shown: boolean): { 'aria-invalid'?: true; 'aria-describedby'?: string } {
  return shown ? { 'aria-invalid': true, 'aria-describedby': id } : {};
}

/** A message beside its field (put it inside the field's container; give the input `describedBy(id, ...)`). */
export function FieldMessage({ id, testId, children }: { id?: string; testId?: string; children: ReactNode }) {
  return (
    <span className="field-error" id={id} data-testid={testId}>
      {children}
    </span>
  );
}

/**
 * The API's problems at `path` (or under it), beside that field. `words` says one under it in words
 * (`rest` is the path below `path`, e.g. ["0", "email"]); by default `rest: message`.
 */
export function FieldError({
  errors,
  path,
  id,
  testId,
  words,
}: {
  errors: readonly FieldProblem[] | null | undefined;
  path: string;
  id?: string;
  testId?: string;
  words?: (rest: string[], message: string) => string;
}) {
  const errs = problemsAt(errors, path);
  if (errs.length === 0) return null;
  const say = (e: FieldProblem) => {
    const rest = e.path === path ? [] : e.path.slice(path.length + 1).split('.');
    if (words) return words(rest, e.message);
    return rest.length === 0 ? e.message : `${rest.join('.')}: ${e.message}`;
  };
  return (
    <FieldMessage id={id} testId={testId ?? `error-${path}`}>
      {[...new Set(errs.map(say))].join('; ')}
    </FieldMessage>
  );
}
