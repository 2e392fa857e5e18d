import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { CONTROL_KEY_NEEDED } from '../../api/clients';
import { Login } from './Login';
import { fetchSession } from '../../api/session';
import './login.css';

type State = 'checking' | 'login' | 'in' | { error: string };

/**
 * Shows the UI once this browser may use the control API: at once on loopback, after the login on an
 * emulator reachable from the network. A control call answered 401 later (a restart with a new key)
 * brings the login back.
 */
export function LoginGate({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>('checking');
  const check = useCallback(async () => {
    try {
      const session = await fetchSession();
      setState(session.authenticated ? 'in' : 'login');
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  }, []);
  useEffect(() => {
    void check();
    const onNeeded = () => void check();
    window.addEventListener(CONTROL_KEY_NEEDED, onNeeded);
    return () => window.removeEventListener(CONTROL_KEY_NEEDED, onNeeded);
  }, [check]);
  if (state === 'in') return <>{children}</>;
  if (state === 'login') return <Login onLoggedIn={() => setState('in')} />;
  if (state === 'checking') return null;
  return (
    <main className="login">
      <section className="card" role="alert">
        <h2>Cannot reach the emulator</h2>
        <p className="muted">{state.error}</p>
        <button className="button" type="button" onClick={() => void check()}>
          Try again
        </button>
      </section>
    </main>
  );
}
