import type { BrowserWindow, BrowserWindowConstructorOptions } from 'electron';
import { lockDownContents, secureWebPreferences } from './security';

export interface MainWindowOptions {
  preload: string;
  /** The emulator's HTTP URL: the window may only show pages of its origin. */
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

/**
 * Creates the window and locks its contents down before anything loads; it shows itself once the
 * page is ready. The caller loads the UI (`window.loadURL(url)`), holding the window meanwhile.
 */
export function createMainWindow(Ctor: WindowCtor, options: MainWindowOptions): BrowserWindow {
  const window = new Ctor(mainWindowOptions(options));
  lockDownContents(window.webContents, { origin: new URL(options.url).origin, openInBrowser: options.openInBrowser });
  // The page's own <title> must not replace the one that shows the address.
  window.on('page-title-updated', (event) => event.preventDefault());
  window.once('ready-to-show', () => window.show());
  return window;
}
