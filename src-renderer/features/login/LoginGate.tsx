import { type ReactNode, useEffect } from 'react';
import { useSession } from '../../stores/session-store';
import { Login } from './Login';
import './login.css';

/**
 * Shows the UI once this browser may use the control API: at once on loopback, after the login on an
 * emulator reachable from the network. A control call answered 401 later (a restart with a new key)
 * brings the login back.
 */
export function LoginGate({ children }: { children: ReactNode }) {
  const { state, check, follow } = useSession();
  useEffect(() => follow(), [follow]);
  if (state === 'in') return <>{children}</>;
  if (state === 'login') return <Login />;
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
