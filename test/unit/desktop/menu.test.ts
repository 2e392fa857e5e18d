import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { LiveBus } from '../../../src-main/core/live-bus';
import { aboutDetail, buildMenuTemplate, type MenuActions, type MenuState } from '../../../src-main/desktop/menu';
import { notifyFailedDeliveries } from '../../../src-main/desktop/notifications';
import { loadPreferences, savePreferences } from '../../../src-main/desktop/preferences';

const STATE: MenuState = {
  platform: 'linux',
  httpUrl: 'http://127.0.0.1:4400',
  smtpUrl: 'smtp://127.0.0.1:2525',
  loginItemsSupported: false,
  startAtLogin: false,
  failureNotifications: false,
  scenarioDirs: [],
};

function actions(): MenuActions & Record<string, ReturnType<typeof vi.fn>> {
  return {
    copyApiKey: vi.fn(),
    openDataFolder: vi.fn(),
    openInBrowser: vi.fn(),
    setStartAtLogin: vi.fn(),
    setFailureNotifications: vi.fn(),
    allowScenariosFolder: vi.fn(),
    forgetScenariosFolders: vi.fn(),
    showAbout: vi.fn(),
    quit: vi.fn(),
  };
}

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}

function byLabel(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions {
  const found = items(template).find((i) => i.label?.startsWith(label));
  if (!found) throw new Error(`no menu item ${label}`);
  return found;
}

describe('the application menu', () => {
  it('has the conveniences, each wired to its action', () => {
    const a = actions();
    const template = buildMenuTemplate(STATE, a);
    const click = (label: string, checked?: boolean) => byLabel(template, label).click!({ checked } as never, undefined, {} as never);
    click('Copy API Key');
    click('Open Data Folder');
    click('Open Web UI in Browser');
    click('Notify on Failed Deliveries', true);
    click('About Mailyard');
    click('Quit');
    expect(a.copyApiKey).toHaveBeenCalledTimes(1);
    expect(a.openDataFolder).toHaveBeenCalledTimes(1);
    expect(a.openInBrowser).toHaveBeenCalledTimes(1);
    expect(a.setFailureNotifications).toHaveBeenCalledWith(true);
    expect(a.showAbout).toHaveBeenCalledTimes(1);
    expect(a.quit).toHaveBeenCalledTimes(1);
    click('Allow a Scenarios Folder');
    expect(a.allowScenariosFolder).toHaveBeenCalledTimes(1);
    // Nothing to forget yet; the allowed folders are listed once there are some.
    expect(byLabel(template, 'Forget Scenarios Folders').enabled).toBe(false);
    const allowed = buildMenuTemplate({ ...STATE, scenarioDirs: ['/home/qa/scenarios'] }, a);
    expect(byLabel(allowed, 'Scenarios: ').label).toBe('Scenarios: /home/qa/scenarios');
    byLabel(allowed, 'Forget Scenarios Folders').click!({} as never, undefined, {} as never);
    expect(a.forgetScenariosFolders).toHaveBeenCalledTimes(1);
    // The listener's addresses are shown (a port may have been moved).
    expect(byLabel(template, 'HTTP:').label).toBe('HTTP: http://127.0.0.1:4400');
    expect(byLabel(template, 'SMTP:').label).toBe('SMTP: smtp://127.0.0.1:2525');
    expect(byLabel(template, 'Notify on Failed Deliveries').checked).toBe(false);
    expect(items(template).some((i) => i.role === 'editMenu')).toBe(true);
  });

  it('toggles start at login where the system supports it', () => {
    const a = actions();
    const linux = byLabel(buildMenuTemplate(STATE, a), 'Start at Login');
    expect(linux.enabled).toBe(false);
    const mac = buildMenuTemplate({ ...STATE, platform: 'darwin', loginItemsSupported: true, startAtLogin: true }, a);
    const item = byLabel(mac, 'Start at Login');
    expect(item).toMatchObject({ type: 'checkbox', checked: true, enabled: true });
    item.click!({ checked: false } as never, undefined, {} as never);
    expect(a.setStartAtLogin).toHaveBeenCalledWith(false);
    expect(mac[0]!.label).toBe('Mailyard');
  });

  it('about shows the versions', () => {
    const text = aboutDetail({
      version: '0.1.0',
      versions: { electron: '45.4.1', chrome: '140.0', node: '22.20.0', v8: '14.0' },
      platform: 'linux-x64',
      dataDir: '/d',
      httpUrl: 'http://127.0.0.1:4400',
    });
    expect(text).toContain('Mailyard 0.1.0');
    expect(text).toContain('Electron 45.4.1 · Chromium 140.0 · Node 22.20.0 · V8 14.0');
    expect(text).toContain('Data: /d');
  });
});

describe('failed-delivery notifications', () => {
  const delivery = (id: string, status: 'failed' | 'pending' | 'succeeded') => ({
    id,
    account_id: 'a',
    category: 'email',
    event: 'bounce',
    ref_id: null,
    target: { kind: 'webhook', id: 'w', url: 'http://127.0.0.1:3000/hooks' },
    status,
    attempts: 8,
    next_attempt_at: null,
    last_status_code: 500,
    last_error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  });

  it('are off by default, and tell once per delivery that ends failed', () => {
    const events = new LiveBus();
    let enabled = loadPreferences('/nonexistent/preferences.json').failureNotifications;
    expect(enabled).toBe(false);
    const notify = vi.fn();
    const stop = notifyFailedDeliveries(events, { enabled: () => enabled, notify });
    events.emit('delivery.updated', delivery('d1', 'failed'));
    expect(notify).not.toHaveBeenCalled();
    enabled = true;
    events.emit('delivery.updated', delivery('d2', 'pending'));
    events.emit('delivery.updated', delivery('d2', 'succeeded'));
    events.emit('delivery.updated', delivery('d3', 'failed'));
    events.emit('delivery.updated', delivery('d3', 'failed'));
    expect(notify).toHaveBeenCalledTimes(1);
    expect(notify).toHaveBeenCalledWith({
      title: 'Delivery failed: bounce',
      body: 'http://127.0.0.1:3000/hooks after 8 attempts (HTTP 500)',
      path: '/deliveries/d3',
    });
    stop();
    events.emit('delivery.updated', delivery('d4', 'failed'));
    expect(notify).toHaveBeenCalledTimes(1);
  });

  it('the preference is kept in a file; a damaged file gives the default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailyard-prefs-'));
    const file = join(dir, 'sub', 'preferences.json');
    savePreferences(file, { failureNotifications: true, scenarioDirs: ['/home/qa/scenarios'] });
    expect(loadPreferences(file)).toEqual({ failureNotifications: true, scenarioDirs: ['/home/qa/scenarios'] });
    writeFileSync(file, '{not json');
    expect(loadPreferences(file)).toEqual({ failureNotifications: false, scenarioDirs: [] });
  });
});
