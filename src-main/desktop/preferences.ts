import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** The desktop app's own preferences (start at login is the system's setting, read from it, not kept here). */
const PreferencesSchema = z.object({
  failureNotifications: z.boolean().default(false),
  /** Folders the person allowed in a native dialog: their scenario files run from the UI with their app (`--scenarios DIR`). */
  scenarioDirs: z.array(z.string()).default([]),
});
export type Preferences = z.output<typeof PreferencesSchema>;

/** Reads the preferences file; a missing or damaged file gives the defaults. */
export function loadPreferences(file: string): Preferences {
  try {
    return PreferencesSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return PreferencesSchema.parse({});
  }
}

export function savePreferences(file: string, preferences: Preferences): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(preferences, null, 2)}\n`);
}
