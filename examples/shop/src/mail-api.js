// @ts-check
/**
 * The shop's client of the email delivery service: plain fetch against its documented HTTP API
 * (POST /v1/email/send answers {success, ref_id}; GET /v1/email/logs answers {success, emailLogs,
 * nextPageToken, totalCount}; POST /v1/webhook/register). Nothing here knows about Mailyard.
 */

export class MailApiError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(`mail API ${status}: ${message}`);
    this.name = 'MailApiError';
    this.status = status;
  }
}

/** @param {{ apiUrl: string, apiKey: string }} config */
export function mailApi(config) {
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<any>}
   */
  async function request(method, path, body) {
    const res = await fetch(`${config.apiUrl}${path}`, {
      method,
      headers: { 'X-API-Key': config.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    /** @type {any} */
    const json = await res.json().catch(() => ({}));
    if (!res.ok || json.success !== true) throw new MailApiError(res.status, json.error ?? res.statusText);
    return json;
  }

  return {
    /**
     * One request, one ref_id for all its recipients.
     * @param {{ to: string, subject: string, html: string, campaignId: string, unsubscribeLink?: boolean }} email
     * @returns {Promise<string>} the send's ref_id
     */
    async send(email) {
      const answer = await request('POST', '/v1/email/send', {
        from: { email: 'orders@shop.example', name: 'The Shop' },
        to: [{ email: email.to }],
        subject: email.subject,
        content: [{ type: 'text/html', value: email.html }],
        campaign_id: email.campaignId,
        settings: { unsubscribe: { enable: email.unsubscribeLink ?? false } },
      });
      return answer.ref_id;
    },

    /**
     * The email events webhook, with a shared secret the service sends back in a header.
     * @param {string} url @param {string} secret
     */
    registerWebhook(url, secret) {
      return request('POST', '/v1/webhook/register', {
        webhook_url: url,
        event: 'EMAIL_EVENT',
        method: 'POST',
        headers: { 'X-Webhook-Secret': secret },
        webhook_options: { events: { delivery: true, bounce: true, spam: true, unsubscribe: true } },
      });
    },

    /**
     * The log entries of one send, page after page.
     * @param {string} refId
     * @returns {Promise<Array<{ recipientAddress: string, status: string, refId: string }>>}
     */
    async logsOf(refId) {
      const entries = [];
      let pageToken = '';
      do {
        const query = new URLSearchParams({ refId, ...(pageToken ? { pageToken } : {}) });
        const page = await request('GET', `/v1/email/logs?${query}`);
        entries.push(...page.emailLogs);
        pageToken = page.nextPageToken;
      } while (pageToken);
      return entries;
    },
  };
}
