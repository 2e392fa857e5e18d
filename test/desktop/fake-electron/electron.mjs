// A stand-in for Electron's main-process API, enough to run out/main/desktop.js under Node in a
// test: it reports what the app does as JSON lines on stdout and takes commands on stdin
// (`quit`, `second-instance`). Paths come from FAKE_ELECTRON_APPDATA. Test code only.
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';

const report = (event, data = {}) => process.stdout.write(`${JSON.stringify({ fake: event, ...data })}\n`);
const appData = process.env.FAKE_ELECTRON_APPDATA;
const paths = { appData, userData: `${appData}/Electron` };

class App extends EventEmitter {
  isPackaged = true;
  setName(name) {
    report('setName', { name });
  }
  getPath(name) {
    return paths[name] ?? `${appData}/${name}`;
  }
  setPath(name, value) {
    paths[name] = value;
  }
  getAppPath() {
    return process.cwd();
  }
  requestSingleInstanceLock() {
    return process.env.FAKE_ELECTRON_LOCKED !== '1';
  }
  whenReady() {
    return Promise.resolve();
  }
  getLoginItemSettings() {
    return { openAtLogin: false };
  }
  setLoginItemSettings() {}
  quit() {
    report('quit-called');
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (prevented) return report('quit-held');
    report('exit', { code: 0 });
    process.exit(0);
  }
  exit(code) {
    report('exit', { code });
    process.exit(code);
  }
}
export const app = new App();

class Contents extends EventEmitter {
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
}

export class BrowserWindow extends EventEmitter {
  webContents = new Contents();
  constructor(options) {
    super();
    report('window', { options });
  }
  async loadURL(url) {
    report('loadURL', { url, locked: [...this.webContents.eventNames()], windowOpen: typeof this.webContents.windowOpenHandler });
  }
  show() {}
  focus() {}
  isDestroyed() {
    return false;
  }
  isMinimized() {
    return false;
  }
}

export const session = {
  defaultSession: Object.assign(new EventEmitter(), {
    setPermissionRequestHandler: () => report('permission-request-handler'),
    setPermissionCheckHandler: () => report('permission-check-handler'),
    webRequest: { onHeadersReceived: () => report('headers-received-handler') },
  }),
};
export const ipcMain = { handle: (channel) => report('ipc-handle', { channel }) };
export const Menu = { buildFromTemplate: (template) => template, setApplicationMenu: () => report('menu') };
export const dialog = {
  showErrorBox: (title, message) => report('error-box', { title, message }),
  showMessageBox: async (...args) => {
    report('message-box', { options: args.at(-1) });
    return { response: 0 };
  },
};
export const shell = { openExternal: async () => {}, openPath: async () => '', showItemInFolder: () => {} };
export const clipboard = { writeText: () => {} };
export class Notification extends EventEmitter {
  static isSupported() {
    return false;
  }
  show() {}
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'quit') app.quit();
  if (line === 'second-instance') app.emit('second-instance');
});
