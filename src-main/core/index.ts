/**
 * The emulator's entry: `createEmulator(config, seams)` and the types of its handle. The composition
 * root itself is the folder `emulator/` (store, dispatcher and delivery targets, services, listeners,
 * lifecycle), one job a file.
 */
export { createEmulator, VERSION } from './emulator/create-emulator';
export type { EmulatorHandle, EmulatorSeams, EmulatorServices } from './emulator/types';
