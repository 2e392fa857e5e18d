import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/**
 * A small traffic scenario (the contract's format, version 1): 60 sends at 10 a second, a tenth hard-bounce,
 * events to `webhookUrl` (a local receiver), a 60x clock. Shared by the journey test and the docs' screenshots.
 */
export function trafficScenario(webhookUrl: string, name = 'Checkout traffic'): string {
  return `version: 1
name: ${name}
clock: { speed: 60 }
duration: 10m
webhook:
  url: ${webhookUrl}
  events: [delivery, bounce, open]
traffic:
  count: 60
  rate: 10/s
  subject: Your order
  html: <p>Hello, your order is on its way</p>
  to: "user{n}@example.test"
outcomes:
  - match: { share: 0.1 }
    fate: hard_bounce
  - match: { pattern: "*@example.test" }
    fate: delivered
    opens: { share: 0.5, after: 30s }
expect:
  receiver: { acknowledgedAll: true, p95Ms: 500, noGiveUps: true }
  app: { maxSendsPerRecipient: 1 }
`;
}

/** The number a progress count shows ("12 / 60" gives 12). */
export async function progressCount(page: Page, id: string): Promise<number> {
  const text = (await page.getByTestId(`progress-${id}`).textContent()) ?? '';
  return Number(/\d+/.exec(text)?.[0] ?? NaN);
}

/** Opens `source` as the file `file` through the page's file input. */
export async function openScenarioFile(page: Page, file: string, source: string): Promise<void> {
  await page.getByTestId('scenario-file').setInputFiles({ name: file, mimeType: 'text/yaml', buffer: Buffer.from(source) });
  await expect(page.getByTestId('scenario-file-name')).toContainText(file);
  await expect(page.getByLabel('Scenario (YAML or JSON)')).toHaveValue(source);
}
