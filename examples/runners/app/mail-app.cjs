// @ts-check
'use strict';
/**
 * A small app that mails the way one does against the real delivery service: a welcome email
 * through its HTTP API (`POST /v1/email/send` with `X-API-Key`), an invoice with a PDF attached
 * through its SMTP relay (nodemailer), and a webhook receiver for the email events (delivery,
 * bounce, spam) that remembers bounced and complaining addresses, acting on each event once (the
 * service delivers at least once). Deduplicate by webhook-id: an event keeps one webhook-id through
 * all its retries, and two different events never share one. Nothing here knows about Mailyard:
 * tests point `apiUrl` and `smtp` at it. CommonJS, so every runner loads it as it comes.
 */
const { createServer } = require('node:http');
const nodemailer = require('nodemailer');

/**
 * @typedef {{ event: string, ref_id: string, recipient?: { email: string }, bounce_type?: string }} EmailEvent
 * @typedef {{ apiUrl: string, apiKey: string, smtp: { host: string, port: number } }} MailAppConfig
 */

/** @param {MailAppConfig} config */
function createMailApp(config) {
  /** @type {EmailEvent[]} */
  const events = [];
  /** @type {Map<string, string>} address -> why it gets no more mail */
  const suppressed = new Map();
  /** The webhook-ids of the events acted on. */
  const seen = new Set();
  let failuresToAnswer = 0;

  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (failuresToAnswer > 0) {
        // The app's database is down: a 5xx makes the service try again later.
        failuresToAnswer--;
        res.writeHead(500).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (seen.has(id)) {
        // The same event again: acknowledged, not acted on twice.
        res.writeHead(200).end('duplicate');
        return;
      }
      seen.add(id);
      /** @type {EmailEvent} */
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      events.push(event);
      const email = event.recipient?.email;
      if (email && event.event === 'bounce' && event.bounce_type === 'hard') suppressed.set(email, 'bounced');
      if (email && event.event === 'spam') suppressed.set(email, 'complained');
      res.writeHead(200).end('ok');
    });
  });

  /** @param {string} path @param {unknown} body */
  async function post(path, body) {
    const res = await fetch(`${config.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': config.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = /** @type {any} */ (await res.json());
    if (!res.ok || json.success !== true) throw new Error(`mail API ${res.status}: ${json.error ?? res.statusText}`);
    return json;
  }

  return {
    events,
    suppressed,
    /** The next `n` webhook requests get a 500. @param {number} n */
    failNextWebhooks(n) {
      failuresToAnswer = n;
    },

    /** Starts the webhook receiver on a free port and registers it with the service. */
    async start() {
      await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      await post('/v1/webhook/register', {
        webhook_url: `http://127.0.0.1:${port}/email-events`,
        event: 'EMAIL_EVENT',
        method: 'POST',
        webhook_options: { events: { delivery: true, bounce: true, spam: true } },
      });
    },

    /** @returns {Promise<void>} */
    stop() {
      return new Promise((resolve) => server.close(() => resolve()));
    },

    /** The welcome email, through the HTTP API; answers the send's ref_id. @param {string} to */
    async sendWelcome(to) {
      const answer = await post('/v1/email/send', {
        from: { email: 'hello@app.example', name: 'The App' },
        to: [{ email: to }],
        subject: 'Welcome!',
        content: [{ type: 'text/html', value: '<p>Welcome aboard.</p>' }],
      });
      return /** @type {string} */ (answer.ref_id);
    },

    /** An invoice with its PDF, through SMTP. @param {string} to @param {Buffer} pdf */
    async sendInvoice(to, pdf) {
      // nodemailer's default transport, as an app has it: the sink offers no STARTTLS unless asked to.
      const transport = nodemailer.createTransport({ host: config.smtp.host, port: config.smtp.port });
      try {
        await transport.sendMail({
          from: 'billing@app.example',
          to,
          subject: 'Your invoice',
          text: 'Your invoice is attached.',
          attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
        });
      } finally {
        transport.close();
      }
    },
  };
}

module.exports = { createMailApp };
