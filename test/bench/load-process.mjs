// An HTTP load generator in its own process: on {url, method, headers, body, total, concurrency}
// over IPC, sends `total` requests with `concurrency` in flight (undici, keep-alive) and answers
// with {seconds, statuses, cpuUs} (cpuUs: this process's CPU for the job, in µs).
import { Agent, request } from 'undici';

process.on('message', async (job) => {
  const agent = new Agent({ connections: job.concurrency, keepAliveTimeout: 10_000 });
  const statuses = {};
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < job.total) {
        next++;
        const res = await request(job.url, { method: job.method, headers: job.headers, body: job.body, dispatcher: agent });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await agent.close();
  process.send({ seconds, statuses, cpuUs: used.user + used.system });
});
process.on('disconnect', () => process.exit(0));
