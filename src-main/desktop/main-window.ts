import type { BrowserWindow, BrowserWindowConstructorOptions } from 'electron';
import { lockDownContents, secureWebPreferences } from './security';

export interface MainWindowOptions {
  preload: string;
  /** The emulator's HTTP URL: the window shows the web UI it serves. */
  url: string;
  /** Shown in the title bar, e.g. the listener's address. */
  title: string;
  openInBrowser: (url: string) => unknown;
}

/** The options of the one window (webPreferences from security.ts). */
export function mainWindowOptions(options: Pick<MainWindowOptions, 'preload' | 'title'>): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    title: options.title,
    show: false,
    backgroundColor: '#ffffff',
    webPreferences: secureWebPreferences(options.preload),
  };
}

type WindowCtor = new (options: BrowserWindowConstructorOptions) => BrowserWindow;

/** Creates the window, locks its contents down before anything loads, and loads the UI from the emulator. */
export async function openMainWindow(Ctor: WindowCtor, options: MainWindowOptions): Promise<BrowserWindow> {
  const window = new Ctor(mainWindowOptions(options));
  lockDownContents(window.webContents, { origin: new URL(options.url).origin, openInBrowser: options.openInBrowser });
  // The page's own <title> must not replace the one that shows the address.
  window.on('page-title-updated', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());
  await window.loadURL(options.url);
  return window;
}
