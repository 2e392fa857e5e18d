// @ts-check
// Runs the shop's webhook receiver: MAIL_API_URL, MAIL_API_KEY, MAIL_WEBHOOK_SECRET (and PUBLIC_URL) from the environment.
import { configFromEnv } from './config.js';
import { createShop } from './shop.js';

const shop = createShop(configFromEnv());
const url = await shop.start(Number(process.env.PORT ?? 3000));
console.log(`webhook receiver registered at ${url}`);
