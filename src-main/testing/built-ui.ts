import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The built web UI (out/renderer) seen from a module's folder: out/main/<entry>.js and
 * out/main/chunks/<chunk>.js in the package or a build, src-main/testing/*.ts in this repository
 * (its last build). Undefined when there is none: the emulator then serves the APIs without the UI.
 */
export function builtUiDir(moduleDir: string): string | undefined {
  return [join(moduleDir, '../renderer'), join(moduleDir, '../../renderer'), join(moduleDir, '../../out/renderer')].find((dir) =>
    existsSync(join(dir, 'index.html')),
  );
}
