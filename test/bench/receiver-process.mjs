// A bare webhook receiver in its own process (so it does not share the measured event loop):
// answers every request 200 as soon as its body has arrived, and reports its port over IPC.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
