import { dataResponse } from '../../schemas/common';
import { ClockBody, ClockState } from '../../schemas/dispatch';
import { SimulationRules } from '../../schemas/email';
import { defineOperations } from '../operation';

/** The control API's simulation rules (`/emulator/rules`) and clock (`/emulator/clock`). */
export const simulationOperations = defineOperations({
  getRules: {
    method: 'GET',
    path: '/emulator/rules',
    summary: 'Simulation rules: recipient patterns and the events they get',
    tag: 'Simulation',
    auth: 'none',
    response: dataResponse(SimulationRules),
  },
  setRules: {
    method: 'PUT',
    path: '/emulator/rules',
    summary: 'Replace the simulation rules (tried in order, before the simulator addresses)',
    tag: 'Simulation',
    auth: 'none',
    body: SimulationRules,
    response: dataResponse(SimulationRules),
    errors: [415],
  },
  getClock: {
    method: 'GET',
    path: '/emulator/clock',
    summary: 'The emulator clock: emulated now, speed, and when the next scheduled attempt is due',
    tag: 'Clock',
    auth: 'none',
    response: dataResponse(ClockState),
  },
  setClock: {
    method: 'POST',
    path: '/emulator/clock',
    summary: 'Change the clock speed (0 pauses) and/or jump ahead; due retries then fire at once',
    tag: 'Clock',
    auth: 'none',
    body: ClockBody,
    response: dataResponse(ClockState),
    errors: [415],
  },
});
