import { join } from 'node:path';
import type { Logger } from 'pino';
import { Checkpointer } from '../store/checkpointer';
import { prepareDataDir } from '../store/data-dir';
import { lockDataDir } from '../store/data-dir-lock';
import { DATABASE_FILE, type Db, openDatabase, type StoreUpgrade } from '../store/database';
import { SearchUpkeep } from '../store/search-upkeep';
import { StoreCompaction } from '../store/store-compaction';
import { StoreSpace } from '../store/store-space';

/** The store of one emulator: its database, locked for this process, and how to close it cleanly. */
export interface OpenStore {
  db: Db;
  /** Whether the disk had room at the last writes (the workers and the intake report to it). */
  space: StoreSpace;
  /** What start-up found wrong with the data directory (other users can read it), logged once at warn. */
  warnings: string[];
  /** Stops the checkpoint thread and the search upkeep, closes the database and releases the data directory. */
  close(): Promise<void>;
}

/**
 * Makes the data directory owner-only (or warns once that an existing one is open to other users),
 * locks it (one emulator each), opens the database (migrations applied) and starts its checkpoint
 * thread and the search indexes' upkeep; `null` keeps everything in memory.
 */
export interface OpenStoreOptions {
  nativeBinding?: string;
  logger: Logger;
  /** A store in memory starts as these bytes (a snapshot's, see snapshot-start.ts). */
  startFrom?: Buffer;
  /** How long without a write before the store gives disk back (store-compaction.ts; default 5 s). */
  idleMs?: number;
}

export async function openStore(dataDir: string | null, options: OpenStoreOptions): Promise<OpenStore> {
  const exposed = dataDir === null ? undefined : prepareDataDir(dataDir);
  if (exposed !== undefined) options.logger.warn({ dataDir }, exposed);
  const warnings = exposed === undefined ? [] : [exposed];
  const unlock = dataDir === null ? () => {} : lockDataDir(dataDir);
  let db: Db;
  try {
    const started = performance.now();
    let upgraded: StoreUpgrade | undefined;
    db = openDatabase(dataDir, {
      nativeBinding: options.nativeBinding,
      startFrom: options.startFrom,
      onUpgrade: (upgrade) => {
        upgraded = upgrade;
        options.logger.info(
          { dataDir, from: upgrade.from, to: upgrade.to },
          `upgrading the store from schema ${upgrade.from} to ${upgrade.to}: with many messages this takes a while (about 10 s a million); do not stop it`,
        );
      },
      onCompactionMode: (phase, err) => {
        if (phase === 'start')
          options.logger.info({ dataDir }, 'rewriting the store once so that it can give freed space back: about a few seconds a GB; do not stop it');
        else if (phase === 'done')
          options.logger.info({ ms: Math.round(performance.now() - started) }, 'store rewritten: freed space is given back from now on');
        else options.logger.warn({ err }, 'the store could not be rewritten (it needs room for a copy): it reuses freed space but keeps its size');
      },
    });
    if (upgraded) options.logger.info({ ms: Math.round(performance.now() - started) }, `store upgraded to schema ${upgraded.to}`);
  } catch (err) {
    unlock();
    throw err;
  }
  try {
    // Checkpoints on a thread of their own (a store in memory has no WAL).
    const checkpointer =
      dataDir === null
        ? undefined
        : await Checkpointer.start(db, join(dataDir, DATABASE_FILE), { nativeBinding: options.nativeBinding, logger: options.logger });
    const upkeep = new SearchUpkeep(db, { logger: options.logger });
    const compaction = new StoreCompaction(db, { logger: options.logger, idleMs: options.idleMs ?? 5_000, checkpointer });
    return {
      db,
      space: new StoreSpace(options.logger),
      warnings,
      async close() {
        upkeep.stop();
        compaction.stop();
        await checkpointer?.stop();
        db.close();
        unlock();
      },
    };
  } catch (err) {
    db.close();
    unlock();
    throw err;
  }
}
