import type { DownloadItem, IpcMain, IpcMainInvokeEvent, Session, Shell } from 'electron';
import { DESKTOP_CHANNELS } from '../../src-shared/desktop-api';
import { isEmulatorUrl, openInBrowser } from './security';

/** The files this app saved in this session (downloads and exports): the only ones revealFile shows. */
export class SavedFiles {
  private readonly paths: string[] = [];

  add(path: string): void {
    this.paths.push(path);
  }

  latest(): string | undefined {
    return this.paths.at(-1);
  }

  has(path: string): boolean {
    return this.paths.includes(path);
  }
}

/** Records every download of the session that completes. */
export function recordDownloads(session: Pick<Session, 'on'>, saved: SavedFiles): void {
  session.on('will-download', (_event, item: DownloadItem) => {
    item.once('done', (_done, state) => {
      if (state === 'completed') saved.add(item.getSavePath());
    });
  });
}

export interface DesktopActionDeps {
  ipcMain: Pick<IpcMain, 'handle'>;
  /** Electron's shell: openPath, showItemInFolder, and openExternal through openInBrowser. */
  shell: Pick<Shell, 'openPath' | 'showItemInFolder' | 'openExternal'>;
  /** The emulator's origin: only its top-level page may call these. */
  origin: () => string;
  dataDir: string;
  saved: SavedFiles;
}

/** Whether an IPC call comes from the emulator's UI in a top-level frame (not captured HTML, not another site). */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>, origin: string): boolean {
  const frame = event.senderFrame;
  return !!frame && frame.parent === null && isEmulatorUrl(frame.url, origin);
}

/** The main-process side of the preload's three functions; each checks its caller and its argument. */
export function registerDesktopActions(deps: DesktopActionDeps): void {
  const guard = (event: IpcMainInvokeEvent) => {
    if (!isTrustedSender(event, deps.origin())) throw new Error('not allowed from this page');
  };
  deps.ipcMain.handle(DESKTOP_CHANNELS.openDataFolder, async (event) => {
    guard(event);
    const problem = await deps.shell.openPath(deps.dataDir);
    if (problem) throw new Error(problem);
  });
  deps.ipcMain.handle(DESKTOP_CHANNELS.revealFile, (event, path: unknown) => {
    guard(event);
    const file = path === undefined ? deps.saved.latest() : typeof path === 'string' && deps.saved.has(path) ? path : undefined;
    if (!file) throw new Error(path === undefined ? 'nothing has been saved yet' : 'only files saved by Mailyard in this session can be shown');
    deps.shell.showItemInFolder(file);
  });
  deps.ipcMain.handle(DESKTOP_CHANNELS.openLink, async (event, url: unknown) => {
    guard(event);
    if (typeof url !== 'string' || !(await openInBrowser(deps.shell, url))) throw new Error('only http and https links can be opened');
  });
}
