import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEmulator } from '../../../src-main/core';
import { sendBody } from '../send.bench';
import { composeMessage } from '../smtp.bench';

/**
 * CPU profile of one intake path under its benchmark's load (`npm run bench:profile -- smtp|send`):
 * the emulator runs here, the load comes from the benchmark's load process, and only the measured
 * burst is profiled (after a warm-up). Writes the .cpuprofile (open it in Chrome DevTools or
 * speedscope) and prints the functions with the most self time.
 */
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

export interface SelfTime {
  fn: string;
  ms: number;
  share: number;
}

/** Self time per function (name, file and line), most first. */
export function selfTimes(profile: Profile, root: string): SelfTime[] {
  const perNode = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const parent = new Map<number, Node>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const where = (node: Node): string => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
    return `${functionName || '(anonymous)'} ${file ? `${file.replace(/^node_modules\//, '')}:${lineNumber + 1}` : ''}`.trim();
  };
  const perFn = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = perNode.get(node.id) ?? 0;
    total += us;
    // A native function (a SQLite statement's run, a buffer write) is named with its caller.
    const caller = node.callFrame.url === '' ? parent.get(node.id) : undefined;
    const key = caller && caller.callFrame.url !== '' ? `${where(node)} < ${where(caller)}` : where(node);
    perFn.set(key, (perFn.get(key) ?? 0) + us);
  }
  return [...perFn].map(([fn, us]) => ({ fn, ms: us / 1000, share: total ? us / total : 0 })).sort((a, b) => b.ms - a.ms);
}

export type IngestKind = 'smtp' | 'smtp-attachment' | 'send';

async function drive(kind: IngestKind, target: { smtp: number; http: string; apiKey: string }, total: number) {
  const smtp = kind !== 'send';
  const load = fork(new URL(smtp ? '../smtp-load-process.mjs' : '../load-process.mjs', import.meta.url));
  // The smtp benchmark's two profiles: 5 KB, and a 200 KB attachment.
  const message = smtp ? await composeMessage(kind === 'smtp-attachment' ? 200 * 1024 : 0) : '';
  const once = (job: object) =>
    new Promise<{ seconds: number }>((resolve) => {
      load.once('message', resolve as never);
      load.send(job);
    });
  const job = (n: number) =>
    smtp
      ? { port: target.smtp, message, total: n, concurrency: 16 }
      : {
          url: `${target.http}/v1/email/send`,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
          body: sendBody,
          total: n,
          concurrency: 16,
        };
  return { warm: () => once(job(Math.min(500, total))), burst: () => once(job(total)), stop: () => load.kill() };
}

export default async function profileIngest(kind: IngestKind, outDir: string, root: string, total = kind === 'smtp-attachment' ? 600 : 3000): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `mailyard-profile-${kind}-`));
  const emu = await createEmulator({ httpPort: 0, smtpPort: 0, dataDir: dir, logLevel: 'silent' });
  const load = await drive(kind, { smtp: emu.ports.smtp!, http: emu.urls.http, apiKey: emu.defaultAccount.apiKey }, total);
  const session = new Session();
  session.connect();
  try {
    await load.warm();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const { seconds } = await load.burst();
    const used = process.cpuUsage(cpu);
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    const top = selfTimes(profile, root).slice(0, 15);
    const perMessageUs = (used.user + used.system) / total;
    console.log(
      `${kind}: ${total} messages in ${seconds.toFixed(2)} s (${Math.round(total / seconds)}/s), ${Math.round(perMessageUs)} µs CPU each; profile ${relative(root, file)}`,
    );
    console.log('self time, most first:');
    for (const t of top) console.log(`  ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.ms.toFixed(0).padStart(6)} ms  ${t.fn}`);
    console.log(
      JSON.stringify({
        profile: kind,
        messages: total,
        per_s: Math.round(total / seconds),
        cpu_us_per_message: Math.round(perMessageUs),
        top: top.slice(0, 10).map((t) => ({ fn: t.fn, share: Math.round(t.share * 1000) / 1000 })),
      }),
    );
  } finally {
    session.disconnect();
    load.stop();
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}
