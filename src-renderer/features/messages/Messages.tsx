import { useEffect, useMemo, useState } from 'react';
import { EMAIL_STATUSES } from '../../../src-shared/schemas/email';
import type { MessageSummary } from '../../../src-shared/schemas/messages';
import { parseMessageQuery } from '../../../src-shared/search/message-query';
import { StatusBadge } from '../../components/Badge';
import { CopyButton } from '../../components/CopyButton';
import { Link } from '../../components/Link';
import { ListDetail } from '../../components/ListDetail';
import { Time } from '../../components/Time';
import { navigate, useSearchParam } from '../../router';
import { useAccountName } from '../../stores/account-name';
import { type MessageFilters, useMessages } from '../../stores/messages-store';
import { useOverview } from '../../stores/overview-store';
import { ConfirmDialog } from './ConfirmDialog';
import { ExportMatches } from './ExportMatches';
import { ImportButton, ImportStatus, useMailImport } from './ImportMail';
import { MessageDetailPane } from './MessageDetail';
import { TagChips } from './MessageFlags';
import './Messages.css';

const ROW_HEIGHT = 56;

export function firstSendCommand(httpUrl: string, apiKey: string): string {
  return [
    `curl -X POST ${httpUrl}/v1/email/send \\`,
    `  -H 'Authorization: Bearer ${apiKey}' -H 'Content-Type: application/json' \\`,
    `  -d '{"from":{"email":"app@example.com"},"to":[{"email":"click@sim.mailyard.test"}],"subject":"Hello from Mailyard","content":[{"type":"text/html","value":"<p>Hello <a href=\\"https://example.com\\">there</a></p>"}]}'`,
  ].join('\n');
}

function EmptyInbox() {
  const { health, accounts } = useOverview();
  const account = accounts.find((a) => a.is_default) ?? accounts[0];
  if (!health || !account) return null;
  const cmd = firstSendCommand(health.urls.http, account.api_key);
  return (
    <div className="empty" data-testid="messages-empty">
      <h2>No messages yet</h2>
      <p className="muted">Send your first email with the API and it appears here at once:</p>
      <pre className="snippet">{cmd}</pre>
      <p>
        <CopyButton text={cmd} label="Copy command" /> or use the <Link to="/send">Send form</Link>
        {health.urls.smtp && (
          <>
            , or point any SMTP client at <code>{health.urls.smtp.replace('smtp://', '')}</code>
          </>
        )}
        .
      </p>
    </div>
  );
}

/** The mark of a message with attachments, as Mailpit's list shows it. */
function Paperclip() {
  return (
    <span className="paperclip" role="img" aria-label="has attachments" title="Has attachments">
      <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true">
        <path
          d="M16 7v9.5a4 4 0 0 1-8 0V5.5a2.5 2.5 0 0 1 5 0V15a1 1 0 0 1-2 0V7.5"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.8"
          strokeLinecap="round"
          transform="rotate(35 12 12)"
        />
      </svg>
    </span>
  );
}

function Row({ m }: { m: MessageSummary }) {
  const accountName = useAccountName(m.account_id);
  return (
    <div className={m.read ? 'mrow read' : 'mrow unread'} data-read={m.read} title={m.failed_reason ? `failed: ${m.failed_reason}` : undefined}>
      <div className="line">
        {!m.read && <span className="unread-dot" role="img" aria-label="unread" />}
        <span className="who">{m.recipient.email}</span>
        <span className="spacer" />
        {m.has_attachments && <Paperclip />}
        <span className="muted small">
          <Time emulator={m.created_at} />
        </span>
      </div>
      <div className="line">
        <span className="subject">{m.subject || '(no subject)'}</span>
        <span className="muted small ellipsis sender">· {m.from.email}</span>
        <span className="spacer" />
        <TagChips tags={m.tags} />
        {m.campaign_id && (
          <span className="badge gives-way" title={`Campaign: ${m.campaign_id}`}>
            {m.campaign_id}
          </span>
        )}
        <span className="badge gives-way" title={`Account: ${accountName}`} data-testid="message-account">
          {accountName}
        </span>
        <StatusBadge status={m.status} failedReason={m.failed_reason} />
      </div>
    </div>
  );
}

