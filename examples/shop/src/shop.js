// @ts-check
import { createServer } from 'node:http';
import { mailApi } from './mail-api.js';
import { createStore } from './store.js';
import { webhookReceiver } from './webhooks.js';

/**
 * The shop: order confirmations and a newsletter, both skipped for addresses that bounced,
 * complained or unsubscribed; the webhook receiver keeps those records up to date.
 * @param {import('./config.js').Config} config
 */
export function createShop(config) {
  const api = mailApi(config);
  const store = createStore();
  const receiver = webhookReceiver({
    secret: config.webhookSecret,
    onEvent(event) {
      const email = event.recipient?.email;
      switch (event.event) {
        case 'delivery':
          store.setEmailStatus(event.ref_id, 'delivered');
          break;
        case 'bounce':
          store.setEmailStatus(event.ref_id, 'bounced');
          // A soft bounce (a full mailbox) may pass; a hard one means the address does not exist.
          if (email && event.bounce_type === 'hard') store.suppress(email, 'bounced');
          break;
        case 'spam':
          if (email) store.suppress(email, 'complained');
          break;
        case 'unsubscribe':
          if (email) store.suppress(email, 'unsubscribed');
          break;
      }
    },
  });
  const server = createServer(receiver.handle);

  return {
    api,
    store,
    receiver: receiver.stats,

    /** Starts the webhook receiver on `port` (0: a free one) and registers it with the service. */
    async start(port = 3000) {
      await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      const url = `${config.publicUrl ?? `http://127.0.0.1:${address.port}`}/webhooks/email`;
      await api.registerWebhook(url, config.webhookSecret);
      return url;
    },

    stop() {
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },

    /**
     * Takes an order and mails its confirmation, unless the address is suppressed.
     * @param {string} email @param {string} total
     */
    async placeOrder(email, total) {
      const order = store.addOrder(email, total);
      const suppressed = store.suppressionOf(email);
      if (suppressed) {
        order.emailStatus = `not sent (${suppressed})`;
        return order;
      }
      order.refId = await api.send({
        to: email,
        subject: `Order #${order.id} confirmed`,
        html: `<h1>Thank you!</h1><p>Order #${order.id}, total ${total}.</p>`,
        campaignId: 'order-confirmation',
      });
      order.emailStatus = 'sent';
      return order;
    },

    /**
     * Sends the newsletter (with a one-click unsubscribe link) to every address that may get it.
     * @param {string[]} recipients
     * @returns {Promise<{ sent: Map<string, string>, skipped: string[] }>} ref_id per recipient, and who was skipped
     */
    async sendNewsletter(recipients) {
      const sent = new Map();
      const skipped = [];
      for (const email of recipients) {
        if (store.suppressionOf(email)) {
          skipped.push(email);
          continue;
        }
        sent.set(
          email,
          await api.send({ to: email, subject: 'News from the shop', html: '<p>New arrivals this week.</p>', campaignId: 'newsletter', unsubscribeLink: true }),
        );
      }
      return { sent, skipped };
    },
  };
}
