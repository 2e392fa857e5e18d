import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeEvent } from './fakes';

/** The composition (src-main/desktop/index.ts) with electron and the emulator replaced by fakes. */

const ROOT = resolve(import.meta.dirname, '../../..');

const h = vi.hoisted(() => {
  const state = {
    lock: true,
    isPackaged: true,
    busy: new Set<number>(),
    log: [] as string[],
    windows: [] as any[],
    handles: [] as any[],
    createCalls: [] as any[],
    ipc: new Map<string, unknown>(),
    messageBoxes: [] as any[],
    errorBoxes: [] as any[],
    menus: [] as any[],
    /** What the folder dialog answers. */
    openDialog: { canceled: true, filePaths: [] as string[] },
    app: undefined as any,
    session: undefined as any,
  };
  return { state };
});

vi.mock('electron', async () => {
  const { FakeEmitter: Emitter, FakeContents: Contents } = await import('./fakes');
  const { vi: v } = await import('vitest');
  const s = h.state;
  const app = new Emitter() as any;
  Object.assign(app, {
    setName: v.fn(),
    setPath: v.fn(),
    getPath: (name: string) => `/fake/${name}`,
    getAppPath: () => ROOT_PATH(),
    requestSingleInstanceLock: () => s.lock,
    quit: v.fn(() => {
      s.log.push('app.quit');
      const event = { preventDefault: v.fn() };
      app.emit('before-quit', event);
      if (event.preventDefault.mock.calls.length === 0) s.log.push('quit proceeds');
    }),
    exit: v.fn((code: number) => s.log.push(`app.exit ${code}`)),
    whenReady: () => Promise.resolve(),
    getLoginItemSettings: () => ({ openAtLogin: false }),
    setLoginItemSettings: v.fn(),
  });
  Object.defineProperty(app, 'isPackaged', { get: () => s.isPackaged });
  s.app = app;
  const session = {
    setPermissionRequestHandler: v.fn(),
    setPermissionCheckHandler: v.fn(),
    webRequest: { onHeadersReceived: v.fn() },
    on: v.fn(),
  };
  s.session = session;
  class BrowserWindow extends Emitter {
    webContents = new Contents();
    show = v.fn();
    focus = v.fn();
    isDestroyed = () => false;
    isMinimized = () => false;
    restore = v.fn();
    loadURL = v.fn(async () => {});
    constructor(readonly options: any) {
      super();
      s.windows.push(this);
    }
  }
  function ROOT_PATH() {
    return (globalThis as any).__mailyardRoot as string;
  }
  return {
    app,
    BrowserWindow,
    clipboard: { writeText: v.fn() },
    dialog: {
      showErrorBox: v.fn((title: string, message: string) => s.errorBoxes.push({ title, message })),
      showMessageBox: v.fn(async (...args: any[]) => {
        s.messageBoxes.push(args.at(-1));
        return { response: 0 };
      }),
      showOpenDialog: v.fn(async () => s.openDialog),
    },
    ipcMain: { handle: v.fn((channel: string, handler: unknown) => s.ipc.set(channel, handler)) },
    Menu: { buildFromTemplate: v.fn((t: unknown) => t), setApplicationMenu: v.fn((m: unknown) => s.menus.push(m)) },
    Notification: Object.assign(v.fn(), { isSupported: () => true }),
    session: { defaultSession: session },
    shell: { openExternal: v.fn(), openPath: v.fn(async () => ''), showItemInFolder: v.fn() },
  };
});

vi.mock('../../../src-main/core', async () => {
  const { LiveBus } = await import('../../../src-main/core/live-bus');
  const { ScenarioFolders } = await import('../../../src-main/core/scenario/scenario-folders');
  return {
    VERSION: '0.0.0-test',
    createEmulator: async (config: any, seams: any) => {
      const s = h.state;
      s.createCalls.push({ config, seams });
      for (const port of [config.httpPort, config.smtpPort]) {
        if (s.busy.has(port)) throw Object.assign(new Error('in use'), { code: 'EADDRINUSE', port });
      }
      const http = config.httpPort || 51001;
      const smtp = config.smtpPort || 51002;
      const handle = {
        urls: { http: `http://127.0.0.1:${http}`, smtp: `smtp://127.0.0.1:${smtp}` },
        ports: { http, smtp },
        defaultAccount: { apiKey: 'mly_test' },
        live: new LiveBus(),
        services: { scenarios: { folders: new ScenarioFolders(config.scenarioDirs ?? []) } },
        close: vi.fn(async () => {
          s.log.push('emulator.close');
        }),
      };
      s.handles.push(handle);
      return handle;
    },
  };
});

async function load() {
  vi.resetModules();
  await import('../../../src-main/desktop/index');
}

beforeEach(() => {
  // The mocked electron module outlives vi.resetModules: forget the previous run's listeners.
  h.state.app?.handlers.clear();
  (globalThis as any).__mailyardRoot = ROOT;
  Object.assign(h.state, {
    lock: true,
    isPackaged: true,
    busy: new Set<number>(),
    log: [],
    windows: [],
    handles: [],
    createCalls: [],
    ipc: new Map(),
    messageBoxes: [],
    errorBoxes: [],
    menus: [],
    openDialog: { canceled: true, filePaths: [] },
  });
});

