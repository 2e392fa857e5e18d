// An SMTP load generator in its own process, on raw sockets (a mail library would cost more CPU per
// message than the servers it measures). On {port, message, total, concurrency} over IPC it opens
// `concurrency` connections, each sending messages in turn with PIPELINING (MAIL, RCPT and DATA in
// one write), and answers {seconds, accepted, rejected, firstError}.
import { connect } from 'node:net';

/** One connection: resolves each reply (its code) in order. */
function open(port) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const waiting = [];
    const ready = [];
    let buffer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line[3] === '-') continue;
        const reply = { code: Number(line.slice(0, 3)), line };
        const w = waiting.shift();
        if (w) w(reply);
        else ready.push(reply);
      }
    });
    socket.once('error', reject);
    const read = () => (ready.length ? Promise.resolve(ready.shift()) : new Promise((r) => waiting.push(r)));
    socket.once('connect', () => resolve({ socket, read }));
  });
}

process.on('message', async (job) => {
  const data = Buffer.from(`${job.message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')}\r\n.\r\n`, 'latin1');
  let next = 0;
  let accepted = 0;
  let rejected = 0;
  let firstError = null;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async (_, c) => {
      const { socket, read } = await open(job.port);
      await read(); // greeting
      socket.write('EHLO load.test\r\n');
      await read();
      while (next < job.total) {
        const n = next++;
        socket.write(`MAIL FROM:<load${c}@example.com>\r\nRCPT TO:<rcpt${n}@example.org>\r\nDATA\r\n`);
        const replies = [await read(), await read(), await read()];
        if (replies[2].code !== 354) {
          rejected++;
          firstError ??= replies.map((r) => r.line).join(' | ');
          socket.write('RSET\r\n');
          await read();
          continue;
        }
        socket.write(data);
        const done = await read();
        if (done.code === 250) accepted++;
        else {
          rejected++;
          firstError ??= done.line;
        }
      }
      socket.write('QUIT\r\n');
      socket.end();
    }),
  );
  process.send({ seconds: (performance.now() - started) / 1000, accepted, rejected, firstError });
});
process.on('disconnect', () => process.exit(0));
