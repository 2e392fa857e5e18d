import { describe, expect, it, vi } from 'vitest';
import { recordDownloads, registerDesktopActions, SavedFiles } from '../../../src-main/desktop/desktop-actions';
import { FakeEmitter } from './fakes';

const ORIGIN = 'http://127.0.0.1:4400';

function setup() {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const shell = { openPath: vi.fn(async () => ''), showItemInFolder: vi.fn(), openExternal: vi.fn(async () => {}) };
  const saved = new SavedFiles();
  registerDesktopActions({
    ipcMain: { handle: (channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => void handlers.set(channel, handler) } as never,
    shell: shell as never,
    origin: () => ORIGIN,
    dataDir: '/home/u/.config/Mailyard/data',
    saved,
  });
  const ui = { senderFrame: { url: `${ORIGIN}/messages`, parent: null } };
  const call = async (channel: string, event: unknown, ...args: unknown[]) => handlers.get(channel)!(event, ...args);
  return { handlers, shell, saved, ui, call };
}

describe('the desktop actions (main side of the preload)', () => {
  it('registers exactly the three channels', () => {
    expect([...setup().handlers.keys()].sort()).toEqual(['mailyard:open-data-folder', 'mailyard:open-link', 'mailyard:reveal-file']);
  });

  it('opens the data folder for the UI', async () => {
    const { shell, ui, call } = setup();
    await call('mailyard:open-data-folder', ui);
    expect(shell.openPath).toHaveBeenCalledWith('/home/u/.config/Mailyard/data');
  });

  it('refuses callers other than the UI in its top-level frame', async () => {
    const { shell, call } = setup();
    for (const event of [
      { senderFrame: { url: 'https://example.com/', parent: null } },
      { senderFrame: { url: `${ORIGIN}/emulator/messages/1/html`, parent: {} } },
      { senderFrame: null },
    ]) {
      await expect(call('mailyard:open-data-folder', event)).rejects.toThrow(/not allowed/);
      await expect(call('mailyard:open-link', event, 'https://example.com')).rejects.toThrow(/not allowed/);
    }
    expect(shell.openPath).not.toHaveBeenCalled();
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('opens http(s) links only', async () => {
    const { shell, ui, call } = setup();
    await call('mailyard:open-link', ui, 'https://example.com/docs');
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/docs');
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 42, undefined]) {
      await expect(call('mailyard:open-link', ui, bad)).rejects.toThrow(/http and https/);
    }
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('reveals only files saved in this session, the latest without a path', async () => {
    const { shell, saved, ui, call } = setup();
    await expect(call('mailyard:reveal-file', ui)).rejects.toThrow(/nothing has been saved/);
    const session = new FakeEmitter();
    recordDownloads(session as never, saved);
    for (const [path, state] of [
      ['/d/a.json', 'completed'],
      ['/d/b.json', 'cancelled'],
      ['/d/c.eml', 'completed'],
    ] as const) {
      const item = new FakeEmitter();
      Object.assign(item, { getSavePath: () => path });
      session.emit('will-download', {}, item);
      item.emit('done', {}, state);
    }
    await call('mailyard:reveal-file', ui);
    expect(shell.showItemInFolder).toHaveBeenLastCalledWith('/d/c.eml');
    await call('mailyard:reveal-file', ui, '/d/a.json');
    expect(shell.showItemInFolder).toHaveBeenLastCalledWith('/d/a.json');
    await expect(call('mailyard:reveal-file', ui, '/d/b.json')).rejects.toThrow(/only files saved/);
    await expect(call('mailyard:reveal-file', ui, '/etc/passwd')).rejects.toThrow(/only files saved/);
    expect(shell.showItemInFolder).toHaveBeenCalledTimes(2);
  });
});