/** The filters kept in the URL (`/messages?q=...&status=...&campaign=...`), so a reload or a shared link keeps them. */
export function filtersSearch(f: Pick<MessageFilters, 'q' | 'status' | 'campaign_id' | 'account_id'>): string {
  const params = new URLSearchParams();
  if (f.q.trim()) params.set('q', f.q.trim());
  if (f.status) params.set('status', f.status);
  if (f.campaign_id.trim()) params.set('campaign', f.campaign_id.trim());
  if (f.account_id) params.set('account', f.account_id);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const differs = (u: ReturnType<typeof urlFilters>, f: MessageFilters) =>
  u.q !== f.q || u.status !== f.status || u.campaign_id !== f.campaign_id || u.account_id !== f.account_id;

function urlFilters(): Pick<MessageFilters, 'q' | 'status' | 'campaign_id' | 'account_id'> {
  const params = new URLSearchParams(window.location.search);
  const status = params.get('status') ?? '';
  return {
    q: params.get('q') ?? '',
    status: (EMAIL_STATUSES as readonly string[]).includes(status) ? status : '',
    campaign_id: params.get('campaign') ?? '',
    account_id: params.get('account') ?? '',
  };
}

/** How soon a search answered before the index caught up is asked again. */
const SEARCH_AGAIN_MS = 2000;

function Filters() {
  const { filters, setFilters, total, rows, loading, deleteMatching, indexPending, reload } = useMessages();
  const [q, setQ] = useState(filters.q);
  const [campaign, setCampaign] = useState(filters.campaign_id);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const mailImport = useMailImport();
  // A search set from elsewhere (a link to `/messages?q=<ref_id>`) shows in the box.
  useEffect(() => setQ(filters.q), [filters.q]);
  useEffect(() => setCampaign(filters.campaign_id), [filters.campaign_id]);
  // Typing searches after a short pause.
  useEffect(() => {
    if (q === filters.q && campaign === filters.campaign_id) return;
    const t = window.setTimeout(() => setFilters({ q, campaign_id: campaign }), 250);
    return () => window.clearTimeout(t);
  }, [q, campaign, filters.q, filters.campaign_id, setFilters]);
  // An answer the index was behind for is asked again by itself, so the list completes without a click.
  useEffect(() => {
    if (indexPending <= 0) return;
    const t = window.setTimeout(() => void reload(), SEARCH_AGAIN_MS);
    return () => window.clearTimeout(t);
  }, [indexPending, reload]);
  // What the query has that the search does not understand (the list answers the same `warnings`).
  const warnings = useMemo(() => parseMessageQuery(filters.q).warnings, [filters.q]);
  const filtered = filters.q.trim() !== '' || filters.status !== '' || filters.campaign_id.trim() !== '' || filters.account_id !== '';
  const count = total ?? rows.length;
  const deleteLabel = filtered ? `Delete ${count.toLocaleString()} match${count === 1 ? '' : 'es'}` : 'Delete all';
  return (
    <div className="list-toolbar messages-toolbar" data-testid="messages-toolbar">
      <div className="messages-toolbar-row">
        <input
          className="input grow"
          type="search"
          placeholder='Search: words, "a phrase", from:, to:, cc:, subject:, has:attachment, is:bounced, after:2026-11-24, -word'
          title='Words and "quoted phrases" over subject, addresses, text and HTML body, headers and attachment names (the last word may be unfinished); an address (ann@example.com, ann@, @example.com) as one word; from:ann, to:bob, cc:, bcc:, subject:receipt, message-id:, filename:invoice, has:attachment, is:bounced (any status), campaign:spring (a prefix), before: / after: a date or time (UTC, the emulator clock); -term or !term excludes; a ref_id or id finds its copies'
          aria-describedby={warnings.length ? 'messages-search-warnings' : undefined}
          aria-label="Search messages"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <span className="muted small count" data-testid="message-count">
          {total === null ? `${rows.length}` : total.toLocaleString()} message{total === 1 ? '' : 's'}
        </span>
      </div>
      {warnings.length > 0 && (
        <ul className="messages-search-warnings" id="messages-search-warnings" role="status" data-testid="search-warnings">
          {warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      {indexPending > 0 && (
        <p className="messages-search-incomplete" role="status" data-testid="search-incomplete">
          The search index is catching up: {indexPending.toLocaleString()} stored message{indexPending === 1 ? ' is' : 's are'} not searchable by words yet, so
          this list may miss some; it is asked again every {SEARCH_AGAIN_MS / 1000} s until it is complete.{' '}
          <button type="button" className="button small" onClick={() => void reload()}>
            Search again
          </button>
        </p>
      )}
      <div className="messages-toolbar-row">
        <select className="input" aria-label="Status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value })}>
          <option value="">any status</option>
          {EMAIL_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <input
          className="input narrow"
          placeholder="campaign"
          title="A campaign id, or its start"
          aria-label="Campaign"
          value={campaign}
          onChange={(e) => setCampaign(e.target.value)}
        />
        <span className="spacer" />
        <ImportButton imp={mailImport} />
        <ExportMatches filters={filters} count={count} filtered={filtered} ready={!loading && rows.length > 0} />
        {/* While a search is on its way, the rows and count shown answer the filters before it: nothing to delete by these yet. */}
        <button type="button" className="button danger small" disabled={loading || rows.length === 0} onClick={() => setConfirming(true)}>
          {deleteLabel}
        </button>
      </div>
      <ImportStatus imp={mailImport} />
      {confirming && (
        <ConfirmDialog
          title={filtered ? `Delete ${count.toLocaleString()} matching message${count === 1 ? '' : 's'}?` : 'Delete every captured message?'}
          confirmLabel={deleteLabel}
          busy={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setBusy(true);
            void deleteMatching().then(() => {
              setBusy(false);
              setConfirming(false);
              if (!filtered) navigate('/messages', true);
            });
          }}
        >
          <p className="messages-search-help">
            {filtered
              ? 'The messages these filters find go, with their events and scheduled events. Others stay.'
              : 'Every captured message goes, with its events and scheduled events.'}{' '}
            This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** Each recipient's copy is a row of its own, keyed (and opened at `/messages/<id>`) by its id. */
const getKey = (m: MessageSummary) => m.id;
const renderRow = (m: MessageSummary) => <Row m={m} />;

/** Every captured message, newest first and live; the open one beside the list. */
export function Messages() {
  const source = useMessages();
  const { reload, follow, detail, filters, setFilters } = source;
  // The filters live in the URL: `/messages?q=<text>&status=<status>&campaign=<prefix>` opens the list
  // filtered so (a send's ref_id as q lists every copy of the send); a reload keeps them.
  const urlSearch = [useSearchParam('q'), useSearchParam('status'), useSearchParam('campaign'), useSearchParam('account')].join('\u0000');

  useEffect(() => {
    const off = follow();
    const fromUrl = urlFilters();
    if (differs(fromUrl, useMessages.getState().filters)) setFilters(fromUrl);
    else void reload();
    return off;
  }, [follow, reload, setFilters]);
  // A link to another search while the screen is open (or Back).
  // biome-ignore lint/correctness/useExhaustiveDependencies: urlFilters() reads the URL, which urlSearch stands for
  useEffect(() => {
    const fromUrl = urlFilters();
    if (differs(fromUrl, useMessages.getState().filters)) setFilters(fromUrl);
  }, [urlSearch, setFilters]);
  // Filters changed here: into the URL (replacing the entry: typing is not history).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the filters change; it reads the store's newest through getState()
  useEffect(() => {
    // The store's filters now (this render's may be older than what the URL just set).
    const search = filtersSearch(useMessages.getState().filters);
    if (search !== window.location.search && window.location.pathname.startsWith('/messages')) navigate(window.location.pathname + search, true);
  }, [filters]);

  // "/" searches (unless typing in a field).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement;
      if (e.key === '/' && !typing) {
        e.preventDefault();
        document.querySelector<HTMLInputElement>('input[aria-label="Search messages"]')?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const filtered = filters.q !== '' || filters.status !== '' || filters.campaign_id !== '' || filters.account_id !== '';

  return (
    <ListDetail
      name="Messages"
      itemName="Message"
      basePath="/messages"
      source={source}
      getKey={getKey}
      renderRow={renderRow}
      rowHeight={ROW_HEIGHT}
      listLabel="Messages, newest first"
      testId="message-list"
      filters={<Filters />}
      filtered={filtered}
      noMatch="No message matches these filters."
      empty={<EmptyInbox />}
      detail={detail && <MessageDetailPane d={detail} />}
      hint={
        <>
          <p>Select a message to see it rendered, its source, headers and events.</p>
          <p className="muted small">
            Keys: <kbd>↑</kbd> <kbd>↓</kbd> move, <kbd>Enter</kbd> opens, <kbd>Esc</kbd> closes, <kbd>/</kbd> searches.
          </p>
        </>
      }
    />
  );
}
