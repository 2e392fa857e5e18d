import { describe, expect, it, vi } from 'vitest';
import { createMainWindow, mainWindowOptions } from '../../../src-main/desktop/main-window';
import { FakeContents, FakeEmitter, fakeEvent } from './fakes';

class FakeWindow extends FakeEmitter {
  static created: FakeWindow[] = [];
  readonly webContents = new FakeContents();
  /** What was locked down when the UI started loading. */
  lockedAtLoad: string[] | undefined;
  show = vi.fn();
  loadURL = vi.fn(async (_url: string) => {
    this.lockedAtLoad = [...this.webContents.handlers.keys()];
    if (this.webContents.windowOpenHandler) this.lockedAtLoad.push('window-open');
  });

  constructor(readonly options: Record<string, any>) {
    super();
    FakeWindow.created.push(this);
  }
}

describe('the main window', () => {
  it('is created hidden with the secure webPreferences and the preload', () => {
    const options = mainWindowOptions({ preload: '/out/preload/preload.cjs', title: 'Mailyard · http://127.0.0.1:4400' });
    expect(options).toMatchObject({ show: false, title: 'Mailyard · http://127.0.0.1:4400' });
    expect(options.webPreferences).toMatchObject({
      preload: '/out/preload/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    });
  });

  it('is locked down before the UI loads, to the origin of the emulator it belongs to, and shows when ready', async () => {
    const openInBrowser = vi.fn();
    const window = createMainWindow(FakeWindow as never, {
      preload: '/p.cjs',
      url: 'http://127.0.0.1:51234/',
      title: 'Mailyard',
      openInBrowser,
    }) as unknown as FakeWindow;
    await window.loadURL('http://127.0.0.1:51234/');
    expect(window.loadURL).toHaveBeenCalledWith('http://127.0.0.1:51234/');
    expect(window.lockedAtLoad).toEqual(
      expect.arrayContaining(['will-navigate', 'will-redirect', 'will-frame-navigate', 'will-attach-webview', 'window-open']),
    );
    expect(window.options.webPreferences.sandbox).toBe(true);
    expect(window.webContents.setWindowOpenHandler).toHaveBeenCalledTimes(1);

    // The lockdown uses the emulator's origin, whatever port it got.
    const away = fakeEvent();
    window.webContents.emit('will-navigate', away, 'http://127.0.0.1:4400/');
    expect(away.defaultPrevented()).toBe(true);
    const home = fakeEvent();
    window.webContents.emit('will-navigate', home, 'http://127.0.0.1:51234/deliveries');
    expect(home.defaultPrevented()).toBe(false);
    window.webContents.windowOpenHandler!({ url: 'https://example.com/' });
    expect(openInBrowser).toHaveBeenCalledWith('https://example.com/');

    // The title keeps the address: the page may not replace it.
    const title = fakeEvent();
    window.emit('page-title-updated', title, 'Deliveries');
    expect(title.defaultPrevented()).toBe(true);
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledTimes(1);
  });
});
