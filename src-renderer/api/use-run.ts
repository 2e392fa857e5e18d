import { useCallback, useState } from 'react';
import { describeError } from './clients';

export interface Run {
  /** True while a call runs (its button disables itself). */
  busy: boolean;
  /** The last call's failure in words, until the next call starts. */
  error: string | null;
  /** Runs `call`; resolves to its value, or undefined when it failed (then `error` says why). */
  run<T>(call: () => Promise<T>): Promise<T | undefined>;
  clearError(): void;
}

/** One button's call to the emulator: busy while it runs, and why it failed. */
export function useRun(): Run {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await call();
    } catch (err) {
      setError(describeError(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  const clearError = useCallback(() => setError(null), []);
  return { busy, error, run, clearError };
}
