import { useEffect, useState } from 'react';
import type { z } from 'zod';
import { eventFieldsOf } from '../../../src-shared/payload-format';
import type { FireEventResult } from '../../../src-shared/schemas/dispatch';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { control } from '../../api/clients';
import { useRun } from '../../api/use-run';
import { Link } from '../../components/Link';
import { useMessages } from '../../stores/messages-store';
import './SimulateTracking.css';

/** A link of the message, as the preview serves it (a tracked one already points at its own URL). */
export interface MessageLink {
  url: string;
  name: string;
  tracked: boolean;
}

/** The http(s) links of the preview's HTML, tracked ones first, each URL once. */
export function linksOf(previewHtml: string): MessageLink[] {
  const doc = new DOMParser().parseFromString(previewHtml, 'text/html');
  const seen = new Set<string>();
  const links: MessageLink[] = [];
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const url = a.getAttribute('href') ?? '';
    if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
    seen.add(url);
    const name = (a.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 500);
    links.push({ url, name, tracked: a.hasAttribute('data-mailyard-tracked-link') });
  }
  return links.sort((x, y) => Number(y.tracked) - Number(x.tracked));
}

/** Statuses of a copy that never reached the recipient's mailbox, so nobody could open it. */
const NOT_RECEIVED = new Set<string>(['bounced', 'failed']);

/**
 * "Simulate open", "Simulate click" and "Simulate unsubscribe": the preview never counts as either (API.md part 4), so a
 * user asks for one on purpose. Each fires a real event for this copy (its ref_id and recipient),
 * recorded with it and sent to the webhooks that take it; a click names one of the message's links.
 */
export function SimulateTracking({ d }: { d: Detail }) {
  const [links, setLinks] = useState<MessageLink[]>([]);
  const [chosen, setChosen] = useState('');
  const [result, setResult] = useState<z.output<typeof FireEventResult> | null>(null);
  const { busy, error, run, clearError } = useRun();
  const refresh = useMessages((s) => s.refreshDetail);

  useEffect(() => {
    setResult(null);
    clearError();
    setLinks([]);
    setChosen('');
    if (d.html === null) return;
    let gone = false;
    fetch(`/emulator/messages/${encodeURIComponent(d.id)}/html`)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then(
        (html) => {
          if (gone) return;
          const found = linksOf(html);
          setLinks(found);
          setChosen(found[0]?.url ?? '');
        },
        () => undefined,
      );
    return () => {
      gone = true;
    };
  }, [d.id, d.html, clearError]);

  const notReceived = NOT_RECEIVED.has(d.status);
  const why = notReceived ? `This copy ${d.status === 'bounced' ? 'bounced' : 'failed'}: it never reached a mailbox to be opened.` : undefined;

  const simulate = (event: 'open' | 'click' | 'unsubscribe') =>
    run(async () => {
      const link = links.find((l) => l.url === chosen);
      const fields = event === 'click' && link ? { url: link.url, link_name: link.name } : undefined;
      const res = await control.fireEvent({ event, ref_id: d.ref_id, recipient: d.recipient.email, ...(fields ? { fields } : {}) });
      setResult(res.data);
      await refresh();
    });

  return (
    // biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border, legend and min-width rules into the row's layout
    <div className="simulate-tracking" role="group" aria-label="Simulate tracking">
      <button
        type="button"
        className="button"
        disabled={busy || notReceived}
        title={why ?? 'Record an open of this copy, as its pixel would'}
        onClick={() => void simulate('open')}
      >
        Simulate open
      </button>
      {links.length > 0 && (
        <select className="input simulate-link" aria-label="Link to click" value={chosen} onChange={(e) => setChosen(e.target.value)} title={chosen}>
          {links.map((l) => (
            <option key={l.url} value={l.url}>
              {l.name ? `${l.name} · ${l.url}` : l.url}
              {l.tracked ? '' : ' (not tracked)'}
            </option>
          ))}
        </select>
      )}
      <button
        type="button"
        className="button"
        disabled={busy || notReceived}
        title={why ?? (chosen ? `Record a click on ${chosen}` : 'Record a click (the message has no links: an example URL)')}
        onClick={() => void simulate('click')}
      >
        Simulate click
      </button>
      <button
        type="button"
        className="button"
        disabled={busy || notReceived || d.status === 'unsubscribed'}
        title={
          why ??
          (d.status === 'unsubscribed'
            ? 'This recipient already unsubscribed'
            : 'Record an unsubscribe of this recipient, as its link would: the address becomes suppressed for the account')
        }
        onClick={() => void simulate('unsubscribe')}
      >
        Simulate unsubscribe
      </button>
      {result && (
        <span className={result.sent ? 'notice small' : 'warn small'} data-testid="simulate-result">
          {result.sent ? (
            <>
              {String(eventFieldsOf(result.payload).event)} recorded and sent: delivery{' '}
              <Link to={`/deliveries/${result.delivery_id}`}>{result.delivery_id}</Link>
            </>
          ) : (
            `${String(eventFieldsOf(result.payload).event)} recorded, not sent: ${result.reason}`
          )}
        </span>
      )}
      {error && <span className="error small">{error}</span>}
      {why && <span className="muted small">{why}</span>}
    </div>
  );
}
