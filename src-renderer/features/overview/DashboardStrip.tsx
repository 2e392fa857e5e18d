import { useEffect } from 'react';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { DELIVERY_STATE_MEANING } from '../../components/delivery-state';
import '../../components/delivery-state.css';
import { Link } from '../../components/Link';
import { formatHourMinute } from '../../components/Time';
import { useStats } from '../../stores/stats-store';

/** The chart's drawing box (SVG units; it is drawn at the card's width, so a unit is about a pixel at 980 px). */
const W = 900;
const H = 190;
const PAD = { left: 44, right: 8, top: 12, bottom: 28 };
/** The x axis's marks, in minutes before now. */
const MARKS = [60, 45, 30, 15, 0];

/** The smallest of 1, 2, 5, 10, 20, 50... at or above `n`: the y axis's top, so its labels are round. */
export function niceCeiling(n: number): number {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

/**
 * Email events per minute over the last hour, as an inline SVG bar chart (no chart library), readable
 * at a demo's distance: drawn at the card's full width, a y axis with round counts, the x axis marked
 * every 15 minutes, 13-unit labels (larger still with the presentation zoom).
 */
export function EventsChart({ counts, from, bucketMs }: { counts: number[]; from: string; bucketMs: number }) {
  const total = counts.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...counts);
  const top = niceCeiling(peak);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const bw = plotW / counts.length;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const start = Date.parse(from);
  const grid = top === 1 ? [0, 1] : [0, top / 2, top];
  return (
    <figure
      className="chart card"
      aria-label={`Email events per minute over the last hour: ${total} in all, at most ${peak} in a minute`}
      data-testid="events-chart"
    >
      <figcaption>
        <strong>Email events per minute</strong> <span className="muted">over the last hour (emulator clock)</span>
        <span className="muted chart-sum">
          {total.toLocaleString()} in all · peak {peak.toLocaleString()} a minute
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-hidden="true">
        {grid.map((v) => (
          <g key={v}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(v) + 0.5} y2={y(v) + 0.5} className={v === 0 ? 'axis' : 'grid'} />
            <text x={PAD.left - 8} y={y(v) + 4.5} className="tick" textAnchor="end">
              {v.toLocaleString()}
            </text>
          </g>
        ))}
        {counts.map((c, i) => {
          const h = c === 0 ? 0 : Math.max(2, (c / top) * plotH);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a bar is its time bucket: the index is the bucket
            <rect key={i} x={PAD.left + i * bw + 1} y={PAD.top + plotH - h} width={Math.max(1, bw - 2)} height={h} rx="1.5" className="bar">
              <title>{`${formatHourMinute(start + i * bucketMs)}: ${c} event${c === 1 ? '' : 's'}`}</title>
            </rect>
          );
        })}
        {MARKS.map((m) => {
          const x = PAD.left + plotW * (1 - m / 60);
          return (
            <text key={m} x={x} y={H - 8} className="tick" textAnchor={m === 60 ? 'start' : m === 0 ? 'end' : 'middle'}>
              {m === 0 ? 'now' : `−${m} min`}
            </text>
          );
        })}
      </svg>
    </figure>
  );
}

/**
 * One account's figures (the header's account: Overview follows the switcher like every screen): its
 * messages, email events, webhook deliveries (the requests Mailyard made to its webhook, not the
 * `delivery` email event), those retrying and those given up on, and its last hour of events. Live.
 */
export function DashboardStrip({ account }: { account: AccountRecord }) {
  const { stats, inFlight, load, follow } = useStats();
  useEffect(() => {
    void load(account.id);
  }, [load, account.id]);
  useEffect(() => follow(), [follow]);
  if (!stats || stats.account_id !== account.id) return null;
  // Failing: still pending after at least one failed attempt (the receiver answers 5xx or is down), so retrying.
  const tiles: Array<{ label: string; hint: string; n: number; to: string; id: string; alarm?: string; meaning?: string }> = [
    { label: 'Messages', hint: 'emails captured', n: stats.messages, to: '/messages', id: 'stat-messages' },
    { label: 'Email events', hint: 'delivered, opened, bounced…', n: stats.events, to: '/messages', id: 'stat-events' },
    { label: 'Webhook deliveries', hint: 'requests to your app', n: stats.deliveries.total, to: '/deliveries', id: 'stat-deliveries' },
    {
      label: 'Failing webhook deliveries',
      hint: 'your app failed; retrying',
      n: stats.deliveries.failing,
      to: '/deliveries?status=failing',
      id: 'stat-failing',
      alarm: ' failing',
      meaning: DELIVERY_STATE_MEANING.failing,
    },
    {
      label: 'Failed webhook deliveries',
      hint: 'your app never took them',
      n: stats.deliveries.failed,
      to: '/deliveries?status=failed',
      id: 'stat-failed',
      alarm: ' bad',
      meaning: `${DELIVERY_STATE_MEANING.failed}. Not bounced emails: those are email events.`,
    },
  ];
  return (
    <>
      <section className="strip" aria-label={`Figures of ${account.name}`} data-testid="dashboard-strip">
        <p className="strip-whose muted small" data-testid="stats-account">
          Figures of <strong className="account-name">{account.name}</strong> <span>(the account chosen in the header)</span>
        </p>
        {tiles.map((t) => (
          <Link key={t.id} to={t.to} className={`tile${t.n > 0 ? (t.alarm ?? '') : ''}`} title={t.meaning}>
            <span className="n" data-testid={t.id}>
              {t.n.toLocaleString()}
            </span>
            <span className="tile-label">{t.label}</span>
            <span className="muted small tile-hint">{t.hint}</span>
            {t.id === 'stat-deliveries' && inFlight > 0 && (
              <span className="small tone-live in-flight-count" data-testid="stat-in-flight" title={`sending: ${DELIVERY_STATE_MEANING.sending}`}>
                <span className="live-dot" aria-hidden="true" /> {inFlight.toLocaleString()} sending
              </span>
            )}
          </Link>
        ))}
      </section>
      <EventsChart counts={stats.timeline.counts} from={stats.timeline.from} bucketMs={stats.timeline.bucket_ms} />
    </>
  );
}
