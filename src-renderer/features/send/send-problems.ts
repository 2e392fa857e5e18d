import { type FieldProblem, ordinal } from '../../components/FieldError';

/** The send API's problems as the Send form shows them: which field holds each, and in what words. */

/** Which field of the form shows the API's problems at each path (by its label). */
export const FIELDS: Array<[path: string, label: string]> = [
  ['from', 'From'],
  ['subject', 'Subject'],
  ['to', 'To'],
  ['cc', 'Cc'],
  ['bcc', 'Bcc'],
  ['template_id', 'Template'],
  ['content', 'HTML'],
  ['substitutions', 'Substitutions'],
  ['attachments', 'Attachments'],
  ['settings', 'Tracking'],
  ['campaign_id', 'Campaign'],
  ['custom_args', 'Custom args'],
];

export interface SendProblem {
  message: string;
  errors: FieldProblem[];
}

/** An address list's problem in words: `0.email` is "the 1st address (“nope”) ...". */
export function addressWords(typed: Array<{ email: string }>) {
  return (rest: string[], message: string): string => {
    const [index, field] = rest;
    if (index === undefined || !/^\d+$/.test(index)) return message;
    const n = Number(index);
    const value = typed[n]?.email;
    const which = `the ${ordinal(n + 1)} address${value ? ` (“${value}”)` : ''}`;
    if (field === 'name') return `${which}: its name ${message}`;
    return `${which} ${message.replace(/^must be an email address$/, 'is not an email address')}`;
  };
}

/** A problem under a JSON object's keys in words: `order` is "the value of “order” ...". */
export const keyWords = (rest: string[], message: string): string => (rest.length ? `the value of “${rest.join('.')}” ${message}` : message);

/** A problem under an attachment: `0.filename` is "the 1st file's filename ...". */
export const fileWords = (rest: string[], message: string): string => {
  const [index, field] = rest;
  if (index === undefined || !/^\d+$/.test(index)) return message;
  return `the ${ordinal(Number(index) + 1)} file${field ? `'s ${field}` : ''} ${message}`;
};

/** A field of `settings`: `open_tracking` is "open". */
export const settingWords = (rest: string[], message: string): string => (rest.length ? `${rest[0]!.replace(/_tracking$/, '')}: ${message}` : message);
