import { expect, test, watchErrors } from './fixtures';

const GROUPS: Array<[string, string[]]> = [
  ['Email', ['Overview', 'Send', 'Messages']],
  ['Webhooks', ['Webhooks', 'Webhook deliveries', 'Fire event', 'Catchers']],
  ['Testing', ['Simulation', 'Suppressions', 'Scenarios']],
  ['Setup', ['Domains', 'Mailers', 'Settings']],
];

// A row of a dozen screens' names told a first-time user nothing: grouped by what they are for, each says what it is.
test('the header’s screens come in named groups, each link saying in plain words what it is for, at 1,280 px and in the 375 px menu', async ({
  served,
  page,
}) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${served.url}/`);
  const nav = page.getByRole('navigation', { name: 'Screens' });
  for (const [group, links] of GROUPS) {
    const list = nav.getByRole('list', { name: group });
    await expect(list.getByRole('link')).toHaveText(links);
    for (const link of await list.getByRole('link').all()) {
      await expect(link).toBeVisible();
      await expect(link).toHaveAccessibleDescription(/\w+ \w+ \w+/);
    }
  }
  await expect(nav.getByRole('link', { name: 'Fire event' })).toHaveAccessibleDescription(/email event .*webhook by hand/);

  // In the phone's menu the groups' names head their links.
  await page.setViewportSize({ width: 375, height: 720 });
  await nav.getByRole('button', { name: /Menu/ }).click();
  for (const [group] of GROUPS) await expect(nav.getByRole('list', { name: group }).locator('.nav-group-name')).toHaveText(group);
  await expect(nav.locator('.nav-group-name').first()).toBeVisible();
  await nav.getByRole('link', { name: 'Send' }).click();
  await expect(page).toHaveURL(`${served.url}/send`);
  expect(errors).toEqual([]);
});
