import { createHash, randomBytes } from 'node:crypto';
import type { OAuthConfigResponse, OAuthLoginBody, OAuthLoginResponse } from '../../../../src-shared/schemas/mailers';
import { type Clock, isoTimestamp } from '../../clock';
import { appError } from '../../error-catalogue';
import type { MailerRow, MailersRepo, OAuthRequestRow } from '../../store/mailers.repo';
import type { MailersService } from '../mailers/mailers.service';
import { idTokenEmail } from './id-token';
import { type OAuthOptions, OFFLINE_DEFAULT_ADDRESS, OFFLINE_SMTP, optionsOf, parseOptions, toOAuthConfig } from './oauth-config';

/** How long a consent page and a code live, in emulated time. */
const REQUEST_TTL_MS = 10 * 60_000;
/** The lifetime of the access tokens this offline server issues. */
const TOKEN_TTL_S = 3600;

const invalid = (path: string, problem: string) => appError('invalidField', { path, problem });
const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');
const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

/** What the consent page shows about a pending request. */
export interface ConsentRequest {
  state: string;
  appId: string;
  redirectUri: string | null;
  mailer: { id: string; name: string; email: string; type: string } | null;
  /** Without a mailer: the account's mailers the login's type fits, to choose from (the offline provider's account chooser). */
  choices: Array<{ id: string; name: string; email: string; type: string }>;
  accountName: string;
}

export interface OAuthDeps {
  /** The OAuth requests (consent pages and codes) are kept with the mailers. */
  repo: MailersRepo;
  mailers: MailersService;
  clock: Clock;
  /** The emulator's HTTP URL, for the consent page's address. */
  baseUrl: () => string;
  /** An account's name, as the consent page shows it. */
  accountName: (accountId: string) => string;
}

/**
 * The emulator as its own offline OAuth authorization server, answering oauthLogin as the real page
 * does (`{success, url}`): `url` is the consent page; approving it issues a token, stores it (sealed)
 * on the request's mailer with the login's options, turns its OAuth on, and redirects to the client's
 * `redirect_uri` with `code` and the client's `state`. `exchange_token: true` with a token stores it at once.
 */
export class OAuthService {
  constructor(private readonly deps: OAuthDeps) {}

  /** The request's mailer; `type` must fit it (smtp_imap fits either). */
  private mailerFor(accountId: string, mailerId: string | undefined, type: OAuthLoginBody['type']): MailerRow | undefined {
    if (mailerId === undefined || mailerId === '') return undefined;
    const row = this.deps.mailers.get(accountId, mailerId);
    if (type !== undefined && type !== 'smtp_imap' && row.config_type !== type)
      throw invalid('type', `must match the mailer's config_type (${row.config_type}) or be smtp_imap`);
    return row;
  }

  private target(request: Pick<OAuthRequestRow, 'redirect_uri' | 'state'>, options: Partial<OAuthOptions>): URL {
    if (request.redirect_uri === null) {
      const own = new URL('/oauth/callback', this.deps.baseUrl());
      own.searchParams.set('state', request.state);
      return own;
    }
    const target = new URL(request.redirect_uri);
    target.searchParams.set('state', options.client_state ?? request.state);
    return target;
  }

  login(accountId: string, body: OAuthLoginBody): OAuthLoginResponse {
    const now = this.deps.clock.now();
    this.deps.repo.pruneOAuthRequests(now - REQUEST_TTL_MS);
    const mailer = this.mailerFor(accountId, body.mailer_id, body.type);
    const options = optionsOf(body);
    const request: OAuthRequestRow = {
      state: secret(24),
      account_id: accountId,
      app_id: body.app_id,
      redirect_uri: body.redirect_uri ?? null,
      mailer_id: mailer?.id ?? null,
      type: body.type ?? mailer?.config_type ?? null,
      status: 'pending',
      code_hash: null,
      created_ms: now,
      expires_ms: now + REQUEST_TTL_MS,
      options: JSON.stringify(options),
    };
    if (body.exchange_token === true && body.token) {
      // A token obtained elsewhere: stored at once; `url` is where the login ends (the redirect or the own page).
      const token = body.token;
      const target = mailer ?? this.mailboxOf(accountId, body);
      this.deps.repo.insertOAuthRequest({ ...request, mailer_id: target.id, status: 'used' });
      this.store(target, options, {
        access_token: token.access_token ?? `mya_${secret(32)}`,
        refresh_token: token.refresh_token,
        token_type: token.token_type ?? 'Bearer',
        scope: token.scope ?? null,
        expires_at: token.expires_in === undefined ? null : isoTimestamp(now + token.expires_in * 1000),
        app_id: body.app_id,
      });
      const end = this.target(request, options);
      // A mailer made here is new to the client: the end of the login names it.
      if (!mailer) end.searchParams.set('mailer_id', target.id);
      return { success: true, url: end.toString() };
    }
    this.deps.repo.insertOAuthRequest(request);
    const url = new URL('/oauth/authorize', this.deps.baseUrl());
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', body.app_id);
    if (body.redirect_uri) url.searchParams.set('redirect_uri', body.redirect_uri);
    url.searchParams.set('state', request.state);
    return { success: true, url: url.toString() };
  }

