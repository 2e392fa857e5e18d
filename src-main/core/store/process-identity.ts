import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * What the lock of a data directory records of the process that holds it, beyond its id: enough to
 * tell, later, that a live process with that id is the same one (and not a process that reused the id
 * after a crash, a reboot or a container restart).
 */
export interface ProcessToken {
  /** The kernel's boot id: a process cannot outlive a reboot. */
  boot?: string;
  /** The process's start time since boot, in clock ticks (`/proc/<pid>/stat` field 22). */
  start?: string;
}

/** How a process looks from `/proc` (Linux); undefined where there is no `/proc` or it is gone. */
export interface ProcessView {
  /** The one-letter state of `/proc/<pid>/stat`: `Z` a zombie, `X` dead. */
  state: string;
  start: string;
  /** Its command line, arguments split. */
  argv: string[];
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** `/proc/<pid>/stat` and `cmdline`, where the platform has them. */
export function viewProcess(pid: number, proc = '/proc'): ProcessView | undefined {
  const stat = read(`${proc}/${pid}/stat`);
  if (stat === undefined) return undefined;
  // "pid (comm) S ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const start = fields[19] ?? '';
  const argv = (read(`${proc}/${pid}/cmdline`) ?? '').split('\0').filter((a) => a !== '');
  return { state, start, argv };
}

/** This process's token, as far as the platform tells it (nothing where there is no `/proc`). */
export function tokenOf(pid: number, proc = '/proc'): ProcessToken {
  const boot = read(`${proc}/sys/kernel/random/boot_id`)?.trim();
  const start = viewProcess(pid, proc)?.start;
  return { ...(boot ? { boot } : {}), ...(start ? { start } : {}) };
}

/**
 * Whether a command line may be a Mailyard: it runs under Node or Electron (the CLI, the tests, the
 * desktop app) or names Mailyard (a packaged app). `sleep`, a shell or a web server is not.
 */
export function mayBeMailyard(argv: string[]): boolean {
  if (argv.length === 0) return true; // A kernel thread or a process of another user: nothing to go by.
  const program = basename(argv[0]!).toLowerCase();
  return /^(node|nodejs|electron)(\.exe)?$/.test(program) || argv.some((a) => /mailyard/i.test(a));
}

/**
 * Whether the live process `pid` is the one a lock recorded, as far as can be told: not a zombie, not
 * a process started after a reboot or at another time than the recorded one, and (for a lock that
 * recorded no start time) one whose command line may be a Mailyard. Without `/proc` (macOS, Windows)
 * a live process is taken to be it.
 */
export function isSameProcess(pid: number, recorded: ProcessToken, proc = '/proc'): boolean {
  const view = viewProcess(pid, proc);
  if (view === undefined) return true;
  if (view.state === 'Z' || view.state === 'X') return false;
  const boot = read(`${proc}/sys/kernel/random/boot_id`)?.trim();
  if (recorded.boot !== undefined && boot !== undefined && recorded.boot !== boot) return false;
  if (recorded.start !== undefined) return recorded.start === view.start;
  return mayBeMailyard(view.argv);
}
