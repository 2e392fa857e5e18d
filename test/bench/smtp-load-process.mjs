// An SMTP load generator in its own process, on raw sockets (a mail library would cost more CPU per
// message than the servers it measures). On {port, message, total, concurrency} over IPC it opens
// `concurrency` connections, each sending messages in turn with PIPELINING (MAIL, RCPT and DATA in
// one write), and answers {seconds, accepted, rejected, firstError, cpuUs} (cpuUs: this process's CPU for
// the job, in µs).
import { openSmtp as open } from '../helpers/smtp-replies.mjs';

process.on('message', async (job) => {
  const data = Buffer.from(`${job.message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')}\r\n.\r\n`, 'latin1');
  let next = 0;
  let accepted = 0;
  let rejected = 0;
  let firstError = null;
  const cpu = process.cpuUsage();
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
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  process.send({ seconds, accepted, rejected, firstError, cpuUs: used.user + used.system });
});
process.on('disconnect', () => process.exit(0));
