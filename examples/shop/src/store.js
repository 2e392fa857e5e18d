// @ts-check
/**
 * The shop's records (a database in a real shop): orders with their email's status, and addresses
 * we must not mail any more. `failWrites(n)` makes the next n writes fail, as a database outage would.
 */

/** @typedef {{ id: number, email: string, total: string, refId: string | null, emailStatus: string }} Order */

export function createStore() {
  /** @type {Order[]} */
  const orders = [];
  /** @type {Map<string, string>} address -> why it is suppressed: bounced, complained, unsubscribed */
  const suppressed = new Map();
  let failing = 0;
  const write = () => {
    if (failing > 0) {
      failing--;
      throw new Error('database unavailable');
    }
  };
  return {
    orders,
    suppressed,
    /** @param {number} n */
    failWrites(n) {
      failing = n;
    },
    /** @param {string} email @param {string} total */
    addOrder(email, total) {
      write();
      /** @type {Order} */
      const order = { id: 1001 + orders.length, email, total, refId: null, emailStatus: 'none' };
      orders.push(order);
      return order;
    },
    /** @param {string} refId @param {string} status */
    setEmailStatus(refId, status) {
      write();
      for (const order of orders) if (order.refId === refId) order.emailStatus = status;
    },
    /** @param {string} email @param {string} reason */
    suppress(email, reason) {
      write();
      if (!suppressed.has(email.toLowerCase())) suppressed.set(email.toLowerCase(), reason);
    },
    /** @param {string} email */
    suppressionOf(email) {
      return suppressed.get(email.toLowerCase());
    },
  };
}

/** @typedef {ReturnType<typeof createStore>} Store */
