/**
 * The desktop app starts on the usual ports (HTTP 4400, SMTP 2525), like `mailyard serve`; when one
 * is taken (another Mailyard, a `mailyard serve` in a terminal, anything else), it takes a free one
 * instead of failing, and says so.
 */
export const DEFAULT_PORTS = { http: 4400, smtp: 2525 } as const;

export interface Ports {
  http: number;
  smtp: number;
}

export interface PortFallback {
  which: 'http' | 'smtp';
  wanted: number;
}

function inUsePort(err: unknown): number | undefined | null {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== 'EADDRINUSE') return null;
  return typeof e.port === 'number' ? e.port : undefined;
}

/**
 * Calls `start` with the preferred ports; each time it fails because a port is in use, tries again
 * with that port set to 0 (the system picks a free one). When the error does not say which port,
 * every preferred port still in play is given up. Other errors are thrown as they are.
 */
export async function startWithPortFallback<T>(
  start: (ports: Ports) => Promise<T>,
  preferred: Ports = DEFAULT_PORTS,
): Promise<{ result: T; fallbacks: PortFallback[] }> {
  const ports = { ...preferred };
  const fallbacks: PortFallback[] = [];
  for (;;) {
    try {
      return { result: await start({ ...ports }), fallbacks };
    } catch (err) {
      const port = inUsePort(err);
      if (port === null) throw err;
      const taken = (['http', 'smtp'] as const).filter((which) => ports[which] !== 0 && (port === undefined || ports[which] === port));
      if (taken.length === 0) throw err;
      for (const which of taken) {
        fallbacks.push({ which, wanted: ports[which] });
        ports[which] = 0;
      }
    }
  }
}

/** The sentence shown when a default port was taken, or null when none was. */
export function describeFallbacks(fallbacks: PortFallback[], actual: { http: number; smtp: number | null }): string | null {
  if (fallbacks.length === 0) return null;
  const parts = fallbacks.map(({ which, wanted }) => {
    const now = which === 'http' ? actual.http : actual.smtp;
    return `${which === 'http' ? 'HTTP' : 'SMTP'} port ${wanted} was in use, so Mailyard listens on ${String(now)} instead`;
  });
  return `${parts.join('; ')}.`;
}
