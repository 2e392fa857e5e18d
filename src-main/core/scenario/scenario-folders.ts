import { type Dirent, realpathSync, statSync } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, sep } from 'node:path';
import type { ScenarioFolder as Folder } from '../../../src-shared/operations/control/scenarios';
import { appError } from '../error-catalogue';
import { parseScenario } from './parse';

/** What a scenarios folder lists and serves (docs/scenarios.md, "From the web UI"). */
export const SCENARIO_FOLDER_LIMITS = {
  /** Files listed per folder, at most. */
  maxFiles: 200,
  /** Subfolder levels walked below the folder. */
  maxDepth: 3,
  /** A larger file is listed but not read. */
  maxFileBytes: 1_000_000,
} as const;

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** A file of a folder, as the API names it and where it is. */
export interface ScenarioFileRef {
  /** `examples/hard-bounce.yaml`: the folder's id, then the path inside it with `/`. */
  path: string;
  /** Its real absolute path. */
  file: string;
}

const inside = (dir: string, file: string) => file.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * The folders whose scenario files the control API (and so the web UI) may run, apps included: those
 * the person running Mailyard named at start (`--scenarios DIR`). Nothing outside them is read; a
 * path is checked after symbolic links are resolved, so a link cannot lead out.
 */
export class ScenarioFolders {
  private readonly folders: Array<{ id: string; dir: string }> = [];

  /** Each folder must exist now (a start with a wrong one fails, naming it); ids are the folders' names, made unique. */
  constructor(dirs: readonly string[]) {
    for (const dir of dirs) this.allow(dir);
  }

  /**
   * Allows one more folder (the desktop app's "Allow a Scenarios Folder…", chosen in a native dialog):
   * throws, naming it, when it is not a folder. Allowing one twice changes nothing.
   */
  allow(given: string): { id: string; dir: string } {
    let dir: string;
    try {
      dir = realpathSync(given);
      if (!statSync(dir).isDirectory()) throw new Error('not a folder');
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message;
      throw new Error(`scenarios folder ${given}: ${why}`);
    }
    const known = this.folders.find((f) => f.dir === dir);
    if (known) return known;
    const name = basename(dir).replace(/[^\w.-]+/g, '-') || 'folder';
    let id = name;
    for (let n = 2; this.folders.some((f) => f.id === id); n++) id = `${name}-${n}`;
    const folder = { id, dir };
    this.folders.push(folder);
    return folder;
  }

  /** No folder is allowed any more (runs under way go on). */
  forgetAll(): void {
    this.folders.length = 0;
  }

  get dirs(): string[] {
    return this.folders.map((f) => f.dir);
  }

  /** Every folder's scenario files, each read to say its name and whether it starts an app. */
  async list(): Promise<Folder[]> {
    return Promise.all(
      this.folders.map(async ({ id, dir }) => {
        const files: Folder['files'] = [];
        let truncated = false;
        let problem: string | null = null;
        try {
          truncated = await this.walk(dir, dir, 0, async (file) => {
            files.push(await describe(id, dir, file));
          });
        } catch (err) {
          problem = `cannot read the folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
        }
        files.sort((a, b) => a.path.localeCompare(b.path));
        return { id, dir, files, truncated, problem };
      }),
    );
  }

  /** Calls `found` for each scenario file under `at`, up to maxFiles; true when more were left out. */
  private async walk(dir: string, at: string, depth: number, found: (file: string) => Promise<void>, seen = { n: 0 }): Promise<boolean> {
    const entries: Dirent[] = await readdir(at, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (depth < SCENARIO_FOLDER_LIMITS.maxDepth && (await this.walk(dir, path, depth + 1, found, seen))) return true;
        continue;
      }
      if (!EXTENSIONS.has(extname(entry.name).toLowerCase())) continue;
      // A link is listed only when it leads to a file inside the folder.
      const real = entry.isSymbolicLink() ? await realpath(path).catch(() => null) : path;
      if (real === null || !inside(dir, real) || !(entry.isFile() || (await stat(real)).isFile())) continue;
      if (seen.n >= SCENARIO_FOLDER_LIMITS.maxFiles) return true;
      seen.n++;
      await found(path);
    }
    return false;
  }

  /**
   * A file's text, named by its listed path (`examples/hard-bounce.yaml`) or its absolute path: 404
   * when there is no such scenario file, 403 when it is outside every folder, 400 past maxFileBytes.
   */
  async read(path: string): Promise<ScenarioFileRef & { source: string }> {
    if (this.folders.length === 0) throw appError('noScenarioFolders');
    let candidate: string;
    if (isAbsolute(path)) candidate = path;
    else {
      const [id, ...rest] = path.split('/');
      const folder = this.folders.find((f) => f.id === id);
      if (!folder || rest.length === 0) {
        throw appError('scenarioFolderUnknown', { path, folders: this.folders.map((f) => `${f.id}/`).join(', ') });
      }
      if (rest.some((part) => part === '..' || part === '.' || part === '')) throw appError('scenarioPathNotListed', { path });
      candidate = join(folder.dir, ...rest);
    }
    let real: string;
    try {
      real = await realpath(candidate);
    } catch {
      throw appError('scenarioFileNotFound', { path });
    }
    const folder = this.folders.find((f) => inside(f.dir, real));
    if (!folder) {
      throw appError('scenarioFileOutside', { path, folders: this.dirs.join(', '), dir: dirname(real) });
    }
    const info = await stat(real);
    if (!EXTENSIONS.has(extname(real).toLowerCase()) || !info.isFile()) {
      throw appError('scenarioFileNotScenario', { path });
    }
    const listed = listedPath(folder.id, folder.dir, real);
    if (info.size > SCENARIO_FOLDER_LIMITS.maxFileBytes) {
      throw appError('scenarioFileTooLarge', { path: listed, bytes: info.size, max: SCENARIO_FOLDER_LIMITS.maxFileBytes });
    }
    return { path: listed, file: real, source: await readFile(real, 'utf8') };
  }
}

function listedPath(id: string, dir: string, file: string): string {
  return `${id}/${relative(dir, file).split(sep).join('/')}`;
}

async function describe(id: string, dir: string, file: string): Promise<Folder['files'][number]> {
  const info = await stat(file);
  const entry = { path: listedPath(id, dir, file), size: info.size, modified_at: info.mtime.toISOString() };
  if (info.size > SCENARIO_FOLDER_LIMITS.maxFileBytes) return { ...entry, name: null, valid: false, starts_app: false };
  const parsed = parseScenario(await readFile(file, 'utf8'));
  return parsed.ok
    ? { ...entry, name: parsed.scenario.name, valid: true, starts_app: parsed.scenario.app !== undefined }
    : { ...entry, name: null, valid: false, starts_app: false };
}
