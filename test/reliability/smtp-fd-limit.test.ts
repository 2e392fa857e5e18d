import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process';

/**
 * 1,100 idle SMTP connections to a `mailyard serve` limited to 512 file descriptors: the sink holds
 * at most its connection cap (256, told 421 past it) plus 64 sockets still closing, and closes further
 * ones at once, so the HTTP listener keeps descriptors to answer with. Before the cap, 1,100 idle
 * connections under a 1,024 limit made /emulator/health fail. Runs the built CLI (npm test builds it).
 */
const FD_LIMIT = 512;
const CONNECTIONS = 1100;

let serve: ServeProcess | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  serve?.child.kill('SIGKILL');
  if (serve) await serve.exited;
  serve = undefined;
});

/** Opens a connection and resolves with its first line (the greeting), or '' once the server closed it without one. */
function openIdle(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let data = '';
    socket.setEncoding('latin1');
    socket.on('error', () => resolve(data));
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('\r\n')) resolve(data.slice(0, data.indexOf('\r\n')));
    });
    socket.on('close', () => resolve(data));
  });
}

describe('SMTP sink: idle connections cannot take the file descriptors HTTP needs', () => {
  it(`${CONNECTIONS} idle SMTP connections under a ${FD_LIMIT} descriptor limit: health still answers`, async () => {
    serve = await startServeProcess(['--http-port', '0', '--memory']);
    const smtpPort = Number(/^SMTP:\s+smtp:\/\/[^:]+:(\d+)/m.exec(serve.stdout())![1]);
    execFileSync('prlimit', ['--pid', String(serve.child.pid), `--nofile=${FD_LIMIT}:${FD_LIMIT}`]);
    const health = async () => {
      const res = await fetch(`${serve!.url}/emulator/health`, { signal: AbortSignal.timeout(5000) }).catch((err: Error) => err);
      return res instanceof Error ? res.message : res.status;
    };
    expect(await health()).toBe(200);

    const greetings = await Promise.all(Array.from({ length: CONNECTIONS }, () => openIdle(smtpPort)));
    const served = greetings.filter((g) => g.startsWith('220 '));
    const refused = greetings.filter((g) => g.startsWith('421 '));
    expect(served.length).toBe(256);
    expect(served.length + refused.length).toBeLessThanOrEqual(CONNECTIONS);
    // The 256 served connections stay open, idle; HTTP still has descriptors to answer with.
    for (let i = 0; i < 5; i++) expect(await health()).toBe(200);
    expect(serve.child.exitCode).toBeNull();
  });
});
