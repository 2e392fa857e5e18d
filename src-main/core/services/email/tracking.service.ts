import type { EmailEventKind } from '../../../../src-shared/events';
import type { Clock } from '../../clock';
import { isNonPublicAddress } from '../../net/reachability';
import type { MessagesRepo } from '../../store/messages.repo';
import type { EmailEventsService } from '../events/email-events.service';

export interface GeoLocation {
  country: string;
  city: string;
}

/** Who asked: the requester's user agent and IP address, as the event reports them. */
export interface Requester {
  userAgent: string;
  ip: string;
}

/**
 * `geo_location` of an open: there is no GeoIP database offline, so a loopback or private address
 * (a developer's own browser or mail client) gets the configured default, and a public one "Unknown".
 */
export function geoOf(ip: string, localDefault: GeoLocation): GeoLocation {
  return isNonPublicAddress(ip) ? localDefault : { country: 'Unknown', city: 'Unknown' };
}

export interface TrackingDeps {
  messages: MessagesRepo;
  emailEvents: Pick<EmailEventsService, 'record'>;
  clock: Clock;
  geoDefault: GeoLocation;
}

/** The tracking endpoints' side: tokens to real open, click and unsubscribe events. */
export class TrackingService {
  constructor(private readonly deps: TrackingDeps) {}

  /** The pixel was loaded: an open event. False for an unknown token. */
  open(token: string, who: Requester): boolean {
    const t = this.deps.messages.token(token);
    if (t?.kind !== 'open') return false;
    this.emit(t.message_id, 'open', { user_agent: who.userAgent, ip_address: who.ip, geo_location: geoOf(who.ip, this.deps.geoDefault) });
    return true;
  }

  /** A tracked link was followed: a click event, and the URL it stands for (only that one). */
  click(token: string, who: Requester): string | undefined {
    const t = this.deps.messages.token(token);
    if (t?.kind !== 'click' || !t.url) return undefined;
    this.emit(t.message_id, 'click', { url: t.url, link_name: t.link_name ?? '', user_agent: who.userAgent, ip_address: who.ip });
    return t.url;
  }

  /** Whether the token is an unsubscribe link (for the confirmation page). */
  isUnsubscribeToken(token: string): boolean {
    return this.deps.messages.token(token)?.kind === 'unsubscribe';
  }

  /** The recipient unsubscribed (one-click or the page): an unsubscribe event, and the address is suppressed. */
  unsubscribe(token: string): boolean {
    const t = this.deps.messages.token(token);
    if (t?.kind !== 'unsubscribe') return false;
    this.emit(t.message_id, 'unsubscribe', {});
    return true;
  }

  private emit(messageId: string, kind: EmailEventKind, fields: Record<string, unknown>): void {
    this.deps.emailEvents.record(messageId, kind, fields, this.deps.clock.now());
  }
}
