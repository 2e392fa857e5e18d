import { findSpamd } from '../../src-main/core/spamd/spamd';

/**
 * SpamAssassin's spamd, which the emulator starts itself as a child process (local tests only, on
 * 127.0.0.1). Tests that need it are skipped, and counted as skipped, when it is not installed;
 * under CI (CI set) they run, and fail without it (.ci/run installs it).
 */
export const SPAMD = findSpamd();
export const skipWithoutSpamd = SPAMD === null && !process.env.CI;

/** GTUBE: the string every SpamAssassin scores as spam (1000 points). */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
