import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../helpers/emulator';
import { startReceiver, startSilentTcpServer } from '../helpers/receiver';

describe('close()', () => {
  it('cuts connections still busy after the grace period instead of hanging', async () => {
    // The HTTP time-outs are longer than the test's time-out: only the grace can end this connection
    // within it, so a close that hung fails the test.
    const emu = await startEmulator({ shutdownGraceMs: 300, httpHeadersTimeoutMs: 120_000, httpRequestTimeoutMs: 120_000 });
    const { port } = new URL(emu.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // A request whose headers never finish: busy, not idle, from the server's point of view.
    socket.write('GET /emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const closed = new Promise((r) => socket.once('close', r));
    await new Promise((r) => setTimeout(r, 50));

    const started = Date.now();
    await emu.cleanup();
    await closed;
    // Cut once the grace was over, not before.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('lets a request in flight finish and answer', async () => {
    // A registration whose reachability check hangs on a TLS handshake for 500 ms is in flight.
    const silent = await startSilentTcpServer();
    const emu = await startEmulator({ reachabilityTimeoutMs: 500 });
    const pending = emu.request('POST', '/v1/webhook/register', {
      body: { webhook_url: `https://127.0.0.1:${silent.port}/`, event: 'DOMAIN_VERIFICATION', method: 'POST' },
    });
    await new Promise((r) => setTimeout(r, 150));
    const closing = emu.cleanup();
    const res = await pending;
    expect(res.status).toBe(422);
    expect(res.json.error).toContain('within 500 ms');
    await closing;
    await silent.close();
  });

  it('records an attempt still hanging after the grace period as interrupted, and retries it after a restart', async () => {
    const receiver = await startReceiver();
    receiver.answer = (_req, i) => (i === 0 ? 'hang' : 200);
    const emu = await startEmulator({ shutdownGraceMs: 200 });
    try {
      await emu.service.registerWebhook({
        webhook_url: receiver.url,
        event: 'EMAIL_EVENT',
        method: 'POST',
        webhook_options: { events: { delivery: true } },
      });
      const id = (await emu.control.fireEvent({ event: 'delivery' })).data.delivery_id!;
      await receiver.waitFor(1);
      await emu.stop();

      const again = await startEmulator({}, {}, emu.dataDir);
      try {
        const d = (await again.control.getDelivery(id)).data;
        expect(d.status).toBe('pending');
        expect(d.attempt_log).toHaveLength(1);
        expect(d.attempt_log[0]).toMatchObject({ trigger: 'scheduled', outcome: 'failed', error: { code: 'interrupted' } });
        expect(Date.parse(d.next_attempt_at!) - Date.parse(d.attempt_log[0]!.started_at)).toBeGreaterThanOrEqual(5_000);
        await again.control.setClock({ advance_ms: 5_000 });
        await receiver.waitFor(2);
        expect(receiver.requests[1]!.headers['webhook-id']).toBe(id);
      } finally {
        await again.stop();
      }
    } finally {
      await emu.cleanup();
      await receiver.close();
    }
  });

  it('can be called twice', async () => {
    const emu = await startEmulator();
    await Promise.all([emu.stop(), emu.stop()]);
    await emu.cleanup();
  });
});
