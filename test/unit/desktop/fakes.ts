import { vi } from 'vitest';

/** A stand-in for Electron event emitters (web contents, sessions, windows, app): records handlers, fires them. */
export class FakeEmitter {
  readonly handlers = new Map<string, ((...args: any[]) => unknown)[]>();

  on = vi.fn((name: string, handler: (...args: any[]) => unknown) => {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
    return this;
  });

  once = vi.fn((name: string, handler: (...args: any[]) => unknown) => this.on(name, handler));

  emit(name: string, ...args: unknown[]): unknown[] {
    return (this.handlers.get(name) ?? []).map((h) => h(...args));
  }
}

/** An Electron event whose default can be prevented. */
export function fakeEvent(
  extra: Record<string, unknown> = {},
): { preventDefault: ReturnType<typeof vi.fn>; defaultPrevented: () => boolean } & Record<string, unknown> {
  const preventDefault = vi.fn();
  return { ...extra, preventDefault, defaultPrevented: () => preventDefault.mock.calls.length > 0 };
}

export class FakeContents extends FakeEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  setWindowOpenHandler = vi.fn((handler: (details: { url: string }) => { action: string }) => {
    this.windowOpenHandler = handler;
  });
}
