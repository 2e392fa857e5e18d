import { type FormEvent, useEffect, useState } from 'react';
import type { SendEmailBody } from '../../../src-shared/schemas/email';
import { SIMULATOR_ADDRESSES, type SimulatorLocalPart, simulatorAddress } from '../../../src-shared/simulator';
import { describeError, fieldErrors, serviceAs } from '../../api/clients';
import { useChosenAccount } from '../../components/AccountSelect';
import { describedBy, FieldError, problemsElsewhere } from '../../components/FieldError';
import { useOverview } from '../../stores/overview-store';
import { SendAnswer } from './SendAnswer';
import { SuppressedRecipients, useSuppressedRecipients } from './SuppressedRecipients';
import { addressWords, FIELDS, fileWords, keyWords, type SendProblem, settingWords } from './send-problems';
import { parseSubstitutions, SaveAsTemplate, substitutionsHint, useTemplates } from './templates';

/** The simulator's addresses (one click adds one to To) and what each does. */
const SIMULATOR = Object.entries(SIMULATOR_ADDRESSES).map(([local, a]) => [local as SimulatorLocalPart, a.does] as const);

const list = (text: string) =>
  text
    .split(/[,;\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((email) => {
      const m = /^(.*)<([^>]+)>$/.exec(email);
      return m ? { email: m[2]!.trim(), name: m[1]!.trim().replace(/^"|"$/g, '') } : { email };
    });

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('cannot read the file'));
    reader.readAsDataURL(file);
  });
}

interface Answer {
  refId: string;
  body: unknown;
  /** Request paths the API ignored (X-Mailyard-Ignored). */
  ignored: string[];
  /** What the real service would have refused (X-Mailyard-Warning). */
  warnings: string[];
}

/** The switches of `settings` the form offers, by their label. */
const SWITCHES = [
  ['open_tracking', 'open'],
  ['click_tracking', 'click'],
  ['unsubscribe', 'unsubscribe'],
] as const;
type Switch = (typeof SWITCHES)[number][0];

