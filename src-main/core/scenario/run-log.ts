import type { ScenarioLogLine } from '../../../src-shared/scenario/report';

/** A run's log is bounded: its first lines (how the app started) and its latest are kept, the middle dropped. */
export const RUN_LOG_LIMITS = {
  /** Lines kept from the start of the run. */
  headLines: 200,
  /** Latest lines kept. */
  tailLines: 1800,
  /** A longer line is cut here (characters), marked with an ellipsis. */
  lineChars: 1000,
} as const;

/**
 * One run's log: the runner's steps and the app's stdout and stderr, in the order written, with
 * wall-clock times. Read while the run goes on (`since`) and written beside the report (`text`).
 */
export class RunLog {
  private readonly head: ScenarioLogLine[] = [];
  private readonly tail: ScenarioLogLine[] = [];
  private written = 0;
  private droppedCount = 0;

  constructor(private readonly onLine?: (line: ScenarioLogLine) => void) {}

  add(source: ScenarioLogLine['source'], text: string): void {
    const cut = text.length > RUN_LOG_LIMITS.lineChars ? `${text.slice(0, RUN_LOG_LIMITS.lineChars)}…` : text;
    const line: ScenarioLogLine = { n: ++this.written, at: new Date().toISOString(), source, text: cut };
    if (this.head.length < RUN_LOG_LIMITS.headLines) this.head.push(line);
    else {
      this.tail.push(line);
      if (this.tail.length > RUN_LOG_LIMITS.tailLines) {
        this.tail.shift();
        this.droppedCount++;
      }
    }
    this.onLine?.(line);
  }

  /** Lines numbered after `after`, and the number to ask from next time. */
  since(after = 0): { lines: ScenarioLogLine[]; next: number; dropped: number } {
    const lines = [...this.head, ...this.tail].filter((l) => l.n > after);
    return { lines, next: this.written, dropped: this.droppedCount };
  }

  /** The whole kept log as text, one line each: `time [source] text`. */
  text(): string {
    const format = (l: ScenarioLogLine) => `${l.at} [${l.source}] ${l.text}`;
    const gap =
      this.droppedCount > 0
        ? [`... ${this.droppedCount} lines left out (a run keeps its first ${RUN_LOG_LIMITS.headLines} and last ${RUN_LOG_LIMITS.tailLines}) ...`]
        : [];
    return [...this.head.map(format), ...gap, ...this.tail.map(format)].join('\n') + (this.written > 0 ? '\n' : '');
  }
}
