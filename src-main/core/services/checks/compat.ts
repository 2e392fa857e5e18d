import { doIUseEmail } from '@jsx-email/doiuse-email';
import type { CompatFamily, CompatFinding } from '../../../../src-shared/schemas/checks';

/** Where the compatibility data comes from (the package pins caniemail's data at its version). */
export const COMPAT_SOURCE = 'caniemail.com data, through @jsx-email/doiuse-email 1.0.4';

const FINDING = /^`(.+)` is (not supported|only partially supported) by `([^`]+)`$/;
const NOTE = /^Note about `(.+)` support for `([^`]+)`: ([\s\S]*)$/;

/**
 * The HTML against every email client caniemail knows: each feature some clients do not support
 * (error) or support only in part (warning), with the clients and caniemail's notes, and a count per
 * client family.
 */
export function checkCompatibility(html: string): { findings: CompatFinding[]; families: CompatFamily[] } {
  const result = doIUseEmail(html, { emailClients: ['*'] });
  const errors = result.success ? [] : result.errors;
  const findings = new Map<string, CompatFinding>();
  const add = (message: string, level: 'error' | 'warning') => {
    const m = FINDING.exec(message);
    if (!m) return;
    const key = `${level}\u0000${m[1]}`;
    let f = findings.get(key);
    if (!f) {
      f = { feature: m[1]!, level, clients: [], notes: [] };
      findings.set(key, f);
    }
    if (!f.clients.includes(m[3]!)) f.clients.push(m[3]!);
  };
  for (const e of errors) add(e, 'error');
  for (const w of result.warnings) add(w, 'warning');
  for (const n of result.notes) {
    const m = NOTE.exec(n);
    if (!m) continue;
    for (const f of findings.values()) {
      if (f.feature === m[1] && f.clients.includes(m[2]!) && !f.notes.includes(m[3]!)) f.notes.push(m[3]!);
    }
  }
  const families = new Map<string, CompatFamily>();
  for (const f of findings.values()) {
    const byFamily = new Set(f.clients.map((c) => c.split('.')[0]!));
    for (const family of byFamily) {
      const entry = families.get(family) ?? { family, errors: 0, warnings: 0 };
      if (f.level === 'error') entry.errors++;
      else entry.warnings++;
      families.set(family, entry);
    }
  }
  return {
    findings: [...findings.values()].sort((a, b) => (a.level === b.level ? b.clients.length - a.clients.length : a.level === 'error' ? -1 : 1)),
    families: [...families.values()].sort((a, b) => b.errors - a.errors || b.warnings - a.warnings || a.family.localeCompare(b.family)),
  };
}