export function SendEmail() {
  const { accounts } = useOverview();
  const [account] = useChosenAccount(accounts);
  const [from, setFrom] = useState('App <app@example.com>');
  const [to, setTo] = useState('');
  const [cc, setCc] = useState('');
  const [bcc, setBcc] = useState('');
  const [subject, setSubject] = useState('Hello from Mailyard');
  const [html, setHtml] = useState('<h1>Hello!</h1>\n<p>This is a test. <a href="https://example.com/welcome">Open the welcome page</a>.</p>');
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [tracking, setTracking] = useState<Record<Switch, boolean>>({ open_tracking: false, click_tracking: false, unsubscribe: false });
  const { templates, error: templatesError, reload: reloadTemplates } = useTemplates(account?.api_key);
  const [templateId, setTemplateId] = useState('');
  const template = templates.find((t) => t.template_id === templateId);
  // Templates are the account's own.
  // biome-ignore lint/correctness/useExhaustiveDependencies: another account chosen clears the template
  useEffect(() => setTemplateId(''), [account?.id]);
  const [substitutionsText, setSubstitutionsText] = useState('');
  const substitutions = parseSubstitutions(substitutionsText);
  const [campaign, setCampaign] = useState('');
  const [args, setArgs] = useState('');
  const [busy, setBusy] = useState(false);
  // Recipients the account's suppression list holds: said before the send, which still goes as the service takes it.
  const suppressed = useSuppressedRecipients(
    account?.id,
    [...list(to), ...list(cc), ...list(bcc)].map((r) => r.email),
  );
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<SendProblem | null>(null);
  const errs = error?.errors;
  const has = (path: string) => Boolean(errs?.some((e) => e.path === path || e.path.startsWith(`${path}.`)));
  const marked = FIELDS.filter(([path]) => has(path)).map(([, label]) => label);
  const elsewhere = problemsElsewhere(
    errs,
    FIELDS.map(([path]) => path),
  );

  const content = () => [
    ...(html.trim() ? [{ type: 'text/html' as const, value: html }] : []),
    ...(text.trim() ? [{ type: 'text/plain' as const, value: text }] : []),
  ];

  // Choosing a template empties subject, HTML and text: the template's are sent unless one is filled in again.
  const chooseTemplate = (id: string) => {
    setTemplateId(id);
    if (id) {
      setSubject('');
      setHtml('');
      setText('');
    }
  };

  const addSim = (local: SimulatorLocalPart) => {
    const address = simulatorAddress(local);
    setTo((t) => (t.trim() ? `${t.trim().replace(/,$/, '')}, ${address}` : address));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!account || substitutions.error) return;
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const [sender] = list(from);
      const customArgs = Object.fromEntries(
        args
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => {
            const i = l.indexOf('=');
            return i < 0 ? [l, ''] : [l.slice(0, i).trim(), l.slice(i + 1).trim()];
          }),
      );
      const parts = content();
      const subs = substitutions.value ?? {};
      const on = (k: Switch) => ({ enable: tracking[k] });
      const body: SendEmailBody = {
        from: sender ?? { email: '' },
        to: list(to),
        ...(list(cc).length ? { cc: list(cc) } : {}),
        ...(list(bcc).length ? { bcc: list(bcc) } : {}),
        // With a template, an empty subject or content is left out (the template's are used).
        ...(template && !subject ? {} : { subject }),
        ...(template && parts.length === 0 ? {} : { content: parts }),
        ...(template ? { template_id: template.template_id } : {}),
        ...(Object.keys(subs).length ? { substitutions: subs } : {}),
        ...(files.length
          ? {
              attachments: await Promise.all(files.map(async (f) => ({ filename: f.name, content: await readBase64(f), ...(f.type ? { type: f.type } : {}) }))),
            }
          : {}),
        ...(SWITCHES.some(([k]) => tracking[k])
          ? { settings: { open_tracking: on('open_tracking'), click_tracking: on('click_tracking'), unsubscribe: on('unsubscribe') } }
          : {}),
        ...(campaign.trim() ? { campaign_id: campaign.trim() } : {}),
        ...(Object.keys(customArgs).length ? { custom_args: customArgs } : {}),
      };
      // What the API accepted but ignored (X-Mailyard-Ignored) is shown beside the answer.
      const ignored: string[] = [];
      const warnings: string[] = [];
      const res = await serviceAs(
        account.api_key,
        (paths) => ignored.push(...paths),
        (said) => warnings.push(...said),
      ).sendEmail(body);
      setAnswer({ refId: res.ref_id, body: res, ignored, warnings });
    } catch (err) {
      setError({ message: describeError(err), errors: fieldErrors(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="wide">
      <form className="card send-form" onSubmit={(e) => void submit(e)} aria-labelledby="send-title">
        <div className="card-head">
          <h2 id="send-title">Send a test email</h2>
          <span className="muted small">POST /v1/email/send as {account?.name ?? '…'}</span>
        </div>
        <div className="grid2">
          <label className="field">
            <span>From</span>
            <input className="input" value={from} onChange={(e) => setFrom(e.target.value)} {...describedBy('send-error-from', has('from'))} />
            <FieldError
              errors={errs}
              path="from"
              id="send-error-from"
              words={(rest, message) =>
                rest[0] === 'name'
                  ? `the name ${message}`
                  : `${list(from)[0]?.email ? `“${list(from)[0]!.email}” ` : ''}${message.replace(/^must be an email address$/, 'is not an email address')}`
              }
            />
          </label>
          <label className="field">
            <span>Subject</span>
            <input
              className="input"
              value={subject}
              onChange={(e) => setSubject(e.target.value)}
              placeholder={template ? `the template's: ${template.subject}` : undefined}
              {...describedBy('send-error-subject', has('subject'))}
            />
            <FieldError errors={errs} path="subject" id="send-error-subject" />
          </label>
          <label className="field span2">
            <span>To</span>
            <input
              className="input"
              value={to}
              onChange={(e) => setTo(e.target.value)}
              placeholder="ann@example.com, Bob <bob@example.com>"
              {...describedBy('send-error-to', has('to'))}
            />
            <FieldError errors={errs} path="to" id="send-error-to" words={addressWords(list(to))} />
          </label>
          {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border, legend and min-width rules into the row's layout */}
          <div className="span2 sims" role="group" aria-label="Simulator recipients">
            <span className="muted small">Simulator:</span>
            {SIMULATOR.map(([local, what]) => (
              <button key={local} type="button" className="chip" title={`${simulatorAddress(local)}: ${what}`} onClick={() => addSim(local)}>
                {local}
              </button>
            ))}
          </div>
          <label className="field">
            <span>Cc</span>
            <input className="input" value={cc} onChange={(e) => setCc(e.target.value)} {...describedBy('send-error-cc', has('cc'))} />
            <FieldError errors={errs} path="cc" id="send-error-cc" words={addressWords(list(cc))} />
          </label>
          <label className="field">
            <span>Bcc</span>
            <input className="input" value={bcc} onChange={(e) => setBcc(e.target.value)} {...describedBy('send-error-bcc', has('bcc'))} />
            <FieldError errors={errs} path="bcc" id="send-error-bcc" words={addressWords(list(bcc))} />
          </label>
          <div className="field span2">
            <span>Template</span>
            <div className="fire-inline">
              <select
                className="input"
                aria-label="Template"
                value={templateId}
                onChange={(e) => chooseTemplate(e.target.value)}
                {...describedBy('send-error-template_id', has('template_id'))}
              >
                <option value="">none: the subject and content below</option>
                {templates.map((t) => (
                  <option key={t.template_id} value={t.template_id}>
                    {t.name}
                  </option>
                ))}
              </select>
              <SaveAsTemplate
                apiKey={account?.api_key}
                subject={subject}
                content={content()}
                onSaved={(id) => void reloadTemplates().then(() => setTemplateId(id))}
              />
            </div>
            {template && (
              <span className="muted small" data-testid="template-info">
                Sends template_id {template.template_id}: its subject and content, unless filled in below.
                {template.variables.length > 0 && <> Variables: {template.variables.map((v) => `{{${v}}}`).join(', ')}.</>}
              </span>
            )}
            <FieldError errors={errs} path="template_id" id="send-error-template_id" />
            {templatesError && <span className="field-error">{templatesError}</span>}
          </div>
          <label className="field span2">
            <span>HTML</span>
            <textarea
              className="input code"
              rows={7}
              value={html}
              onChange={(e) => setHtml(e.target.value)}
              placeholder={template ? "the template's content (fill in to send your own instead)" : undefined}
              {...describedBy('send-error-content', has('content'))}
            />
            <FieldError errors={errs} path="content" id="send-error-content" words={(_, message) => `the content ${message}`} />
          </label>
          <label className="field span2">
            <span>Text</span>
            <textarea className="input code" rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder="Plain-text part (optional)" />
          </label>
          <label className="field span2">
            <span>Substitutions (JSON)</span>
            <textarea
              className="input code"
              rows={2}
              value={substitutionsText}
              onChange={(e) => setSubstitutionsText(e.target.value)}
              placeholder={`values of {{variables}} by recipient address, or "*" for all: ${substitutionsHint(template)}`}
              {...describedBy(substitutions.error ? 'substitutions-error' : 'send-error-substitutions', Boolean(substitutions.error) || has('substitutions'))}
            />
            {!substitutions.error && (
              <FieldError
                errors={errs}
                path="substitutions"
                id="send-error-substitutions"
                words={(rest, message) => (rest.length ? `“${rest.join('” → ')}”: ${message}` : message)}
              />
            )}
            {substitutions.error && (
              <span className="field-error" id="substitutions-error" data-testid="substitutions-error">
                {substitutions.error}
              </span>
            )}
          </label>
          <label className="field">
            <span>Attachments</span>
            <input
              type="file"
              multiple
              onChange={(e) => setFiles([...(e.target.files ?? [])])}
              {...describedBy('send-error-attachments', has('attachments'))}
            />
            <FieldError errors={errs} path="attachments" id="send-error-attachments" words={fileWords} />
          </label>
          <fieldset className="field toggles">
            <legend>Tracking</legend>
            {SWITCHES.map(([k, label]) => (
              <label key={k}>
                <input type="checkbox" checked={tracking[k]} onChange={(e) => setTracking({ ...tracking, [k]: e.target.checked })} /> {label}
              </label>
            ))}
            <FieldError errors={errs} path="settings" id="send-error-settings" words={settingWords} />
          </fieldset>
          <label className="field">
            <span>Campaign</span>
            <input
              className="input"
              value={campaign}
              onChange={(e) => setCampaign(e.target.value)}
              placeholder="spring-sale"
              {...describedBy('send-error-campaign_id', has('campaign_id'))}
            />
            <FieldError errors={errs} path="campaign_id" id="send-error-campaign_id" />
          </label>
          <label className="field">
            <span>Custom args (key=value per line)</span>
            <textarea
              className="input code"
              rows={2}
              value={args}
              onChange={(e) => setArgs(e.target.value)}
              placeholder="order=1234"
              {...describedBy('send-error-custom_args', has('custom_args'))}
            />
            <FieldError errors={errs} path="custom_args" id="send-error-custom_args" words={keyWords} />
          </label>
        </div>
        {account && <SuppressedRecipients accountName={account.name} suppressed={suppressed} />}
        <div className="toolbar">
          <button className="button primary" type="submit" disabled={busy || !account || Boolean(substitutions.error)}>
            {busy ? 'Sending…' : 'Send'}
          </button>
        </div>
        {error && (
          <div className="error" role="alert" data-testid="send-error">
            {/* With field problems, each is beside its field: here only which fields, and what no field shows. */}
            {errs && errs.length > 0 ? (
              <>
                {marked.length > 0 && <strong>Not sent: check {marked.join(', ')}.</strong>}
                {elsewhere.length > 0 && (
                  <ul>
                    {elsewhere.map((e) => (
                      <li key={`${e.path}-${e.message}`}>
                        {e.path || 'The request'} {e.message}
                      </li>
                    ))}
                  </ul>
                )}
              </>
            ) : (
              <strong>{error.message}</strong>
            )}
          </div>
        )}
      </form>
      {answer && <SendAnswer refId={answer.refId} body={answer.body} ignored={answer.ignored} warnings={answer.warnings} />}
    </main>
  );
}
