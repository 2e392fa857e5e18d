import { isoTimestamp } from '../clock';

/**
 * `isoTimestamp`, remembering the last one made: many rows of one tick share a millisecond, so
 * most calls make none.
 */
export function isoTimestampCache(): (ms: number) => string {
  let lastMs = -1;
  let lastIso = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = isoTimestamp(ms);
    }
    return lastIso;
  };
}
