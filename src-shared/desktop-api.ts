/**
 * The desktop-only actions the desktop app's preload exposes to the UI, one function each, as
 * `window.mailyardDesktop` (absent in a browser). Everything else the UI does goes over HTTP to the
 * emulator, in the desktop app as in a browser. Used by the preload (src-main/desktop/preload.ts),
 * its main-process side (desktop-actions.ts) and, for the type, the UI:
 * `(window as { mailyardDesktop?: MailyardDesktopApi }).mailyardDesktop?.openDataFolder()`.
 * No imports: the sandboxed preload can load nothing but electron (the build inlines this file).
 */
export const DESKTOP_API_KEY = 'mailyardDesktop';

export const DESKTOP_CHANNELS = {
  openDataFolder: 'mailyard:open-data-folder',
  revealFile: 'mailyard:reveal-file',
  openLink: 'mailyard:open-link',
} as const;

export interface MailyardDesktopApi {
  /** Opens the emulator's data folder in the system's file manager. */
  openDataFolder(): Promise<void>;
  /** Shows a file this app saved (a download or export of this session) in its folder; no path: the latest. */
  revealFile(path?: string): Promise<void>;
  /** Opens an http(s) link in the user's browser. */
  openLink(url: string): Promise<void>;
}

/** The object the preload exposes: exactly these three functions, each passing plain values to `invoke`. */
export function buildDesktopApi(invoke: (channel: string, ...args: unknown[]) => Promise<unknown>): MailyardDesktopApi {
  return {
    openDataFolder: async () => {
      await invoke(DESKTOP_CHANNELS.openDataFolder);
    },
    revealFile: async (path?: string) => {
      await invoke(DESKTOP_CHANNELS.revealFile, typeof path === 'string' ? path : undefined);
    },
    openLink: async (url: string) => {
      await invoke(DESKTOP_CHANNELS.openLink, String(url));
    },
  };
}