describe('the desktop main process', () => {
  it('a second instance quits without starting an emulator', async () => {
    h.state.lock = false;
    await load();
    await new Promise((r) => setTimeout(r, 10));
    expect(h.state.log).toContain('app.quit');
    expect(h.state.createCalls).toEqual([]);
  });

  it('starts the emulator with its data in the user-data folder and opens the locked-down window on its URL', async () => {
    await load();
    await vi.waitFor(() => expect(h.state.windows).toHaveLength(1));
    const s = h.state;
    expect(s.app.setPath).toHaveBeenCalledWith('userData', join('/fake/appData', 'Mailyard'));
    expect(s.createCalls).toHaveLength(1);
    expect(s.createCalls[0].config).toMatchObject({ httpPort: 4400, smtpPort: 2525, dataDir: join('/fake/userData', 'data') });
    expect(s.createCalls[0].config.uiDir).toMatch(/renderer$/);
    // Packaged: better-sqlite3 as electron-builder rebuilt it.
    expect(s.createCalls[0].seams).toEqual({ sqliteNativeBinding: undefined });
    const window = s.windows[0];
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(window.options.webPreferences.preload).toMatch(/preload[\\/]preload\.cjs$/);
    expect(window.loadURL).toHaveBeenCalledWith('http://127.0.0.1:4400/');
    expect(window.options.title).toContain('http://127.0.0.1:4400');
    expect([...s.ipc.keys()].sort()).toEqual(['mailyard:open-data-folder', 'mailyard:open-link', 'mailyard:reveal-file']);
    expect(s.session.setPermissionRequestHandler).toHaveBeenCalledTimes(1);
    expect(s.session.setPermissionCheckHandler).toHaveBeenCalledTimes(1);
    expect(s.menus).toHaveLength(1);
    expect(s.messageBoxes).toEqual([]);
  });

  it('a scenarios folder chosen in the native dialog is allowed at once and at the next start; a folder gone since is left out', async () => {
    const userData = mkdtempSync(join(tmpdir(), 'mailyard-desktop-'));
    const folder = mkdtempSync(join(tmpdir(), 'mailyard-desktop-scenarios-'));
    const getPath = h.state.app.getPath;
    h.state.app.getPath = (name: string) => (name === 'userData' ? userData : getPath(name));
    try {
      await load();
      await vi.waitFor(() => expect(h.state.menus).toHaveLength(1));
      h.state.openDialog = { canceled: false, filePaths: [folder] };
      const allow = (menu: any[]) => menu.flatMap((m) => m.submenu ?? []).find((i: any) => i.label === 'Allow a Scenarios Folder…');
      allow(h.state.menus[0]).click();
      // Allowed in the running emulator, listed in the menu, kept in the preferences.
      await vi.waitFor(() => expect(h.state.handles[0].services.scenarios.folders.dirs).toEqual([realpathSync(folder)]));
      await vi.waitFor(() =>
        expect(
          h.state.menus
            .at(-1)
            .flatMap((m: any) => m.submenu ?? [])
            .map((i: any) => i.label),
        ).toContain(`Scenarios: ${realpathSync(folder)}`),
      );
      await load();
      await vi.waitFor(() => expect(h.state.createCalls).toHaveLength(2));
      expect(h.state.createCalls[1].config.scenarioDirs).toEqual([realpathSync(folder)]);
      rmSync(folder, { recursive: true });
      await load();
      await vi.waitFor(() => expect(h.state.createCalls).toHaveLength(3));
      expect(h.state.createCalls[2].config.scenarioDirs).toEqual([]);
    } finally {
      h.state.app.getPath = getPath;
      rmSync(userData, { recursive: true, force: true });
    }
  });

  it('moves to free ports when the defaults are taken, and says so', async () => {
    h.state.busy = new Set([4400, 2525]);
    await load();
    await vi.waitFor(() => expect(h.state.messageBoxes).toHaveLength(1));
    expect(h.state.createCalls.map((c) => [c.config.httpPort, c.config.smtpPort])).toEqual([
      [4400, 2525],
      [0, 2525],
      [0, 0],
    ]);
    expect(h.state.windows[0].loadURL).toHaveBeenCalledWith('http://127.0.0.1:51001/');
    expect(h.state.messageBoxes[0].detail).toContain(
      'HTTP port 4400 was in use, so Mailyard listens on 51001 instead; SMTP port 2525 was in use, so Mailyard listens on 51002 instead.',
    );
  });

  it('on quit, closes the emulator once and only then lets the quit proceed', async () => {
    await load();
    await vi.waitFor(() => expect(h.state.windows).toHaveLength(1));
    const first = fakeEvent();
    h.state.app.emit('before-quit', first);
    h.state.app.emit('before-quit', fakeEvent());
    expect(first.defaultPrevented()).toBe(true);
    await vi.waitFor(() => expect(h.state.log).toContain('quit proceeds'));
    expect(h.state.log).toEqual(['emulator.close', 'app.quit', 'quit proceeds']);
    expect(h.state.handles[0].close).toHaveBeenCalledTimes(1);
  });

  it('in development without the Electron build of better-sqlite3, explains how to get it instead of starting', async () => {
    h.state.isPackaged = false;
    (globalThis as any).__mailyardRoot = ROOT; // no prepared build on this machine: Electron is never run here
    await load();
    await vi.waitFor(() => expect(h.state.errorBoxes).toHaveLength(1), { timeout: 5000 });
    expect(h.state.errorBoxes[0].message).toMatch(/better-sqlite3 has not been built for Electron.*npm start/);
    expect(h.state.log).toContain('app.exit 1');
    expect(h.state.createCalls).toEqual([]);
  });
});
