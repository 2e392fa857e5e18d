import type { z } from 'zod';
import { EMAIL_EVENT_KINDS } from '../../../../src-shared/events';
import {
  CATCHER_LIMITS,
  type Catcher,
  CatcherMode,
  type CatcherRequest,
  type CreateCatcherBody,
  type UpdateCatcherBody,
} from '../../../../src-shared/schemas/catchers';
import type { ResolvedEventFlags } from '../../../../src-shared/schemas/webhooks';
import { type Clock, isoTimestamp } from '../../clock';
import { decodeCursor, paginate } from '../../cursor';
import { appError } from '../../error-catalogue';
import { monotonicUlids } from '../../ids';
import type { LiveBus } from '../../live-bus';
import type { CatcherRequestRow, CatchersRepo, CatcherWithCount } from '../../store/catchers.repo';
import type { OwnListener } from '../../store/webhooks.repo';
import type { AccountsService } from '../accounts.service';
import type { WebhooksService } from '../webhooks.service';
import { type CatcherAnswer, decideAnswer, holds } from './answer';
import { CatcherHolds, type HoldRefusal } from './holds';
import { signatureVerdict } from './signature';

/** The path of a catcher on Mailyard's own listener. */
export const catcherPath = (id: string): string => `/catch/${id}`;

/** Whether `url` is a catcher of the listener at `base` (Mailyard's own, so strict URL modes accept it). */
export function isOwnCatcherUrl(base: string, url: URL): boolean {
  if (base === '') return false;
  return url.origin === new URL(base).origin && /^\/catch\/[0-9A-Z]{26}(\/|$)/.test(url.pathname);
}

/**
 * The catchers of the listener whose URL `listener` answers (empty until it listens), as the webhooks'
 * store needs them: a webhook pointing at a catcher is kept as the catcher's path and read as its URL
 * on the listener now, so it follows the catcher to another port.
 */
export function catcherUrls(listener: () => string): OwnListener {
  return {
    catcherPath(value) {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return null;
      }
      return isOwnCatcherUrl(listener(), url) ? url.pathname + url.search : null;
    },
    urlOf(path) {
      const base = listener();
      return base === '' ? null : `${base}${path}`;
    },
  };
}

/** A request as the listener received it. */
export interface CaughtRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface CatchersDeps {
  repo: CatchersRepo;
  clock: Clock;
  /** Wall time: when a request arrived, and what its signature's timestamp is checked against. */
  wallClock: () => number;
  accounts: Pick<AccountsService, 'accountIdOr404' | 'signingSecrets'>;
  webhooks: Pick<WebhooksService, 'get' | 'register' | 'update'>;
  /** The HTTP listener's URL, once it listens. */
  baseUrl: () => string;
  /** Which delivery sent a request carrying a webhook-id, and which of its attempts it is (null: a copy, not an attempt). */
  sender: (webhookId: string) => { deliveryId: string; attempt: number | null } | undefined;
  live: LiveBus;
}

const ALL_KINDS = Object.fromEntries(EMAIL_EVENT_KINDS.map((kind) => [kind, true])) as ResolvedEventFlags;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
/** Past every ULID: the first page's bound. */
const AFTER_ALL = '~';

/**
 * How to answer a request: `release` gives back its slot among the held requests once a hang or delay
 * ends; `refused` names the bound that refused one (answered 503 at once).
 */
export interface ReceivedAnswer extends CatcherAnswer {
  release(): void;
  refused?: HoldRefusal;
}

const NOTHING_HELD = () => undefined;

/** Catchers: receivers inside Mailyard that record what they receive and answer as told. */
export class CatchersService {
  private readonly ids = monotonicUlids();
  private readonly held = new CatcherHolds();

  constructor(private readonly deps: CatchersDeps) {}

  create(body: z.infer<typeof CreateCatcherBody>): Catcher {
    const accountId = this.deps.accounts.accountIdOr404(body?.account_id);
    if (this.deps.repo.count(accountId) >= CATCHER_LIMITS.perAccount) throw appError('tooManyCatchers');
    const id = this.ids();
    this.deps.repo.insert({
      id,
      account_id: accountId,
      name: body?.name ?? `Catcher ${id.slice(-6).toLowerCase()}`,
      mode: JSON.stringify(body?.mode ?? CatcherMode.parse({})),
      received: 0,
      created_at: isoTimestamp(this.deps.clock.now()),
    });
    return this.get(id);
  }

  list(accountId: string | undefined): Catcher[] {
    return this.deps.repo.list(this.deps.accounts.accountIdOr404(accountId)).map((row) => this.toCatcher(row));
  }

  get(id: string): Catcher {
    return this.toCatcher(this.row(id));
  }

  update(id: string, body: z.infer<typeof UpdateCatcherBody>): Catcher {
    const row = this.row(id);
    this.deps.repo.update({ id, name: body.name ?? row.name, mode: body.mode ? JSON.stringify(body.mode) : row.mode });
    return this.get(id);
  }

  delete(id: string): { id: string; deleted: true } {
    if (!this.deps.repo.delete(id)) throw appError('catcherNotFound');
    return { id, deleted: true };
  }

  requests(id: string, query: { limit: number; cursor?: string }): { requests: CatcherRequest[]; next_cursor: string | null } {
    this.row(id);
    const before = query.cursor === undefined ? AFTER_ALL : decodeCursor(query.cursor, 'cursor');
    const { page, next } = paginate(this.deps.repo.requests(id, before, query.limit + 1), query.limit, (r) => r.id);
    return { requests: page.map(toRequest), next_cursor: next };
  }

