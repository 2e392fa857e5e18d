import { beforeEach, describe, expect, it, vi } from 'vitest';

const electron = vi.hoisted(() => ({
  exposed: [] as [string, Record<string, unknown>][],
  invoke: vi.fn(async (..._args: unknown[]) => undefined),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => electron.exposed.push([key, api]) },
  ipcRenderer: { invoke: electron.invoke, send: vi.fn(), on: vi.fn() },
}));

describe('the preload', () => {
  beforeEach(() => {
    electron.invoke.mockClear();
  });

  it('exposes exactly three functions as window.mailyardDesktop, and nothing else', async () => {
    await import('../../../src-main/desktop/preload');
    expect(electron.exposed).toHaveLength(1);
    const [key, api] = electron.exposed[0]!;
    expect(key).toBe('mailyardDesktop');
    expect(Object.keys(api).sort()).toEqual(['openDataFolder', 'openLink', 'revealFile']);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    // No ipcRenderer, no generic invoke, no Node handed over.
    expect(Object.values(api)).not.toContain(electron.invoke);
  });

  it('each function invokes its own channel with plain values', async () => {
    await import('../../../src-main/desktop/preload');
    const api = electron.exposed[0]![1] as Record<string, (...args: unknown[]) => Promise<void>>;
    await api.openDataFolder!('ignored');
    await api.revealFile!('/home/u/Downloads/export.json');
    await api.revealFile!({ toString: () => '/etc/passwd' });
    await api.openLink!('https://example.com');
    expect(electron.invoke.mock.calls).toEqual([
      ['mailyard:open-data-folder'],
      ['mailyard:reveal-file', '/home/u/Downloads/export.json'],
      ['mailyard:reveal-file', undefined],
      ['mailyard:open-link', 'https://example.com'],
    ]);
  });
});
