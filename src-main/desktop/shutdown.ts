import type { App } from 'electron';

/**
 * Clean shutdown: the first `before-quit` is held until the emulator has closed (requests and
 * delivery attempts in flight finish or are recorded to resume next start; the database is closed),
 * then the app quits for real. Later `before-quit`s while closing are held too; close runs once.
 */
export function installShutdown(app: Pick<App, 'on' | 'quit'>, close: () => Promise<void>, onError: (err: unknown) => void = () => {}): void {
  let state: 'running' | 'closing' | 'closed' = 'running';
  app.on('before-quit', (event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    void close()
      .catch(onError)
      .finally(() => {
        state = 'closed';
        app.quit();
      });
  });
}
