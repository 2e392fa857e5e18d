import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthService } from '../../services/oauth/oauth.service';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, body: string, formTarget?: string): FastifyReply {
  // The consent form posts here and is redirected to the client: form-action allows that origin too.
  const formAction = ["'self'", formTarget ? new URL(formTarget).origin : ''].filter(Boolean).join(' ');
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${escapeHtml(title)}</title><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">` +
        `<h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

const STATE = /^[A-Za-z0-9_-]{16,64}$/;
const stateOf = (value: unknown) => (typeof value === 'string' && STATE.test(value) ? value : '');

/**
 * The consent page of the emulator's offline authorization server: `GET /oauth/authorize?state=...`
 * shows the request, `POST /oauth/authorize` (a form: state, decision) redirects to the client with a
 * code or `error=access_denied`; `GET /oauth/callback` finishes logins made without a redirect_uri.
 * Public like the tracking links (a browser opens them), outside the API key and the control guard.
 */
export function oauthRoutes(app: FastifyInstance, oauth: OAuthService): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const unknown = (reply: FastifyReply) =>
    page(reply, 400, 'Login request not valid', '<p>This login request is unknown, expired or already answered. Start the login again.</p>');

  app.get('/oauth/authorize', (request, reply) => {
    const consent = oauth.consent(stateOf((request.query as Record<string, unknown>).state));
    if (!consent) return unknown(reply);
    const mailer = consent.mailer
      ? `<p>It will be able to use the ${escapeHtml(consent.mailer.type.toUpperCase())} mailer <b>${escapeHtml(consent.mailer.name)}</b> (${escapeHtml(consent.mailer.email)}).</p>`
      : '';
    const choices =
      consent.choices.length === 0
        ? ''
        : `<fieldset><legend>Grant it to</legend>` +
          consent.choices
            .map(
              (c, i) =>
                `<label style="display:block"><input type="radio" name="mailer_id" value="${escapeHtml(c.id)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(c.type.toUpperCase())} <b>${escapeHtml(c.name)}</b> (${escapeHtml(c.email)})</label>`,
            )
            .join('') +
          `</fieldset>`;
    const back = consent.redirectUri ? `<p>You will then return to <code>${escapeHtml(consent.redirectUri)}</code>.</p>` : '';
    return page(
      reply,
      200,
      'Sign in with Mailyard',
      `<p><b>${escapeHtml(consent.appId)}</b> asks for access to the mail of the account <b>${escapeHtml(consent.accountName)}</b>.</p>${mailer}${back}` +
        `<form method="post" action="/oauth/authorize"><input type="hidden" name="state" value="${escapeHtml(consent.state)}">${choices}` +
        `<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny">Deny</button></form>` +
        `<p style="color:#666;font-size:.9rem">This is Mailyard's offline authorization server: no account leaves this machine.</p>`,
      consent.redirectUri ?? undefined,
    );
  });

  app.post('/oauth/authorize', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const decision = form.decision;
    if (decision !== 'approve' && decision !== 'deny') {
      return page(reply, 400, 'Login request not valid', '<p>The answer must be approve or deny.</p>');
    }
    const chosen = typeof form.mailer_id === 'string' ? form.mailer_id : undefined;
    const target = await oauth.decide(stateOf(form.state), decision === 'approve', chosen);
    if (!target) return unknown(reply);
    return reply.header('cache-control', 'no-store').redirect(target, 302);
  });

  app.get('/oauth/callback', (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const state = stateOf(query.state);
    if (query.error === 'access_denied') return page(reply, 200, 'Login denied', '<p>The login was denied; nothing was stored.</p>');
    // A code comes with a consent page's approval; an exchanged token ends here without one.
    const code = typeof query.code === 'string' ? query.code : '';
    if (!state) return unknown(reply);
    const result = oauth.callback(state);
    if (!result.ok) return page(reply, 400, 'Login not completed', `<p>${escapeHtml(result.reason)}</p>`);
    if (result.mailerName === null) {
      return page(
        reply,
        200,
        'Login approved',
        `${code ? `<p><code>${escapeHtml(code)}</code></p>` : ''}<p>The login was approved. It named no mailer, so no token was stored: start it again with a <code>mailer_id</code> to store one.</p>`,
      );
    }
    return page(reply, 200, 'Login successful', `<p>The token is stored on the mailer <b>${escapeHtml(result.mailerName)}</b>. You can close this window.</p>`);
  });
}
