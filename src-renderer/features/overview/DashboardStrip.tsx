import { useEffect } from 'react';
import { DELIVERY_STATE_MEANING } from '../../components/delivery-state';
import '../../components/delivery-state.css';
import { Link } from '../../components/Link';
import { formatHourMinute } from '../../components/Time';
import { useStats } from '../../stores/stats-store';

/** Events per minute over the last hour, as an inline SVG bar chart (no chart library). */
export function EventsChart({ counts, from, bucketMs }: { counts: number[]; from: string; bucketMs: number }) {
  const W = 360;
  const H = 64;
  const max = Math.max(1, ...counts);
  const bw = W / counts.length;
  const total = counts.reduce((a, b) => a + b, 0);
  const start = Date.parse(from);
  return (
    <figure className="chart" aria-label={`Events per minute over the last hour: ${total} in all`}>
      <svg viewBox={`0 0 ${W} ${H + 14}`} width="100%" height={H + 14} role="img" aria-hidden="true" preserveAspectRatio="none">
        <line x1="0" y1={H + 0.5} x2={W} y2={H + 0.5} className="axis" />
        {counts.map((c, i) => {
          const h = c === 0 ? 0 : Math.max(2, (c / max) * (H - 4));
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a bar is its time bucket: the index is the bucket
            <rect key={i} x={i * bw + 0.5} y={H - h} width={Math.max(1, bw - 1.5)} height={h} rx="1" className="bar">
              <title>{`${formatHourMinute(start + i * bucketMs)}: ${c} event${c === 1 ? '' : 's'}`}</title>
            </rect>
          );
        })}
        <text x="0" y={H + 12} className="tick">
          −60 min
        </text>
        <text x={W} y={H + 12} className="tick" textAnchor="end">
          now
        </text>
      </svg>
      <figcaption className="muted small">events per minute (emulator clock), peak {max === 1 && total === 0 ? 0 : max}</figcaption>
    </figure>
  );
}

/** Counts of messages, events, failing (retrying) and failed deliveries, and the last hour of events: live. */
export function DashboardStrip() {
  const { stats, inFlight, load, follow } = useStats();
  useEffect(() => {
    void load();
    return follow();
  }, [load, follow]);
  if (!stats) return null;
  // Failing: still pending after at least one failed attempt (the receiver answers 5xx or is down), so retrying.
  const tiles: Array<[string, number, string, string, string, string?]> = [
    ['Messages', stats.messages, '/messages', 'stat-messages', ''],
    ['Events', stats.events, '/messages', 'stat-events', ''],
    ['Deliveries', stats.deliveries.total, '/deliveries', 'stat-deliveries', ''],
    ['Failing deliveries (retrying)', stats.deliveries.failing, '/deliveries?status=failing', 'stat-failing', ' failing', DELIVERY_STATE_MEANING.failing],
    ['Failed deliveries', stats.deliveries.failed, '/deliveries?status=failed', 'stat-failed', ' bad', DELIVERY_STATE_MEANING.failed],
  ];
  return (
    <section className="strip" aria-label="Dashboard">
      {tiles.map(([label, n, to, id, alarm, meaning]) => (
        <Link key={label} to={to} className={`tile${n > 0 ? alarm : ''}`} title={meaning}>
          <span className="n" data-testid={id}>
            {n.toLocaleString()}
          </span>
          <span className="muted small">{label}</span>
          {id === 'stat-deliveries' && inFlight > 0 && (
            <span className="small tone-live in-flight-count" data-testid="stat-in-flight" title={`sending: ${DELIVERY_STATE_MEANING.sending}`}>
              <span className="live-dot" aria-hidden="true" /> {inFlight.toLocaleString()} sending
            </span>
          )}
        </Link>
      ))}
      <EventsChart counts={stats.timeline.counts} from={stats.timeline.from} bucketMs={stats.timeline.bucket_ms} />
    </section>
  );
}