  /**
   * The SMTP mailer an exchanged token without a mailer_id is stored on, made for the token's mailbox
   * as the real service does: the `email` of its `id_token` when that is a readable JWT, else the
   * offline provider's default mailbox. Only SMTP: the offline provider has no IMAP server to watch.
   */
  private mailboxOf(accountId: string, body: OAuthLoginBody): MailerRow {
    if (body.type !== 'smtp') {
      throw invalid(
        'mailer_id',
        `is required to exchange a token with type ${body.type}: without one an SMTP mailer is made for the token's mailbox, and the offline provider has no IMAP server to watch; create the IMAP mailer (configureIMAP) and give its mailer_id`,
      );
    }
    const email = idTokenEmail(body.token?.id_token) ?? OFFLINE_DEFAULT_ADDRESS;
    return this.deps.mailers.createOAuthSmtp(accountId, {
      name: email,
      email,
      host: OFFLINE_SMTP.host,
      port: OFFLINE_SMTP.port,
      username: email,
      secure: OFFLINE_SMTP.secure,
    });
  }

  /** getOAuthConfig: the mailer as the real page shows it; 404 `Email config not found`. */
  config(accountId: string, mailerId: string): OAuthConfigResponse {
    const row = this.deps.mailers.row(mailerId);
    if (!row || row.account_id !== accountId) throw appError('emailConfigNotFound');
    return toOAuthConfig(row);
  }

  private store(mailer: MailerRow, options: Partial<OAuthOptions>, token: Parameters<MailersService['storeToken']>[1]): void {
    // The login's options ride on the token's shown meta (oauth_meta), where getOAuthConfig reads them.
    const withOptions = {
      ...token,
      type: options.type ?? null,
      include_sent: options.include_sent ?? false,
      include_spam: options.include_spam ?? false,
      include_trash: options.include_trash ?? false,
      strict_replies: options.strict_replies ?? false,
    };
    this.deps.mailers.storeToken(mailer, withOptions);
  }

  private pending(state: string): OAuthRequestRow | undefined {
    const request = this.deps.repo.oauthRequest(state);
    if (request?.status !== 'pending' || request.expires_ms <= this.deps.clock.now()) return undefined;
    return request;
  }

  /** The pending request a consent page is about; undefined when unknown, expired or already decided. */
  consent(state: string): ConsentRequest | undefined {
    const request = this.pending(state);
    if (!request) return undefined;
    const mailer = request.mailer_id === null ? undefined : this.deps.mailers.row(request.mailer_id);
    return {
      state,
      appId: request.app_id,
      redirectUri: request.redirect_uri,
      mailer: mailer ? { id: mailer.id, name: mailer.name, email: mailer.email, type: mailer.config_type } : null,
      choices: mailer ? [] : this.choices(request).map((m) => ({ id: m.mailer_id, name: m.name, email: m.email, type: m.config_type })),
      accountName: this.deps.accountName(request.account_id),
    };
  }

  /** The account's mailers a request without a mailer may be granted to: those its type fits. */
  private choices(request: OAuthRequestRow) {
    const types: Array<'smtp' | 'imap'> = request.type === 'smtp' || request.type === 'imap' ? [request.type] : ['smtp', 'imap'];
    return types.flatMap((t) => this.deps.mailers.list(request.account_id, t));
  }

  /**
   * The user's answer on the consent page: on approval a token is issued and stored on the request's
   * mailer (with the login's options; its IMAP webhook set from `webhook`). Answers where the browser
   * goes next: the client's redirect_uri (or the emulator's own `/oauth/callback`) with `code` and
   * `state`, or `error=access_denied`.
   */
  async decide(state: string, approve: boolean, chosen?: string): Promise<string | undefined> {
    const request = this.pending(state);
    if (!request) return undefined;
    // A request without a mailer is granted to the mailer chosen on the page, when it is one of the choices.
    if (request.mailer_id === null && chosen && this.choices(request).some((m) => m.mailer_id === chosen)) {
      request.mailer_id = chosen;
      this.deps.repo.setOAuthRequestMailer(state, chosen);
    }
    const options = parseOptions(request.options);
    const target = this.target(request, options);
    if (!approve) {
      this.deps.repo.setOAuthRequest(state, 'denied', null);
      target.searchParams.set('error', 'access_denied');
      return target.toString();
    }
    const code = secret(24);
    this.deps.repo.setOAuthRequest(state, 'approved', hashCode(code));
    const mailer = request.mailer_id === null ? undefined : this.deps.mailers.row(request.mailer_id);
    if (mailer) {
      if (options.webhook && mailer.config_type === 'imap') {
        await this.deps.mailers.update(mailer.account_id, 'imap', { mailer_id: mailer.id, webhook: options.webhook });
      }
      this.store(mailer, options, {
        access_token: `mya_${secret(32)}`,
        refresh_token: `myr_${secret(32)}`,
        token_type: 'Bearer',
        scope: mailer.config_type === 'smtp' ? 'mail.send' : 'mail.read',
        expires_at: isoTimestamp(this.deps.clock.now() + TOKEN_TTL_S * 1000),
        app_id: request.app_id,
      });
      this.deps.repo.setOAuthRequest(state, 'used', hashCode(code));
    }
    target.searchParams.set('code', code);
    return target.toString();
  }

  /** `/oauth/callback`, where requests made without a redirect_uri end: what the approval did. */
  callback(state: string): { ok: true; mailerName: string | null } | { ok: false; reason: string } {
    const request = this.deps.repo.oauthRequest(state);
    if (!request || request.redirect_uri !== null || request.status === 'pending' || request.status === 'denied') {
      return { ok: false, reason: 'This login is not known to this Mailyard.' };
    }
    if (request.mailer_id === null) return { ok: true, mailerName: null };
    return { ok: true, mailerName: this.deps.mailers.row(request.mailer_id)?.name ?? request.mailer_id };
  }
}
