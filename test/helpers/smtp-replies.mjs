// A raw SMTP connection for load generators (a mail library would cost more CPU per message than the
// servers measured): `read()` resolves each reply in order, the last line of a multi-line one, as
// {code, line}; once the server closes the connection, every read resolves {code: 0, line: 'closed'}.
import { connect } from 'node:net';

export function openSmtp(port) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const waiting = [];
    const ready = [];
    let buffer = '';
    let closed = false;
    const deliver = (reply) => {
      const w = waiting.shift();
      if (w) w(reply);
      else ready.push(reply);
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line[3] === '-') continue;
        deliver({ code: Number(line.slice(0, 3)), line });
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      for (const w of waiting.splice(0)) w({ code: 0, line: 'closed' });
    });
    const read = () =>
      ready.length ? Promise.resolve(ready.shift()) : closed ? Promise.resolve({ code: 0, line: 'closed' }) : new Promise((r) => waiting.push(r));
    socket.once('connect', () => resolve({ socket, read }));
    socket.once('error', reject);
  });
}
