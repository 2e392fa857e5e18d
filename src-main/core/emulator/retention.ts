import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EmulatorClock } from '../clock';
import type { EmulatorConfig } from '../config';
import type { LiveBus } from '../live-bus';
import { type RetentionLimits, startLimits } from '../services/retention/limits';
import { RETENTION_LIMITS_KEY, RetentionService } from '../services/retention/retention.service';
import { DATABASE_FILE, type Db } from '../store/database';
import { RetentionRepo } from '../store/retention.repo';
import { StateRepo } from '../store/state.repo';

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** The retention service of a store: its limits from the config, else those saved from Settings, else the defaults. */
export function buildRetention(f: {
  db: Db;
  dataDir: string | null;
  config: EmulatorConfig;
  clock: EmulatorClock;
  live: LiveBus;
  logger: Logger;
}): RetentionService {
  const state = new StateRepo(f.db);
  const saved = state.get(RETENTION_LIMITS_KEY);
  const file = f.dataDir === null ? null : join(f.dataDir, DATABASE_FILE);
  const totalChanges = f.db.prepare('SELECT total_changes()').pluck();
  return new RetentionService({
    repo: new RetentionRepo(f.db),
    clock: f.clock,
    logger: f.logger,
    limits: startLimits(f.config, saved === undefined ? undefined : (JSON.parse(saved) as Partial<RetentionLimits>), f.dataDir !== null),
    save: (limits) => state.set(RETENTION_LIMITS_KEY, JSON.stringify(limits)),
    intervalMs: f.config.retentionIntervalMs,
    totalChanges: () => totalChanges.get() as number,
    fileBytes: () => (file === null ? null : { database: sizeOf(file), wal: sizeOf(`${file}-wal`) }),
    pruned: (totals) => f.live.emit('store.pruned', totals),
  });
}
