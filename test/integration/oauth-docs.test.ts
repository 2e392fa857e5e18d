import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OAuthConfigResponse } from '../../src-shared/schemas/mailers';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { type RelayTarget, startRelayTarget } from '../helpers/relay-target';

let emu: TestEmulator;
let receiver: Receiver;
let target: RelayTarget;

beforeEach(async () => {
  receiver = await startReceiver();
  target = await startRelayTarget({ user: 'relay-user', pass: 'relay-pass-123', accessToken: (t) => t.startsWith('mya_') });
  emu = await startEmulator();
});
afterEach(async () => {
  await emu.cleanup();
  await receiver.close();
  await target.close();
});

const smtpMailer = async () =>
  (
    await emu.service.configureSMTP({
      name: 'Relay',
      email: 'app@example.com',
      config_type: 'smtp',
      connection_type: 'oauth',
      config: { host: '127.0.0.1', port: target.port, username: 'relay-user', secure: 'None' },
    } as never)
  ).data;

/** Approves a consent page the way a browser does: the form post, following the redirect. */
async function approve(url: string): Promise<Response> {
  const state = new URL(url).searchParams.get('state')!;
  expect((await fetch(url)).status).toBe(200);
  return fetch(`${emu.url}/oauth/authorize`, { method: 'POST', body: new URLSearchParams({ state, decision: 'approve' }), redirect: 'manual' });
}

const fieldsOf = async (body: unknown) => {
  const res = await emu.request('POST', '/v1/oauth/login', { body });
  expect(res.status, res.text).toBe(400);
  expect(res.json.success).toBe(false);
  return Object.keys(res.json.fields);
};

