import type { SMTPServer, SMTPServerSession } from 'smtp-server';

/**
 * What the sink reads of one of smtp-server's connections: its session, whether a message is
 * arriving or a handler (storing a message) has not answered yet, and how to answer and close.
 * None of it is in smtp-server's typed surface, so all of it is read defensively.
 */
export interface ConnectionView {
  session?: { id?: string; envelope?: { mailFrom?: unknown } };
  _dataStream?: unknown;
  _handlerPending?: boolean;
  send?: (code: number, message: string) => void;
  close?: () => void;
}

/** smtp-server's open connections. */
export function connectionsOf(server: SMTPServer): Iterable<ConnectionView> {
  return (server as unknown as { connections?: Set<ConnectionView> }).connections ?? [];
}

/** How often a session past its cap is looked at again while a message of it is still arriving or being stored. */
const RECHECK_MS = 1000;

/**
 * The total length of an SMTP session. smtp-server bounds only the silence between two packets, so a
 * client sending a byte now and then (or a NOOP a minute) holds its connection for as long as it
 * likes: past `limitMs` a session is told 421 and closed, once no message of it is arriving or being
 * stored (a message in flight is bounded by the DATA time-out and finishes first).
 */
export class SessionLimits {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly server: () => SMTPServer,
    private readonly limitMs: number,
  ) {}

  /** A session began (onConnect). */
  start(session: SMTPServerSession): void {
    this.arm(session.id, this.limitMs);
  }

  /** A session ended (onClose). */
  end(session: SMTPServerSession): void {
    const timer = this.timers.get(session.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(session.id);
  }

  /** Sessions being timed. */
  get open(): number {
    return this.timers.size;
  }

  private arm(id: string, ms: number): void {
    const timer = setTimeout(() => this.expire(id), ms);
    timer.unref();
    this.timers.set(id, timer);
  }

  private expire(id: string): void {
    this.timers.delete(id);
    for (const connection of connectionsOf(this.server())) {
      if (connection.session?.id !== id) continue;
      if (connection._dataStream || connection._handlerPending) {
        this.arm(id, RECHECK_MS);
        return;
      }
      connection.send?.(421, `Session too long: at most ${Math.round(this.limitMs / 1000)} s per connection, closing (connect again to go on)`);
      connection.close?.();
      return;
    }
  }
}
