import { describe, expect, it } from 'vitest';
import { installShutdown } from '../../../src-main/desktop/shutdown';
import { FakeEmitter, fakeEvent } from './fakes';

function fakeApp() {
  const app = new FakeEmitter() as FakeEmitter & { quit: () => void; log: string[] };
  app.log = [];
  app.quit = () => {
    app.log.push('quit');
    // Electron emits before-quit again when quit() is called.
    const event = fakeEvent();
    app.emit('before-quit', event);
    app.log.push(event.defaultPrevented() ? 'quit held' : 'quit proceeds');
  };
  return app;
}

describe('installShutdown', () => {
  it('holds the quit until the emulator has closed, closes it once, then quits', async () => {
    const app = fakeApp();
    let finish: () => void = () => {};
    let closes = 0;
    installShutdown(app as never, () => {
      closes++;
      app.log.push('close started');
      return new Promise<void>(
        (resolve) =>
          (finish = () => {
            app.log.push('close finished');
            resolve();
          }),
      );
    });
    const first = fakeEvent();
    app.emit('before-quit', first);
    expect(first.defaultPrevented()).toBe(true);
    // Cmd-Q again while closing: still held, no second close.
    const second = fakeEvent();
    app.emit('before-quit', second);
    expect(second.defaultPrevented()).toBe(true);
    expect(closes).toBe(1);
    expect(app.log).toEqual(['close started']);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(app.log).toEqual(['close started', 'close finished', 'quit', 'quit proceeds']);
    expect(closes).toBe(1);
  });

  it('quits even when closing fails, and reports the error', async () => {
    const app = fakeApp();
    const errors: unknown[] = [];
    installShutdown(
      app as never,
      () => Promise.reject(new Error('disk gone')),
      (err) => errors.push(err),
    );
    app.emit('before-quit', fakeEvent());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors).toEqual([new Error('disk gone')]);
    expect(app.log).toEqual(['quit', 'quit proceeds']);
  });
});
