import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { startServeProcess } from '../helpers/serve-process';
import { faultsOnEveryScreen } from './all-screens';
import { expect, test } from './fixtures';

/**
 * The accessibility check. axe-core runs over every screen, with data in it, in the light and
 * the dark theme, and the test fails on any serious or critical violation (contrast, names of controls,
 * labels, ARIA roles...). The screens are the list in all-screens.ts: a new screen adds one line there.
 */

const THEMES = ['light', 'dark'] as const;

/** The serious and critical violations on the page as it is, one line each (rule, and where). */
async function violations(page: Page): Promise<string[]> {
  // Legacy mode runs axe in the page itself; the default opens a second page for each analysis, which
  // doubled the time of a screen (about 2 s here) and, over 24 screens, brought a theme near its timeout.
  const result = await new AxeBuilder({ page })
    .exclude('iframe.html-frame')
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ').slice(0, 200)}]` : ''}`)
          .join('; ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`,
    );
}

test('the login screen (an emulator reachable from the network) has no serious or critical accessibility violation', async ({ page }) => {
  const serve = await startServeProcess(['--host', '0.0.0.0', '--http-port', '0', '--memory', '--api-key', 'e2e-a11y-key-0123456789']);
  try {
    const port = /:(\d+)$/.exec(serve.url)![1];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await page.goto(`http://127.0.0.1:${port}/`);
      await expect(page.getByRole('heading', { name: 'Log in to Mailyard' })).toBeVisible();
      await page.getByLabel('Control key').fill('not-the-control-key-at-all');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      expect(await violations(page), theme).toEqual([]);
    }
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});

/**
 * Label in name (WCAG 2.5.3): a field inside a <label> is named, for assistive technology and for voice
 * control ("click Headers"), with the words it shows. A field the label names implicitly meets it; an
 * aria-label that replaces the label must hold its visible text.
 */
async function labelsNotInName(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const words = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
    const found: string[] = [];
    for (const label of document.querySelectorAll('label')) {
      const control = label.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea');
      if (!control || control.offsetParent === null) continue;
      // The label's words: its leading <span> when it has one (a hint may follow the field), else its whole text.
      const first = label.firstElementChild;
      const lead = first && first.tagName === 'SPAN' && first.compareDocumentPosition(control) & Node.DOCUMENT_POSITION_FOLLOWING ? first : null;
      const copy = (lead ?? label).cloneNode(true) as HTMLElement;
      for (const inner of copy.querySelectorAll('input, select, textarea, .field-error')) inner.remove();
      const visible = words(copy.textContent ?? '');
      const own = control.getAttribute('aria-labelledby');
      const name = own
        ? words(
            own
              .split(/\s+/)
              .map((id) => document.getElementById(id)?.textContent ?? '')
              .join(' '),
          )
        : words(control.getAttribute('aria-label') ?? visible);
      if (visible && !name.includes(visible)) found.push(`a field labelled “${visible}” is named “${name}”`);
    }
    return found;
  });
}

/**
 * One walk over every screen (seeding and opening 24 screens once, not three times): on each, axe in the
 * light theme and in the dark one (the colour scheme switched in place: the app's colours follow
 * prefers-color-scheme in CSS), then label in name.
 */
test('every screen has no serious or critical accessibility violation in the light and the dark theme, and every field inside a label is named with the words its label shows (label in name)', async ({
  served,
  receiver,
  page,
}) => {
  test.setTimeout(180_000);
  const found = await faultsOnEveryScreen(page, served, receiver.url, async (screen) => {
    const faults: string[] = [];
    const backgrounds = new Set<string>();
    for (const theme of THEMES) {
      await screen.emulateMedia({ colorScheme: theme });
      // The new scheme's styles applied and painted before axe reads colours.
      await screen.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      backgrounds.add(await screen.evaluate(() => getComputedStyle(document.querySelector('header') ?? document.documentElement).backgroundColor));
      for (const v of await violations(screen)) faults.push(`${theme} theme: ${v}`);
    }
    // The switch took: axe judged two different colour schemes, not one twice.
    if (backgrounds.size !== THEMES.length) faults.push(`the header's background stayed ${[...backgrounds].join()} in both themes`);
    faults.push(...(await labelsNotInName(screen)));
    return faults;
  });
  expect(found, found.join('\n')).toEqual([]);
});
