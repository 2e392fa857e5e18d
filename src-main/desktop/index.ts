import { join } from 'node:path';
import { app, BrowserWindow } from 'electron';
import { createEmulator, type EmulatorHandle } from '../core/create-emulator';

/**
 * The desktop shell: the same emulator as `mailyard serve`, inside the Electron main process, and a
 * window that loads the web UI from the emulator's own listener. A first cut; the full shell
 * (single instance, port fallback, menus, packaging) is its own piece of work.
 */
let emulator: EmulatorHandle | undefined;

async function start(): Promise<void> {
  emulator = await createEmulator({ uiDir: join(import.meta.dirname, '../renderer') });
  const origin = new URL(emulator.urls.http).origin;
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Mailyard',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== origin) event.preventDefault();
  });
  await window.loadURL(emulator.urls.http);
}

app.on('window-all-closed', () => app.quit());
app.on('before-quit', (event) => {
  if (!emulator) return;
  event.preventDefault();
  const closing = emulator;
  emulator = undefined;
  void closing.close().finally(() => app.quit());
});
app.whenReady().then(start, (err: unknown) => {
  console.error(err);
  app.exit(1);
});
