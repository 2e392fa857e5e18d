import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';
import type { TemplateRecord } from '../../../src-shared/schemas/templates';
import { describeError, serviceAs } from '../../api/clients';
import { useRun } from '../../api/use-run';

type Substitutions = Record<string, Record<string, string | number | boolean>>;
type Content = Array<{ type: 'text/html' | 'text/plain'; value: string }>;

/** The account's templates (GET /v1/email/templates), reloaded when the account changes. */
export function useTemplates(apiKey: string | undefined) {
  const [templates, setTemplates] = useState<TemplateRecord[]>([]);
  const [error, setError] = useState<string | null>(null);
  // The account shown now: an answer for the one before a switch is dropped (its templates are not this one's).
  const current = useRef(apiKey);
  current.current = apiKey;
  const reload = useCallback(async () => {
    if (!apiKey) return;
    try {
      const data = (await serviceAs(apiKey).listTemplates()).data;
      if (current.current !== apiKey) return;
      setTemplates(data);
      setError(null);
    } catch (err) {
      if (current.current === apiKey) setError(describeError(err));
    }
  }, [apiKey]);
  useEffect(() => {
    setTemplates([]);
    void reload();
  }, [reload]);
  return { templates, error, reload };
}

/**
 * The Substitutions field's text as the send's `substitutions`: `{"<recipient address>": {"var": "value"},
 * "*": {...}}`. Empty text sends none; anything else that is not such an object says why.
 */
export function parseSubstitutions(text: string): { value?: Substitutions; error?: string } {
  if (!text.trim()) return { value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `Substitutions are not valid JSON: ${(err as Error).message}` };
  }
  const example = '{"ann@example.com": {"name": "Ann"}, "*": {"order": "1042"}}';
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: `Substitutions must be a JSON object such as ${example}` };
  for (const [key, values] of Object.entries(parsed)) {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      return { error: `Substitutions["${key}"] must be an object of values such as {"name": "Ann"}` };
    }
  }
  return { value: parsed as Substitutions };
}

/** A suggestion for the Substitutions field: the template's variables, for every recipient. */
export function substitutionsHint(template: TemplateRecord | undefined): string {
  const names = template?.variables.length ? template.variables : ['name'];
  return JSON.stringify({ '*': Object.fromEntries(names.map((n) => [n, '…'])) });
}

/** Saves the form's subject and content as a new template (POST /v1/email/template). */
export function SaveAsTemplate({
  apiKey,
  subject,
  content,
  onSaved,
}: {
  apiKey: string | undefined;
  subject: string;
  content: Content;
  onSaved: (templateId: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, run } = useRun();
  const save = async () => {
    if (!apiKey) return;
    setSaved(null);
    const res = await run(() => serviceAs(apiKey).createTemplate({ name, subject, content }));
    if (!res) return;
    setSaved(`Saved as template “${name.trim()}”: ${res.template_id}`);
    setOpen(false);
    setName('');
    onSaved(res.template_id);
  };
  // Enter saves the template (not the send form around it).
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    void save();
  };
  return (
    <span className="fire-inline">
      {open ? (
        <>
          <input
            className="input"
            aria-label="Template name"
            placeholder="template name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={onKey}
          />
          <button type="button" className="button small" disabled={busy || !name.trim()} onClick={() => void save()}>
            Save template
          </button>
          <button type="button" className="button small" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" className="button small" disabled={!apiKey} onClick={() => setOpen(true)} title="Save this subject, HTML and text as a template">
          Save as template…
        </button>
      )}
      {saved && !open && (
        <span className="notice small" role="status" data-testid="template-saved">
          {saved}
        </span>
      )}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
