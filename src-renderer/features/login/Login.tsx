import { type FormEvent, useState } from 'react';
import { useSession } from '../../stores/session-store';

/** The login screen of an emulator that requires its control key (reachable from the network, or given one): asks for it. */
export function Login() {
  const logIn = useSession((s) => s.logIn);
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await logIn(key.trim());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="login">
      <section className="card" aria-labelledby="login-title">
        <h2 id="login-title">Log in to Mailyard</h2>
        <p className="muted">
          This Mailyard asks for its control key before it shows captured mail and controls (it listens beyond this machine, or was started with a key): the{' '}
          <code>Control:</code> line it printed at start, or the key given with <code>--control-key</code>.
        </p>
        <form onSubmit={(e) => void submit(e)}>
          <label className="field">
            <span>Control key</span>
            {/* biome-ignore lint/a11y/noAutofocus: the control key is the one field of this page, which has nothing else to do */}
            <input className="input" type="password" autoComplete="current-password" autoFocus required value={key} onChange={(e) => setKey(e.target.value)} />
          </label>
          <button className="button primary" type="submit" disabled={busy || key.trim() === ''}>
            Log in
          </button>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </form>
      </section>
    </main>
  );
}
