import { useEffect, useRef, useState } from 'react';
import type { ScenarioLogLine, ScenarioRun } from '../../../src-shared/scenario/report';
import { isFinished, scenarios } from '../../api/scenarios';

/** How often the log of a run under way is read. */
const POLL_MS = 1000;
/** Lines shown at most (the whole log is the download). */
const SHOWN_LINES = 500;

const SOURCE_LABEL: Record<ScenarioLogLine['source'], string> = { runner: 'run', stdout: 'app', stderr: 'app stderr' };

/** A run's log, live while it runs and whole once it has ended: the runner's steps and the app's output. */
export function RunLog({ run }: { run: ScenarioRun }) {
  const [lines, setLines] = useState<ScenarioLogLine[]>([]);
  const [dropped, setDropped] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const finished = isFinished(run);
  /** The last line number read, for the run shown. */
  const read = useRef({ id: '', after: 0 });
  useEffect(() => {
    read.current = { id: run.id, after: 0 };
    setLines([]);
    setDropped(0);
  }, [run.id]);
  useEffect(() => {
    let stopped = false;
    const readMore = async () => {
      try {
        const part = await scenarios.log(run.id, read.current.after);
        if (stopped || read.current.id !== run.id) return;
        read.current.after = Math.max(read.current.after, part.next);
        setDropped(part.dropped);
        // Lines are numbered: one read twice (two reads racing) is shown once.
        setLines((all) => {
          const last = all.at(-1)?.n ?? 0;
          const fresh = part.lines.filter((l) => l.n > last);
          return fresh.length === 0 ? all : [...all, ...fresh].slice(-SHOWN_LINES);
        });
        setError(null);
      } catch (err) {
        if (!stopped) setError(`The run's log cannot be read: ${(err as Error).message}`);
      }
    };
    void readMore();
    // Once the run has ended, one more read has the rest of it.
    const timer = finished ? undefined : setInterval(() => void readMore(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [run.id, finished]);
  // Follow the newest line, as a terminal does, unless the person scrolled up.
  // biome-ignore lint/correctness/useExhaustiveDependencies: new lines are what it scrolls for
  useEffect(() => {
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 60) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <div className="scenario-log-wrap">
      <div className="form-row">
        <h3 className="small">Log</h3>
        <span className="muted small">
          The run's steps and the app's output, on the wall clock (UTC){dropped > 0 ? ` (${dropped} lines left out in the middle)` : ''}
        </span>
        <span className="spacer" />
        <a className="button small" href={scenarios.logTextUrl(run.id)} download={`scenario-${run.id}.log`}>
          Download log
        </a>
      </div>
      {error && <p className="error">{error}</p>}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log must take the focus to be scrolled with the keyboard */}
      <div ref={box} className="scenario-log" role="log" aria-label="Run log" tabIndex={0} data-testid="scenario-log">
        {lines.length === 0 ? (
          <span className="muted">Nothing yet.</span>
        ) : (
          lines.map((l) => (
            <div key={l.n} className={`scenario-log-line log-${l.source}`}>
              <span className="muted">{l.at.slice(11, 23)}</span> <span className="scenario-log-source">{SOURCE_LABEL[l.source]}</span> {l.text}
            </div>
          ))
        )}
      </div>
    </div>
  );
}
