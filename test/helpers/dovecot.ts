import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { closedPort } from './receiver';

export const DOVECOT = '/usr/sbin/dovecot';
export const hasDovecot = existsSync(DOVECOT);

export interface Dovecot {
  port: number;
  /** Appends a message to a user's INBOX over IMAP (as a mail delivery would put it there). */
  deliver(user: string, raw: string | Buffer): Promise<void>;
  /** Stops the server (the IMAP connections are cut); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  cleanup(): Promise<void>;
  /** What the server logged (for failure messages). */
  log(): string;
}

/** The uid/gid that owns the mail: the `dovecot` system user when running as root (Dovecot refuses uid 0). */
function mailOwner(): { user: string; uid: number; gid: number; root: boolean } {
  const me = userInfo();
  if (me.uid !== 0) return { user: me.username, uid: me.uid, gid: me.gid, root: false };
  const passwd = readFileSync('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((l) => l.startsWith('dovecot:'));
  if (!line) throw new Error('the dovecot system user is missing (install dovecot-imapd)');
  const [, , uid, gid] = line.split(':');
  return { user: 'dovecot', uid: Number(uid), gid: Number(gid), root: true };
}

/**
 * Debian's Dovecot as a child process of the test, in the foreground, with a temporary configuration:
 * IMAP only on a free port of 127.0.0.1, no TLS, users from a passwd file, maildirs in a temp dir.
 */
export async function startDovecot(users: Record<string, string>): Promise<Dovecot> {
  const dir = await mkdtemp(join(tmpdir(), 'mailyard-dovecot-'));
  await chmod(dir, 0o755);
  const owner = mailOwner();
  const mail = join(dir, 'mail');
  await mkdir(join(dir, 'base'), { recursive: true });
  await mkdir(mail);
  await chown(mail, owner.uid, owner.gid);
  await writeFile(
    join(dir, 'users'),
    Object.entries(users)
      .map(([u, p]) => `${u}:{PLAIN}${p}\n`)
      .join(''),
  );
  const port = await closedPort();
  const internal = owner.root ? 'dovecot' : owner.user;
  const login = owner.root ? 'dovenull' : owner.user;
  const conf = join(dir, 'dovecot.conf');
  await writeFile(
    conf,
    `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/base
state_dir = ${dir}/base/state
instance_name = mailyard-test-${port}
log_path = /dev/stderr
ssl = no
shutdown_clients = yes
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = 1
default_internal_user = ${internal}
default_login_user = ${login}
mail_uid = ${owner.uid}
mail_gid = ${owner.gid}
mail_location = maildir:${mail}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${owner.uid} gid=${owner.gid} home=${mail}/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
  # No auth penalty: tests log in with wrong passwords on purpose and then with the right one.
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`,
  );

  let child: ChildProcess | undefined;
  let output = '';

  async function start(): Promise<void> {
    // Its own process group, so stopping it ends every process it started (imap processes outlive the master).
    const proc = spawn(DOVECOT, ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = proc;
    proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`dovecot exited with ${proc.exitCode}:\n${output}`);
      const open = await new Promise<boolean>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
      if (open) return;
      if (Date.now() > deadline) throw new Error(`dovecot did not listen on ${port} within 10 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-proc.pid!, name);
      } catch {
        // The group is gone already.
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    signal('SIGKILL');
  }

  await start();
  return {
    port,
    async deliver(user, raw) {
      const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, doSTARTTLS: false, auth: { user, pass: users[user]! }, logger: false });
      await client.connect();
      try {
        await client.append('INBOX', raw);
      } finally {
        await client.logout();
      }
    },
    stop,
    start,
    async cleanup() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    log: () => output,
  };
}
