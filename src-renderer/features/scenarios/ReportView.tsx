import { clockMoveSentence } from '../../../src-shared/scenario/clock-move';
import { inconclusiveReason, type ScenarioReport, type ScenarioViolation } from '../../../src-shared/scenario/report';
import { scenarios } from '../../api/scenarios';
import { Link } from '../../components/Link';

const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);

/** How a verdict and an expectation's result read, and their colour. */
const VERDICT = { pass: ['PASS', 'ok'], fail: ['FAIL', 'bad'], inconclusive: ['INCONCLUSIVE', 'warn'] } as const;
const RESULT = { passed: ['passed', 'ok'], failed: ['failed', 'bad'], 'not-judged': ['not judged', 'warn'] } as const;

function ViolationLinks({ v }: { v: ScenarioViolation }) {
  const links = [
    v.messageId ? (
      <Link key="m" to={`/messages/${encodeURIComponent(v.messageId)}`}>
        message
      </Link>
    ) : null,
    v.eventId ? (
      <Link key="e" to={`/deliveries?q=${encodeURIComponent(v.eventId)}`}>
        event
      </Link>
    ) : null,
    v.deliveryId ? (
      <Link key="d" to={`/deliveries/${encodeURIComponent(v.deliveryId)}`}>
        delivery
      </Link>
    ) : null,
  ].filter((l) => l !== null);
  if (links.length === 0) return <span className="muted">–</span>;
  return <span className="scenario-links">{links}</span>;
}

/**
 * A finished run's report: the verdict, totals and expectations (with each violation's links into the
 * UI) drawn here; the charts are the HTML report itself (its plots only: `#charts`) in a sandboxed frame (scripts, no origin).
 */
export function ReportView({ report }: { report: ScenarioReport }) {
  const [verdict, tone] = VERDICT[report.verdict];
  const inconclusive = inconclusiveReason(report);
  const t = report.totals;
  const rt = report.responseTimes;
  const violations = report.expectations.flatMap((e) => e.violations.map((v) => ({ ...v, expectation: v.expectation || e.id })));
  const totals: Array<[string, string | number]> = [
    ['Sends', t.sends],
    ['Recipients', t.recipients],
    ['Events', t.events],
    ['Webhook deliveries', t.deliveries],
    ['Delivery attempts', t.attempts],
    ['Acknowledged', t.acknowledged],
    ['Retries', t.retries],
    ['Given up', t.gaveUp],
    ['Duplicates', t.duplicates],
    ['Reordered', t.reordered],
    ['Outage refusals', t.outageRefusals],
    ['p50', ms(rt.p50)],
    ['p95', ms(rt.p95)],
    ['p99', ms(rt.p99)],
    ['Slowest', ms(rt.max)],
  ];
  const id = report.run.id;
  return (
    <section className="card scenario-report" aria-labelledby="scenario-report-title" data-testid="scenario-report">
      <div className="card-head">
        <h2 id="scenario-report-title">
          Report{' '}
          <span className={`pill scenario-verdict tone-${tone}`} data-testid="scenario-verdict">
            {verdict}
          </span>
        </h2>
        <span className="spacer" />
        <a className="button small" href={scenarios.reportHtmlUrl(id)} download={`scenario-${id}.html`}>
          Download HTML report
        </a>
        <a className="button small" href={scenarios.reportJsonUrl(id)} download={`scenario-${id}.json`}>
          Download JSON report
        </a>
      </div>
      <p className="muted small" data-testid="scenario-clock-move">
        {clockMoveSentence(report.clock)}
      </p>
      {inconclusive && (
        <p className="warn" role="note" data-testid="scenario-inconclusive">
          Inconclusive: {inconclusive}. An expectation with nothing to judge is not met.
        </p>
      )}
      <dl className="scenario-counts" aria-label="Totals">
        {totals.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Expectations</h3>
      {report.expectations.length === 0 ? (
        <p className="muted">The scenario set no expectations: nothing was judged.</p>
      ) : (
        <table className="table" data-testid="scenario-expectations">
          <thead>
            <tr>
              <th scope="col">Result</th>
              <th scope="col">Expectation</th>
              <th scope="col">Observed</th>
              <th scope="col">Violations</th>
            </tr>
          </thead>
          <tbody>
            {report.expectations.map((e) => (
              <tr key={e.id}>
                <td>
                  <span className={`pill tone-${RESULT[e.result][1]}`}>{RESULT[e.result][0]}</span>
                </td>
                <td>
                  <code>{e.id}</code> <span className="muted small">{e.description}</span>
                </td>
                <td>{e.observed}</td>
                <td className="count">{e.violations.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {violations.length > 0 && (
        <>
          <h3>Violations ({violations.length})</h3>
          <table className="table" data-testid="scenario-violations">
            <thead>
              <tr>
                <th scope="col">Expectation</th>
                <th scope="col">What happened</th>
                <th scope="col">Recipient</th>
                <th scope="col">Shown by</th>
              </tr>
            </thead>
            <tbody>
              {violations.map((v, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a finished report's violations, fixed; two may read alike
                <tr key={i}>
                  <td>
                    <code>{v.expectation}</code>
                  </td>
                  <td>{v.message}</td>
                  <td>{v.recipient ?? ''}</td>
                  <td>
                    <ViolationLinks v={v} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>Plots</h3>
      <iframe
        className="scenario-report-frame"
        title="Scenario report charts"
        src={`${scenarios.reportHtmlUrl(id)}#charts`}
        sandbox="allow-scripts"
        data-testid="scenario-report-frame"
      />
    </section>
  );
}
