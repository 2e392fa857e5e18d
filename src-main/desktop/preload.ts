import { contextBridge } from 'electron';

// The renderer talks to the emulator over HTTP. The preload only tells it that it runs in the
// desktop shell; desktop-only actions are added here one function each.
contextBridge.exposeInMainWorld('mailyardDesktop', { isDesktop: true });
