import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../../../src-main/core';
import { DEFAULT_PORTS, describeFallbacks, startWithPortFallback } from '../../../src-main/desktop/ports';

function inUse(port: number) {
  return Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${port}`), { code: 'EADDRINUSE', port });
}

describe('startWithPortFallback', () => {
  it('starts on the default ports when they are free', async () => {
    const start = vi.fn(async (ports: { http: number; smtp: number }) => ports);
    const { result, fallbacks } = await startWithPortFallback(start);
    expect(result).toEqual({ http: 4400, smtp: 2525 });
    expect(DEFAULT_PORTS).toEqual({ http: 4400, smtp: 2525 });
    expect(fallbacks).toEqual([]);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('takes a free port for each default that is in use, one at a time', async () => {
    const taken = new Set([4400, 2525]);
    const start = vi.fn(async (ports: { http: number; smtp: number }) => {
      if (taken.has(ports.http)) throw inUse(ports.http);
      if (taken.has(ports.smtp)) throw inUse(ports.smtp);
      return ports;
    });
    const { result, fallbacks } = await startWithPortFallback(start);
    expect(start.mock.calls.map(([p]) => p)).toEqual([
      { http: 4400, smtp: 2525 },
      { http: 0, smtp: 2525 },
      { http: 0, smtp: 0 },
    ]);
    expect(result).toEqual({ http: 0, smtp: 0 });
    expect(fallbacks).toEqual([
      { which: 'http', wanted: 4400 },
      { which: 'smtp', wanted: 2525 },
    ]);
    expect(describeFallbacks(fallbacks, { http: 51000, smtp: 52000 })).toBe(
      'HTTP port 4400 was in use, so Mailyard listens on 51000 instead; SMTP port 2525 was in use, so Mailyard listens on 52000 instead.',
    );
    expect(describeFallbacks([], { http: 4400, smtp: 2525 })).toBeNull();
  });

  it('gives up every preferred port when the error does not name one', async () => {
    const start = vi.fn(async (ports: { http: number; smtp: number }) => {
      if (ports.http !== 0 || ports.smtp !== 0) throw Object.assign(new Error('in use'), { code: 'EADDRINUSE' });
      return 'ok';
    });
    const { fallbacks } = await startWithPortFallback(start);
    expect(start).toHaveBeenCalledTimes(2);
    expect(fallbacks.map((f) => f.which)).toEqual(['http', 'smtp']);
  });

  it('throws other errors, and an in-use error it cannot act on, as they are', async () => {
    const denied = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    await expect(startWithPortFallback(async () => Promise.reject(denied))).rejects.toBe(denied);
    const start = vi.fn(async () => Promise.reject(inUse(0)));
    await expect(startWithPortFallback(start, { http: 0, smtp: 0 })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(start).toHaveBeenCalledTimes(1);
  });

  describe('with the real emulator', () => {
    let blocker: Server | undefined;
    afterEach(async () => {
      await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
    });

    it('moves off a taken HTTP port and a taken SMTP port', async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
      const busy = (blocker.address() as { port: number }).port;
      // The same port is "preferred" for both: each listener finds it taken in turn.
      const { result: emulator, fallbacks } = await startWithPortFallback(
        (ports) => createEmulator({ memory: true, logLevel: 'silent', httpPort: ports.http, smtpPort: ports.smtp }),
        { http: busy, smtp: busy },
      );
      try {
        expect(fallbacks).toEqual([
          { which: 'http', wanted: busy },
          { which: 'smtp', wanted: busy },
        ]);
        expect(emulator.ports.http).not.toBe(busy);
        expect(emulator.ports.smtp).not.toBe(busy);
        const health = await fetch(`${emulator.urls.http}/emulator/health`);
        expect(health.status).toBe(200);
      } finally {
        await emulator.close();
      }
    });
  });
});
