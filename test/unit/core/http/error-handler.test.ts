import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorEntry } from '../../../../src-main/core/error-catalogue';
import { detailsSentence, type ErrorShape, errorBody } from '../../../../src-main/core/http/error-handler';
import type { FieldError } from '../../../../src-shared/errors';

/** An entry's parameters: field lists where it takes them, else `<name>`. */
const PROBLEMS: FieldError[] = [
  { path: 'to', message: 'must list at least one recipient' },
  { path: '', message: 'request body must be a JSON object' },
];
const params = new Proxy({}, { get: (_target, key) => (key === 'errors' || key === 'fields' ? PROBLEMS : `<${String(key)}>`) });

const SHAPES: ErrorShape[] = ['plain', 'details', 'records'];

describe('the error body', () => {
  it.each(Object.entries(ERRORS))('%s: details is a string or absent (an object on the webhook calls), the field map under fields', (_name, entry) => {
    const e = entry as ErrorEntry<object>;
    const message = typeof e.message === 'function' ? e.message(params) : e.message;
    const fields = typeof e.fields === 'function' ? e.fields(params) : e.fields;
    for (const shape of SHAPES) {
      const body = errorBody(message, fields, e.extras?.(params), shape);
      expect(body.success).toBe(false);
      expect(body.error).toBe(message);
      if (fields?.length) {
        expect(body.fields, shape).toEqual(Object.fromEntries(fields.map((f) => [f.path || 'body', f.message])));
        expect(body.details).toEqual(shape === 'details' ? { fields: body.fields } : detailsSentence(body.fields!));
      } else {
        expect(body.fields).toBeUndefined();
        // The webhook calls always carry details, an object as their pages show it.
        expect(body.details).toEqual(shape === 'details' ? {} : undefined);
      }
      expect(body.records !== undefined).toBe(shape === 'records' || e.extras?.(params).records !== undefined);
    }
  });

  it('names each field in the sentence, the whole body as "the body", at most ten then a count', () => {
    expect(detailsSentence({ to: 'must list at least one recipient' })).toBe('One field has a problem: to: must list at least one recipient');
    expect(detailsSentence({ body: 'must be empty', 'from.email': 'must be an email address' })).toBe(
      '2 fields have problems: the body: must be empty; from.email: must be an email address',
    );
    const many = detailsSentence(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, 'is wrong'])));
    expect(many).toMatch(/^12 fields have problems: f0: is wrong; .*f9: is wrong; and 2 more fields \(see fields\)$/);
    expect(many).not.toContain('f10');
  });

  it('joins two problems of one path, and keeps a scenario file’s located errors beside the fields', () => {
    const body = errorBody(
      'x',
      [
        { path: 'a', message: 'one' },
        { path: 'a', message: 'two' },
      ],
      { errors: [{ path: 'a', line: 1, column: 2, message: 'one' }] },
    );
    expect(body).toEqual({
      success: false,
      error: 'x',
      details: 'One field has a problem: a: one; two',
      fields: { a: 'one; two' },
      errors: [{ path: 'a', line: 1, column: 2, message: 'one' }],
    });
  });
});
