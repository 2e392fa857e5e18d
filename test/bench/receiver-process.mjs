// A bare webhook receiver in its own process (so it does not share the measured event loop):
// answers every request 200 as soon as its body has arrived, and reports its port over IPC. On
// 'count' over IPC it answers how many requests it has answered so far, and how many distinct
// webhook-id values they carried (a check that every delivery arrived).
import { createServer } from 'node:http';

let answered = 0;
const ids = new Set();
const server = createServer((req, res) => {
  const id = req.headers['webhook-id'];
  req.resume();
  req.on('end', () => {
    answered++;
    if (id !== undefined) ids.add(id);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ answered, distinctIds: ids.size });
});
process.on('disconnect', () => process.exit(0));
