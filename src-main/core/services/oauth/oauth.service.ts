import { createHash, randomBytes } from 'node:crypto';
import type { OAuthLoginBody, OAuthLoginResult } from '../../../../src-shared/schemas/mailers';
import { isoTimestamp, type Clock } from '../../clock';
import { AppError } from '../../errors';
import type { MailerRow, MailersRepo, OAuthRequestRow } from '../../store/mailers.repo';
import type { MailersService } from '../mailers/mailers.service';

/** How long a consent page and a code live, in emulated time. */
const REQUEST_TTL_MS = 10 * 60_000;
/** The lifetime of the access tokens this offline server issues. */
const TOKEN_TTL_S = 3600;

const invalid = (path: string, message: string) => new AppError('validation', `${path} ${message}`, [{ path, message }]);
const hashCode = (code: string) => createHash('sha256').update(code).digest('hex');
const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

/** What the consent page shows about a pending request. */
export interface ConsentRequest {
  state: string;
  appId: string;
  redirectUri: string | null;
  mailer: { id: string; name: string; email: string; type: string } | null;
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
 * The emulator as its own offline OAuth authorization server (authorization-code flow, RFC 6749 part
 * 4.1): `oauthLogin` without a token answers the consent page's URL; approving it redirects to the
 * client's `redirect_uri` with `code` and `state`; `oauthLogin` with `{code}` (or a token obtained
 * elsewhere) stores the token, sealed, on the mailer and turns its OAuth on.
 */
export class OAuthService {
  constructor(private readonly deps: OAuthDeps) {}

  private mailerFor(accountId: string, mailerId: string | undefined, type: OAuthLoginBody['type']): MailerRow | undefined {
    if (mailerId === undefined) return undefined;
    const row = this.deps.mailers.get(accountId, mailerId);
    if (type !== undefined && row.config_type !== type) throw invalid('type', `must match the mailer's config_type (${row.config_type})`);
    return row;
  }

  login(accountId: string, body: OAuthLoginBody): OAuthLoginResult {
    const now = this.deps.clock.now();
    this.deps.repo.pruneOAuthRequests(now - REQUEST_TTL_MS);
    let mailer = this.mailerFor(accountId, body.mailer_id, body.type);
    const token = body.token;
    if (token === undefined) {
      const state = secret(24);
      this.deps.repo.insertOAuthRequest({
        state,
        account_id: accountId,
        app_id: body.app_id,
        redirect_uri: body.redirect_uri ?? null,
        mailer_id: mailer?.id ?? null,
        type: body.type ?? mailer?.config_type ?? null,
        status: 'pending',
        code_hash: null,
        created_ms: now,
        expires_ms: now + REQUEST_TTL_MS,
      });
      const url = new URL('/oauth/authorize', this.deps.baseUrl());
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', body.app_id);
      if (body.redirect_uri) url.searchParams.set('redirect_uri', body.redirect_uri);
      url.searchParams.set('state', state);
      return { authorization_url: url.toString(), state, expires_at: isoTimestamp(now + REQUEST_TTL_MS) };
    }

    if ('code' in token) {
      const request = this.deps.repo.oauthRequestByCode(hashCode(token.code));
      if (!request || request.account_id !== accountId || request.status !== 'approved' || request.expires_ms <= now) {
        throw invalid('token.code', 'is not a valid code: unknown, expired or already used');
      }
      if (request.app_id !== body.app_id) throw invalid('app_id', 'is not the app the code was issued to');
      if (body.redirect_uri !== undefined && body.redirect_uri !== request.redirect_uri) {
        throw invalid('redirect_uri', 'must be the redirect_uri of the authorization request');
      }
      mailer ??= this.mailerFor(accountId, request.mailer_id ?? undefined, body.type);
      if (!mailer) throw invalid('mailer_id', 'is required: the code was not requested for a mailer');
      this.deps.repo.setOAuthRequest(request.state, 'used', request.code_hash);
      return this.store(mailer, {
        access_token: `mya_${secret(32)}`,
        refresh_token: `myr_${secret(32)}`,
        token_type: 'Bearer',
        scope: mailer.config_type === 'smtp' ? 'mail.send' : 'mail.read',
        expires_at: isoTimestamp(now + TOKEN_TTL_S * 1000),
        app_id: body.app_id,
      });
    }

    if (!mailer) throw invalid('mailer_id', 'is required to store a token');
    return this.store(mailer, {
      access_token: token.access_token,
      refresh_token: token.refresh_token,
      token_type: token.token_type ?? 'Bearer',
      scope: token.scope ?? null,
      expires_at: token.expires_in === undefined ? null : isoTimestamp(now + token.expires_in * 1000),
      app_id: body.app_id,
    });
  }

  private store(mailer: MailerRow, token: Parameters<MailersService['storeToken']>[1]): OAuthLoginResult {
    this.deps.mailers.storeToken(mailer, token);
    return { mailer_id: mailer.id, oauth_active: true, token_type: token.token_type, scope: token.scope, expires_at: token.expires_at };
  }

  private pending(state: string): OAuthRequestRow | undefined {
    const request = this.deps.repo.oauthRequest(state);
    if (!request || request.status !== 'pending' || request.expires_ms <= this.deps.clock.now()) return undefined;
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
      accountName: this.deps.accountName(request.account_id),
    };
  }

  /**
   * The user's answer on the consent page: where the browser goes next, the client's redirect_uri (or
   * the emulator's own `/oauth/callback`) with `code` and `state`, or `error=access_denied`.
   */
  decide(state: string, approve: boolean): string | undefined {
    const request = this.pending(state);
    if (!request) return undefined;
    const target = new URL(request.redirect_uri ?? new URL('/oauth/callback', this.deps.baseUrl()).toString());
    if (approve) {
      const code = secret(24);
      this.deps.repo.setOAuthRequest(state, 'approved', hashCode(code));
      target.searchParams.set('code', code);
    } else {
      this.deps.repo.setOAuthRequest(state, 'denied', null);
      target.searchParams.set('error', 'access_denied');
    }
    target.searchParams.set('state', state);
    return target.toString();
  }

  /**
   * `/oauth/callback`, the redirect of requests made without a redirect_uri: the code is exchanged here
   * and the token stored on the request's mailer, so a login from the UI needs no client of its own.
   */
  callback(state: string, code: string): { ok: true; mailerName: string | null } | { ok: false; reason: string } {
    const request = this.deps.repo.oauthRequest(state);
    if (!request || request.redirect_uri !== null) return { ok: false, reason: 'This login is not known to this Mailyard.' };
    // Without a mailer there is nothing to store: the code is shown, for oauthLogin with a mailer_id.
    if (request.mailer_id === null) return { ok: true, mailerName: null };
    try {
      this.login(request.account_id, { app_id: request.app_id, token: { code }, mailer_id: request.mailer_id });
      return { ok: true, mailerName: this.deps.mailers.row(request.mailer_id)?.name ?? request.mailer_id };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, reason: err.message };
      throw err;
    }
  }
}
