// Large SMTP messages from many clients at once, from a process of its own (so the test's process
// measures the emulator's memory alone). On {port, clients, attachmentBytes, retryMs, deadlineMs} over
// IPC it composes one message (a text part and a base64 attachment), opens `clients` connections to
// 127.0.0.1 and sends it on each at once; a 4xx answer is retried on the same connection after
// `retryMs`, as a mail server retries a deferral. Answers {results: [{attempts, codes, final}], seconds}.
import { openSmtp as open } from '../helpers/smtp-replies.mjs';

function compose(attachmentBytes) {
  const attachment = Buffer.alloc(attachmentBytes);
  for (let i = 0; i < attachmentBytes; i++) attachment[i] = (i * 7919) % 251;
  const base64 = attachment.toString('base64').replace(/.{76}/g, '$&\r\n');
  const head =
    'From: Load <load@example.com>\r\nTo: sink@example.org\r\nSubject: big\r\nMIME-Version: 1.0\r\n' +
    'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nA large message.\r\n' +
    '--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="big.bin"\r\n' +
    'Content-Transfer-Encoding: base64\r\n\r\n';
  return Buffer.from(`${head}${base64}\r\n--b--\r\n.\r\n`, 'latin1');
}

async function client(job, message, n) {
  const codes = [];
  const stop = Date.now() + job.deadlineMs;
  let attempts = 0;
  while (Date.now() < stop) {
    const { socket, read } = await open(job.port);
    const greeting = await read();
    if (greeting.code !== 220) {
      codes.push(greeting.code);
      socket.destroy();
      await new Promise((r) => setTimeout(r, job.retryMs));
      continue;
    }
    socket.write('EHLO load.test\r\n');
    await read();
    for (;;) {
      attempts++;
      socket.write(`MAIL FROM:<load${n}@example.com>\r\nRCPT TO:<sink${n}@example.org>\r\nDATA\r\n`);
      const replies = [await read(), await read(), await read()];
      let final = replies.find((r) => r.code !== 250 && r.code !== 354);
      if (!final) {
        await new Promise((r) => socket.write(message, r));
        final = await read();
      }
      codes.push(final.code);
      if (final.code === 250 || final.code === 0 || final.code >= 500 || Date.now() >= stop) {
        socket.destroy();
        return { attempts, codes, final: final.line };
      }
      socket.write('RSET\r\n');
      await read();
      await new Promise((r) => setTimeout(r, job.retryMs));
    }
  }
  return { attempts, codes, final: 'deadline' };
}

process.on('message', async (job) => {
  const message = compose(job.attachmentBytes);
  process.send({ composed: message.length });
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: job.clients }, (_, n) => client(job, message, n)));
  process.send({ results, seconds: (performance.now() - started) / 1000 });
});
process.on('disconnect', () => process.exit(0));