describe('POST /v1/oauth/login as rest-api/initiate-o-auth-login-flow shows it', () => {
  it('takes the page body {"app_id":"a","state":"s","type":"smtp"} and answers exactly {success, url}: the consent page', async () => {
    const res = await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'a', state: 's', type: 'smtp' } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['success', 'url']);
    expect(res.json.success).toBe(true);
    expect(res.json.url.startsWith(`${emu.url}/oauth/authorize?`)).toBe(true);
    const done = await approve(res.json.url);
    expect(done.status).toBe(302);
    expect(new URL(done.headers.get('location')!).pathname).toBe('/oauth/callback');
  });

  it('without mailer_id the consent page offers the mailers the type fits; approving grants the chosen one', async () => {
    const mailer = await smtpMailer();
    const res = await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'a', state: 's', type: 'smtp', redirect_uri: 'http://127.0.0.1:9/back' } });
    expect(res.status, res.text).toBe(200);
    const state = new URL(res.json.url).searchParams.get('state')!;
    const html = await (await fetch(res.json.url)).text();
    expect(html).toContain(`name="mailer_id" value="${mailer.mailer_id}"`);
    const done = await fetch(`${emu.url}/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({ state, decision: 'approve', mailer_id: mailer.mailer_id }),
      redirect: 'manual',
    });
    expect(new URL(done.headers.get('location')!).searchParams.get('state')).toBe('s');
    expect((await emu.request('GET', `/v1/oauth/${mailer.mailer_id}`)).json).toMatchObject({ active: true, mailer_id: mailer.mailer_id });
    // An IMAP-only login does not offer the SMTP mailer.
    const imapOnly = await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'a', type: 'imap', webhook: { url: receiver.url, method: 'POST' } } });
    expect(await (await fetch(imapOnly.json.url)).text()).not.toContain(mailer.mailer_id);
  });

  it('with every documented field: approving redirects with the client state and code, and GET /v1/oauth/{mailer_id} answers the flat configuration', async () => {
    const mailer = await smtpMailer();
    const redirect = receiver.url.replace('/hooks', '/oauth/done');
    const res = await emu.request('POST', '/v1/oauth/login', {
      body: {
        app_id: 'crm',
        mailer_id: mailer.mailer_id,
        redirect_uri: redirect,
        state: 'opaque-client-state',
        type: 'smtp',
        include_sent: false,
        include_spam: false,
        include_trash: false,
        strict_replies: true,
        exchange_token: false,
      },
    });
    expect(res.status, res.text).toBe(200);
    const done = await approve(res.json.url);
    expect(done.status).toBe(302);
    const location = new URL(done.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(redirect);
    expect(location.searchParams.get('state')).toBe('opaque-client-state');
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const config = await emu.request('GET', `/v1/oauth/${mailer.mailer_id}`);
    expect(config.status, config.text).toBe(200);
    const flat = OAuthConfigResponse.strict().parse(config.json);
    expect(flat).toMatchObject({
      active: true,
      connection_type: 'oauth',
      email: 'app@example.com',
      name: 'Relay',
      mailer_id: mailer.mailer_id,
      provider: 'mailyard',
      config_type: 'mailyard',
      include_sent: false,
      strict_replies: true,
      webhook: null,
    });
    expect(JSON.stringify(config.json)).not.toMatch(/mya_|myr_/);
    const missing = await emu.request('GET', '/v1/oauth/01NOPE');
    expect([missing.status, missing.json]).toEqual([404, { success: false, error: 'Email config not found' }]);
  });

  it('type imap with a webhook and include_*: the mailer gets the webhook, the configuration shows it as BASIC_IMAP', async () => {
    const imap = (
      await emu.service.configureIMAP({
        name: 'Inbox',
        email: 'inbox@example.com',
        config_type: 'imap',
        connection_type: 'oauth',
        config: { host: '127.0.0.1', port: target.port, username: 'inbox', secure: 'None' },
      } as never)
    ).data;
    const res = await emu.request('POST', '/v1/oauth/login', {
      body: {
        app_id: 'crm',
        mailer_id: imap.mailer_id,
        type: 'smtp_imap',
        include_sent: true,
        include_spam: true,
        include_trash: false,
        webhook: { url: receiver.url, method: 'POST', headers: { 'X-Secret': 'k' } },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect((await approve(res.json.url)).status).toBe(302);
    const flat = (await emu.request('GET', `/v1/oauth/${imap.mailer_id}`)).json;
    expect(flat).toMatchObject({
      active: true,
      include_sent: true,
      include_spam: true,
      include_trash: false,
      webhook: { event: 'BASIC_IMAP', webhook_url: receiver.url, method: 'POST', headers: { 'X-Secret': 'k' } },
    });
    expect((await emu.service.getIMAPConfig(imap.mailer_id)).data.webhook).toMatchObject({ url: receiver.url });
  });

  it('exchange_token with a token (id_token included) stores it at once and answers {success, url}', async () => {
    const mailer = await smtpMailer();
    const res = await emu.request('POST', '/v1/oauth/login', {
      body: {
        app_id: 'crm',
        mailer_id: mailer.mailer_id,
        type: 'smtp',
        exchange_token: true,
        state: 'xs',
        redirect_uri: 'http://127.0.0.1:9/back',
        token: {
          access_token: 'mya_given',
          refresh_token: '1//refresh',
          id_token: 'eyJhbGciOiJub25lIn0.e30.',
          expires_in: 3599,
          scope: 'https://mail.google.com/',
          token_type: 'Bearer',
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['success', 'url']);
    expect(new URL(res.json.url).searchParams.get('state')).toBe('xs');
    expect((await emu.service.getSMTPConfig(mailer.mailer_id)).data).toMatchObject({
      oauth_active: true,
      oauth: { has_token: true, app_id: 'crm', scope: 'https://mail.google.com/' },
    });
  });

  it('the documented token exchange without mailer_id answers 200 with the flat url and leaves an OAuth mailer that GET /v1/oauth/{mailer_id} returns', async () => {
    // The page's body as written: no mailer_id, the id_token elided (`eyJ...`, not a readable JWT).
    const res = await emu.request('POST', '/v1/oauth/login', {
      body: {
        app_id: 'crm',
        type: 'smtp',
        exchange_token: true,
        token: {
          access_token: 'ya29.a0',
          expires_in: 3599,
          refresh_token: '1//0g',
          id_token: 'eyJ...',
          scope: 'https://mail.google.com/',
          token_type: 'Bearer',
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['success', 'url']);
    expect(res.json.success).toBe(true);
    const mailerId = new URL(res.json.url).searchParams.get('mailer_id')!;
    expect(mailerId).toBeTruthy();
    const config = await emu.request('GET', `/v1/oauth/${mailerId}`);
    expect(config.status, config.text).toBe(200);
    expect(OAuthConfigResponse.strict().parse(config.json)).toMatchObject({
      active: true,
      connection_type: 'oauth',
      email: 'user@oauth.mailyard.test',
      mailer_id: mailerId,
      provider: 'mailyard',
      webhook: null,
    });
    expect(JSON.stringify(config.json)).not.toMatch(/ya29|1\/\/0g/);
    expect((await emu.service.getSMTPConfig(mailerId)).data).toMatchObject({
      oauth_active: true,
      oauth: { has_token: true, app_id: 'crm', scope: 'https://mail.google.com/' },
    });
    // The login ended on the emulator's own page (no redirect_uri), which names the mailer.
    expect(await (await fetch(res.json.url)).text()).toContain('user@oauth.mailyard.test');
  });

  it('takes the mailbox from a readable id_token (its email claim, the signature not checked); a send through the new mailer is captured, not relayed', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${part({ alg: 'RS256', kid: 'k1' })}.${part({ iss: 'https://accounts.google.com', sub: '1', email: 'ann@gmail.example', email_verified: true })}.not-a-real-signature`;
    const res = await emu.request('POST', '/v1/oauth/login', {
      body: {
        app_id: 'crm',
        type: 'smtp',
        exchange_token: true,
        state: 'xs',
        redirect_uri: 'http://127.0.0.1:9/back',
        token: { refresh_token: '1//0g', id_token: idToken },
      },
    });
    expect(res.status, res.text).toBe(200);
    const end = new URL(res.json.url);
    expect(end.origin + end.pathname).toBe('http://127.0.0.1:9/back');
    expect(end.searchParams.get('state')).toBe('xs');
    const mailerId = end.searchParams.get('mailer_id')!;
    expect((await emu.request('GET', `/v1/oauth/${mailerId}`)).json).toMatchObject({ email: 'ann@gmail.example', name: 'ann@gmail.example', active: true });

    // The offline provider's server does not exist: the send is simulated like any other.
    await emu.control.setClock({ speed: 0 });
    const sent = await emu.service.sendEmail({
      from: { email: 'ann@gmail.example' },
      to: [{ email: 'delivered@sim.mailyard.test' }],
      subject: 'Through the OAuth mailer',
      content: [{ type: 'text/plain', value: 'hi' }],
      mailer_id: mailerId,
    } as never);
    await emu.control.setClock({ advance_ms: 5_000 });
    expect((await emu.service.getEmailLogs({ refId: sent.ref_id })).emailLogs[0]).toMatchObject({ status: 'delivered', failedReason: '' });
  });

  it('an exchange without mailer_id for imap or smtp_imap is refused naming mailer_id: only an SMTP mailer is made', async () => {
    for (const type of ['imap', 'smtp_imap']) {
      const res = await emu.request('POST', '/v1/oauth/login', {
        body: { app_id: 'a', type, exchange_token: true, webhook: { url: receiver.url, method: 'POST' }, token: { refresh_token: '1//0g' } },
      });
      expect(res.status, res.text).toBe(400);
      expect(Object.keys(res.json.fields)).toEqual(['mailer_id']);
    }
  });

  it("refuses what the page's conditional rules refuse, naming the field", async () => {
    expect(await fieldsOf({ app_id: 'a', state: 's' })).toEqual(['type']);
    expect(await fieldsOf({ app_id: 'a', type: 'imap' })).toEqual(['webhook']);
    expect(await fieldsOf({ app_id: 'a', type: 'smtp_imap' })).toEqual(['webhook']);
    expect(await fieldsOf({ app_id: 'a', type: 'smtp', webhook: { url: receiver.url, method: 'POST' } })).toEqual(['webhook']);
    expect(await fieldsOf({ app_id: 'a', type: 'smtp', include_trash: true })).toEqual(['include_trash']);
    expect(await fieldsOf({ app_id: 'a', type: 'smtp', exchange_token: true })).toEqual(['token']);
    expect(await fieldsOf({ app_id: 'a', type: 'smtp', exchange_token: true, token: { access_token: 'x', refresh_token: '' } })).toEqual([
      'token.refresh_token',
    ]);
    expect(await fieldsOf({ app_id: 'a', type: 'pop3' })).toContain('type');
    expect(await fieldsOf({ app_id: 'a', type: 'imap', webhook: { url: receiver.url, method: 'GET' } })).toContain('webhook.method');
    expect(await fieldsOf({ state: 's', type: 'smtp' })).toContain('app_id');
    // A field the page does not show is ignored and named (API.md part 0), the rules still hold.
    const extra = await emu.request('POST', '/v1/oauth/login', { body: { app_id: 'a', type: 'smtp', prompt: 'consent' } });
    expect(extra.status, extra.text).toBe(200);
    expect(extra.headers['x-mailyard-ignored']).toContain('prompt');
  });
});
