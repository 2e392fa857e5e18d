// @ts-check
/**
 * Where the email service is and how to authenticate: from the environment, as in production.
 * MAIL_API_URL is the service's base URL (the real one in production, Mailyard's in tests).
 */

/** @typedef {{ apiUrl: string, apiKey: string, webhookSecret: string, publicUrl?: string }} Config */

/** @returns {Config} */
export function configFromEnv(env = process.env) {
  const missing = ['MAIL_API_URL', 'MAIL_API_KEY', 'MAIL_WEBHOOK_SECRET'].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`missing configuration: ${missing.join(', ')}`);
  return {
    apiUrl: /** @type {string} */ (env.MAIL_API_URL).replace(/\/+$/, ''),
    apiKey: /** @type {string} */ (env.MAIL_API_KEY),
    webhookSecret: /** @type {string} */ (env.MAIL_WEBHOOK_SECRET),
    // Where the service reaches this app's webhook receiver (default: where it listens).
    publicUrl: env.PUBLIC_URL,
  };
}
