import { contextBridge, ipcRenderer } from 'electron';
import { buildDesktopApi, DESKTOP_API_KEY } from '../../src-shared/desktop-api';

// The preload (sandboxed, CommonJS): `window.mailyardDesktop` with exactly one function per
// desktop-only action (open the data folder, reveal a saved file, open a link), each passing plain
// values to the main process, which checks them. The page gets no ipcRenderer, no Node, nothing else.
contextBridge.exposeInMainWorld(
  DESKTOP_API_KEY,
  buildDesktopApi((channel, ...args) => ipcRenderer.invoke(channel, ...args)),
);
