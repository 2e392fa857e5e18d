import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, Notification, session, shell } from 'electron';
import { createEmulator, type EmulatorHandle, VERSION } from '../core';
import { UI_CSP } from '../core/http/ui';
import { recordDownloads, registerDesktopActions, SavedFiles } from './desktop-actions';
import { createMainWindow } from './main-window';
import { aboutDetail, buildMenuTemplate, type MenuActions } from './menu';
import { chooseNativeSqlite } from './native-sqlite';
import { notifyFailedDeliveries } from './notifications';
import { describeFallbacks, startWithPortFallback } from './ports';
import { loadPreferences, savePreferences } from './preferences';
import { lockDownContents, lockDownSession, openInBrowser } from './security';
import { installShutdown } from './shutdown';

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The desktop app's main process: the composition of the pieces beside it. The same emulator as
 * `mailyard serve`, started here with its data in the user-data folder, and one window showing the
 * web UI from the emulator's own listener. Built to out/main/desktop.js.
 */

const OUT = import.meta.dirname; // out/main
const PRODUCT = 'Mailyard';

function fail(title: string, err: unknown): void {
  dialog.showErrorBox(title, err instanceof Error ? err.message : String(err));
  app.exit(1);
}

/** The better-sqlite3 binding for this Electron (see native-sqlite.ts); undefined: the module's own. */
function sqliteBinding(): string | undefined {
  if (app.isPackaged) return undefined; // electron-builder rebuilt node_modules/better-sqlite3 for Electron
  // The project (out/main/../..), however Electron was started: `electron out/main/desktop.js` makes out/main the app path.
  const root = join(OUT, '..', '..');
  const pkg = createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json');
  const choice = chooseNativeSqlite({
    isPackaged: app.isPackaged,
    projectRoot: root,
    target: {
      sqliteVersion: (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version,
      electronVersion: process.versions.electron ?? '',
      platform: process.platform,
      arch: process.arch,
    },
    exists: existsSync,
  });
  if (choice.kind === 'missing') throw new Error(choice.message);
  return choice.kind === 'prepared' ? choice.binding : undefined;
}

function main(): void {
  // One folder whatever the package's name: Linux ~/.config/Mailyard, macOS ~/Library/Application
  // Support/Mailyard, Windows %APPDATA%\Mailyard. The emulator's data lives in its `data` folder.
  app.setName(PRODUCT);
  app.setPath('userData', join(app.getPath('appData'), PRODUCT));
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const dataDir = join(app.getPath('userData'), 'data');
  const preferencesFile = join(app.getPath('userData'), 'preferences.json');
  let preferences = loadPreferences(preferencesFile);
  let window: BrowserWindow | undefined;
  let emulator: EmulatorHandle | undefined;
  let resolveStarted: (handle: EmulatorHandle | undefined) => void = () => {};
  const started = new Promise<EmulatorHandle | undefined>((resolve) => (resolveStarted = resolve));

  installShutdown(
    app,
    async () => (await started)?.close(),
    (err) => console.error('mailyard: error while stopping', err),
  );
  app.on('second-instance', () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  const showWindow = async (path = '/') => {
    if (!emulator) return;
    if (window && !window.isDestroyed()) {
      if (path !== '/') await window.loadURL(new URL(path, emulator.urls.http).href);
      window.show();
      window.focus();
      return;
    }
    const url = new URL(path, emulator.urls.http).href;
    window = createMainWindow(BrowserWindow, {
      preload: join(OUT, '../preload/preload.cjs'),
      url,
      title: `${PRODUCT} · ${emulator.urls.http}`,
      openInBrowser: (link) => openInBrowser(shell, link),
    });
    await window.loadURL(url);
  };

  /**
   * A folder chosen here, in the native dialog, is one the person allowed: its scenario files run from
   * the UI with the app they start (as `mailyard serve --scenarios DIR`), now and at the next start.
   */
  const allowScenariosFolder = async (running: EmulatorHandle) => {
    const options = { title: 'Allow a scenarios folder', buttonLabel: 'Allow', properties: ['openDirectory' as const] };
    const choice = window && !window.isDestroyed() ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
    const [dir] = choice.filePaths;
    if (choice.canceled || dir === undefined) return;
    const folder = running.services.scenarios.folders.allow(dir);
    if (!preferences.scenarioDirs.includes(folder.dir)) {
      preferences = { ...preferences, scenarioDirs: [...preferences.scenarioDirs, folder.dir] };
      savePreferences(preferencesFile, preferences);
    }
    refreshMenu();
  };

  const refreshMenu = () => {
    if (!emulator) return;
    const running = emulator;
    const loginItemsSupported = process.platform === 'darwin' || process.platform === 'win32';
    const actions: MenuActions = {
      copyApiKey: () => clipboard.writeText(running.defaultAccount.apiKey),
      openDataFolder: () => void shell.openPath(dataDir),
      openInBrowser: () => void openInBrowser(shell, running.urls.http),
      setStartAtLogin: (enabled) => {
        app.setLoginItemSettings({ openAtLogin: enabled });
        refreshMenu();
      },
      setFailureNotifications: (enabled) => {
        preferences = { ...preferences, failureNotifications: enabled };
        savePreferences(preferencesFile, preferences);
        refreshMenu();
      },
      allowScenariosFolder: () =>
        void allowScenariosFolder(running).catch(
          (err: unknown) =>
            void dialog.showMessageBox({ type: 'error', title: PRODUCT, message: 'That folder cannot be allowed', detail: String((err as Error).message) }),
        ),
      forgetScenariosFolders: () => {
        running.services.scenarios.folders.forgetAll();
        preferences = { ...preferences, scenarioDirs: [] };
        savePreferences(preferencesFile, preferences);
        refreshMenu();
      },
      showAbout: () =>
        void dialog.showMessageBox({
          type: 'info',
          title: `About ${PRODUCT}`,
          message: `${PRODUCT} ${VERSION}`,
          detail: aboutDetail({
            version: VERSION,
            versions: process.versions,
            platform: `${process.platform}-${process.arch}`,
            dataDir,
            httpUrl: running.urls.http,
          }),
        }),
      quit: () => app.quit(),
    };
    const template = buildMenuTemplate(
      {
        platform: process.platform,
        httpUrl: running.urls.http,
        smtpUrl: running.urls.smtp,
        loginItemsSupported,
        startAtLogin: loginItemsSupported && app.getLoginItemSettings().openAtLogin,
        failureNotifications: preferences.failureNotifications,
        scenarioDirs: running.services.scenarios.folders.dirs,
      },
      actions,
    );
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  };

  const start = async () => {
    const binding = sqliteBinding();
    const { result, fallbacks } = await startWithPortFallback((ports) =>
      createEmulator(
        // A folder allowed before and gone since is left out, not a reason to fail the start.
        { httpPort: ports.http, smtpPort: ports.smtp, dataDir, uiDir: join(OUT, '../renderer'), scenarioDirs: preferences.scenarioDirs.filter(isFolder) },
        { sqliteNativeBinding: binding },
      ),
    );
    emulator = result;
    resolveStarted(result);
    const origin = new URL(result.urls.http).origin;
    lockDownSession(session.defaultSession, { origin, csp: UI_CSP });
    // Any other web contents (none is opened on purpose) gets the same lockdown.
    app.on('web-contents-created', (_event, contents) => lockDownContents(contents, { origin, openInBrowser: (url) => openInBrowser(shell, url) }));
    const saved = new SavedFiles();
    recordDownloads(session.defaultSession, saved);
    registerDesktopActions({ ipcMain, shell, origin: () => origin, dataDir, saved });
    notifyFailedDeliveries(result.live, {
      enabled: () => preferences.failureNotifications && Notification.isSupported(),
      notify: (notice) => {
        const note = new Notification({ title: notice.title, body: notice.body });
        note.on('click', () => void showWindow(notice.path));
        note.show();
      },
    });
    refreshMenu();
    await showWindow();
    const moved = describeFallbacks(fallbacks, result.ports);
    if (moved && window) {
      void dialog.showMessageBox(window, {
        type: 'info',
        title: PRODUCT,
        message: 'A default port was in use',
        detail: `${moved}\n\nWeb UI and API: ${result.urls.http}\nSMTP: ${result.urls.smtp ?? 'off'}`,
      });
    }
  };

  app.on('window-all-closed', () => {
    // On macOS the app (and the emulator) keeps running without windows, as apps there do.
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => void showWindow());
  app
    .whenReady()
    .then(start)
    .catch(async (err: unknown) => {
      resolveStarted(undefined);
      // Started but the window could not load: the database is closed before the app exits.
      await emulator?.close().catch(() => {});
      fail(`${PRODUCT} could not start`, err);
    });
}

main();
