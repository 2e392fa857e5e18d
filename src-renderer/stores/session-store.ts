import { create } from 'zustand';
import { CONTROL_KEY_NEEDED } from '../api/clients';
import * as session from '../api/session';

/** Whether the UI may be shown: still asking, the login needed, logged in (or no key asked), or the emulator unreachable. */
export type SessionState = 'checking' | 'login' | 'in' | { error: string };

interface SessionStore {
  state: SessionState;
  /** Asks the emulator whether this browser may use the control API. */
  check: () => Promise<void>;
  /** Logs in with the control key; throws the emulator's words when the key is wrong. */
  logIn: (key: string) => Promise<void>;
  /** Checks now and whenever a control call is answered 401 (a restart with a new key); returns the unsubscribe. */
  follow: () => () => void;
}

export const useSession = create<SessionStore>((set, get) => ({
  state: 'checking',
  check: async () => {
    try {
      const s = await session.fetchSession();
      set({ state: s.authenticated ? 'in' : 'login' });
    } catch (err) {
      set({ state: { error: (err as Error).message } });
    }
  },
  logIn: async (key) => {
    await session.logIn(key);
    set({ state: 'in' });
  },
  follow: () => {
    void get().check();
    const onNeeded = () => void get().check();
    window.addEventListener(CONTROL_KEY_NEEDED, onNeeded);
    return () => window.removeEventListener(CONTROL_KEY_NEEDED, onNeeded);
  },
}));
