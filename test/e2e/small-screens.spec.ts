import type { Page } from '@playwright/test';
import { faultsOnEveryScreen, SCREENS } from './all-screens';
import { expect, test } from './fixtures';

/**
 * From a wide window down to a phone's 375 px, no screen is wider than the window,
 * a message's tabs stay reachable (inside their bar, or scrolling within it), and JSON boxes (payloads,
 * requests, responses, previews) are never cut off on the right: JSON wraps inside its box (the seeded
 * message's subject is longer than any box is wide), other code boxes stay inside their container and
 * scroll. The screens are the list in all-screens.ts.
 */

const WIDTHS = [1400, 1024, 768, 375];

/** What is wrong with the layout as it is: each line names the fault. */
async function layoutFaults(page: Page): Promise<string[]> {
  // Collapsed parts (an attempt's request and response) are opened: their boxes count too.
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details')) d.open = true;
  });
  return page.evaluate(() => {
    const faults: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) faults.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null && el.getBoundingClientRect().width > 0;
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}.${el.className}`;
    /** The right edge is hidden: past the window, or past an ancestor that clips (or scrolls) it. */
    const clippedRight = (el: Element): string | null => {
      const right = el.getBoundingClientRect().right;
      if (right > window.innerWidth + 1) return `its right edge is at ${Math.round(right)} px, past the window's ${window.innerWidth}`;
      for (let a = el.parentElement; a; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const edge = a.getBoundingClientRect().right;
        if (right > edge + 1) return `its right edge is at ${Math.round(right)} px, past its container ${name(a)} at ${Math.round(edge)}`;
      }
      return null;
    };
    for (const box of document.querySelectorAll('pre')) {
      if (!visible(box)) continue;
      const clipped = clippedRight(box);
      if (clipped) faults.push(`JSON/code box ${name(box)}: ${clipped}`);
      const overflowX = getComputedStyle(box).overflowX;
      const hidden = box.scrollWidth - box.clientWidth;
      // JSON wraps inside its box: a long value (a subject, a URL) is read without scrolling sideways.
      if (box.classList.contains('json') && hidden > 1) faults.push(`JSON box ${name(box)}: cut off on the right (${hidden} px of it past the box's edge)`);
      else if (hidden > 1 && overflowX !== 'auto' && overflowX !== 'scroll') faults.push(`box ${name(box)}: text cut off with no way to scroll to it`);
    }
    for (const list of document.querySelectorAll('[role=tablist]')) {
      if (!visible(list)) continue;
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(list).overflowX);
      for (const tab of list.querySelectorAll('[role=tab]')) {
        const clipped = clippedRight(tab);
        // A tab past the bar's edge is fine only when the bar itself scrolls (and stays in the window).
        if (clipped && !(scrolls && list.getBoundingClientRect().right <= window.innerWidth + 1)) faults.push(`tab "${tab.textContent}": ${clipped}`);
      }
    }
    return faults;
  });
}

/** As long as a scenario run's account name gets: 60 characters. */
const LONG_ACCOUNT = 'scenario: hard-bounce suppression with soft retries, run 2-3';

/**
 * One walk over every screen (seeding and opening each once, not once a width): each screen is opened
 * in the widest window and then narrowed to each width in turn, as a desktop user resizes; the window
 * starts at the widest again for the next screen. Another account with a 60-character name has mail of
 * its own, so the header's switcher and the lists carry the longest name a scenario run gives.
 */
test('from 1,400 px down to 375 px, with a 60-character account name, no screen is wider than the window, tabs stay in their bar and JSON boxes are never cut off', async ({
  served,
  receiver,
  page,
}) => {
  test.setTimeout(150_000);
  expect(LONG_ACCOUNT).toHaveLength(60);
  const other = await page.request.post(`${served.url}/emulator/accounts`, { data: { name: LONG_ACCOUNT } });
  expect(other.ok()).toBe(true);
  const { api_key: key } = (await other.json()).data as { api_key: string };
  const send = await page.request.post(`${served.url}/v1/email/send`, {
    headers: { authorization: `Bearer ${key}` },
    data: {
      from: { email: 'app@example.com' },
      to: [{ email: 'long@example.com' }],
      subject: 'From the long one',
      content: [{ type: 'text/plain', value: 'Hi' }],
    },
  });
  expect(send.ok()).toBe(true);
  const [widest] = WIDTHS;
  await page.setViewportSize({ width: widest!, height: 900 });
  let checked = 0;
  const found = await faultsOnEveryScreen(page, served, receiver.url, async (screen) => {
    const faults: string[] = [];
    for (const width of WIDTHS) {
      await screen.setViewportSize({ width, height: 900 });
      // The new width laid out and painted (and any width-driven state re-rendered) before it is measured.
      await screen.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      expect(await screen.evaluate(() => window.innerWidth)).toBe(width);
      for (const fault of await layoutFaults(screen)) faults.push(`at ${width} px: ${fault}`);
      checked++;
    }
    await screen.setViewportSize({ width: widest!, height: 900 });
    return faults;
  });
  expect(found, found.join('\n')).toEqual([]);
  // Every screen was measured at every width (a walk that skipped its checks would find nothing).
  expect(checked).toBe(WIDTHS.length * SCREENS.length);
});