  /** Points the catcher's account's EMAIL_EVENT webhook at it, every kind on. */
  async useAsWebhook(id: string): Promise<{ catcher_id: string; account_id: string; webhook_url: string; created: boolean }> {
    const catcher = this.get(id);
    const options = { events: ALL_KINDS };
    const existing = this.deps.webhooks.get(catcher.account_id, 'EMAIL_EVENT');
    if (existing) {
      await this.deps.webhooks.update(catcher.account_id, { event: 'EMAIL_EVENT', webhook_url: catcher.url, webhook_options: options });
    } else {
      await this.deps.webhooks.register(catcher.account_id, { event: 'EMAIL_EVENT', webhook_url: catcher.url, method: 'POST', webhook_options: options });
    }
    return { catcher_id: id, account_id: catcher.account_id, webhook_url: catcher.url, created: !existing };
  }

  /**
   * Records a request to catcher `id` and says how to answer it; undefined when there is no such
   * catcher. The request is stored (and announced) before the answer, so a hanging answer shows too,
   * and so does one refused because the catchers hold their most requests at once.
   */
  receive(id: string, request: CaughtRequest): ReceivedAnswer | undefined {
    const catcher = this.deps.repo.get(id);
    if (!catcher) return undefined;
    const mode = CatcherMode.parse(JSON.parse(catcher.mode));
    // Taken before the request is numbered (its answer is decided as it is), given back unless it holds.
    const slot = mode.hang || mode.delay_ms > 0 ? this.held.take(id) : undefined;
    try {
      const answer = this.record(id, catcher.account_id, mode, request, slot);
      if (typeof slot === 'object' && !(answer && holds(answer))) slot.release();
      return answer;
    } catch (err) {
      if (typeof slot === 'object') slot.release();
      throw err;
    }
  }

  private record(
    id: string,
    accountId: string,
    mode: CatcherMode,
    request: CaughtRequest,
    slot: ReturnType<CatcherHolds['take']> | undefined,
  ): ReceivedAnswer | undefined {
    const wallNow = this.deps.wallClock();
    const kept = request.body.subarray(0, CATCHER_LIMITS.bodyKeptBytes);
    const headers = JSON.stringify(request.headers);
    const webhookId = request.headers['webhook-id'];
    // An attempt of one of this emulator's deliveries, numbered as the delivery's log numbers it; a copy of
    // one's request (Copy as curl, replayed) names the delivery but is not one of its attempts.
    const sender = webhookId !== undefined && ULID.test(webhookId) ? this.deps.sender(webhookId) : undefined;
    let answer: ReceivedAnswer | undefined;
    const row = this.deps.repo.record(
      {
        id: this.ids(),
        catcher_id: id,
        method: request.method,
        path: request.path,
        headers,
        body: kept,
        body_bytes: request.body.length,
        size: kept.length + Buffer.byteLength(headers) + Buffer.byteLength(request.path),
        received_at: isoTimestamp(wallNow),
        emulator_at: isoTimestamp(this.deps.clock.now()),
        // A receiver holds the account's current secret: a request verifies when one of its signatures is that secret's.
        signature: signatureVerdict(this.deps.accounts.signingSecrets(accountId)[0] ?? null, request.headers, request.body, wallNow),
        delivery_id: sender?.deliveryId ?? null,
        attempt: sender?.attempt ?? null,
      },
      (n) => {
        const decided = decideAnswer(mode, n, request.headers);
        if (!holds(decided)) answer = { ...decided, release: NOTHING_HELD };
        else if (typeof slot === 'object') answer = { ...decided, release: slot.release };
        else answer = { status: 503, because: 'held_limit', delayMs: 0, release: NOTHING_HELD, refused: slot ?? 'all' };
        return { answered_status: answer.status, answered_because: answer.because };
      },
      { count: CATCHER_LIMITS.requestsKept, bytes: CATCHER_LIMITS.storedBytes },
    );
    if (!row || !answer) return undefined;
    if (this.deps.live.hasListeners('catcher.request')) this.deps.live.emit('catcher.request', toRequest(row));
    return answer;
  }

  private row(id: string): CatcherWithCount {
    const row = this.deps.repo.get(id);
    if (!row) throw appError('catcherNotFound');
    return row;
  }

  private toCatcher(row: CatcherWithCount): Catcher {
    return {
      id: row.id,
      account_id: row.account_id,
      name: row.name,
      url: `${this.deps.baseUrl()}${catcherPath(row.id)}`,
      mode: CatcherMode.parse(JSON.parse(row.mode)),
      requests_received: row.received,
      requests_kept: row.kept,
      created_at: row.created_at,
    };
  }
}

function toRequest(row: CatcherRequestRow): CatcherRequest {
  return {
    id: row.id,
    catcher_id: row.catcher_id,
    number: row.number,
    method: row.method,
    path: row.path,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body.toString('utf8'),
    body_bytes: row.body_bytes,
    body_truncated: row.body.length < row.body_bytes,
    received_at: row.received_at,
    emulator_at: row.emulator_at,
    answered_status: row.answered_status,
    answered_because: row.answered_because,
    signature: row.signature as CatcherRequest['signature'],
    delivery_id: row.delivery_id,
    attempt: row.attempt,
  };
}
