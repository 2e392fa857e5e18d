import type { Scenario } from '../../../src-shared/scenario/format';
import type { SendEmailBody } from '../../../src-shared/schemas/email';
import type { Clock } from '../clock';

type Traffic = NonNullable<Scenario['traffic']>;

/** "50/s", "600/m", "1000/h" to sends per emulated millisecond. */
export function ratePerMs(rate: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(s|m|h)\s*$/.exec(rate)!;
  return Number(m[1]) / { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
}

/** The n-th send of the traffic (from 1). */
export function trafficSend(t: Traffic, n: number): SendEmailBody {
  const fill = (s: string) => s.replaceAll('{n}', String(n));
  return {
    from: { email: fill(t.from) },
    to: [{ email: fill(t.to) }],
    subject: fill(t.subject),
    ...(t.template_id ? { template_id: t.template_id } : { content: [{ type: 'text/html' as const, value: fill(t.html ?? `<p>Scenario message ${n}.</p>`) }] }),
    ...(t.substitutions ? { substitutions: { '*': t.substitutions } } : {}),
    campaign_id: 'scenario',
  } as SendEmailBody;
}

/**
 * Sends the traffic at its rate on the emulator clock (faster clock: faster sends), in order, one
 * at a time; stops early when `stopped()`; each failed send is reported and the rest go on.
 */
export async function runTraffic(opts: {
  traffic: Traffic;
  clock: Clock;
  send: (body: SendEmailBody) => Promise<unknown>;
  stopped: () => boolean;
  onError: (n: number, err: unknown) => void;
}): Promise<number> {
  const { traffic, clock } = opts;
  const perMs = ratePerMs(traffic.rate);
  const start = clock.now();
  let sent = 0;
  while (sent < traffic.count && !opts.stopped()) {
    const due = Math.min(traffic.count, Math.floor((clock.now() - start) * perMs) + 1);
    while (sent < due && !opts.stopped()) {
      sent++;
      try {
        await opts.send(trafficSend(traffic, sent));
      } catch (err) {
        opts.onError(sent, err);
      }
    }
    if (sent >= traffic.count || opts.stopped()) break;
    const nextAt = start + Math.ceil(sent / perMs);
    // Wake at the next send's emulated time, or in 250 ms of wall time to look at `stopped`.
    await new Promise<void>((resolve) => {
      const cancel = clock.setTimer(nextAt, () => {
        clearTimeout(wall);
        resolve();
      });
      const wall = setTimeout(() => {
        cancel();
        resolve();
      }, 250);
    });
  }
  return sent;
}
