import { describe, expect, it } from 'vitest';
import { clockHint } from '../../../../../src-renderer/features/scenarios/clock-hint';

describe('clockHint: the duration and speed of scenario text, for the note before a run', () => {
  it('reads YAML and JSON, and takes the defaults (10 minutes, real time) for what the text does not say', () => {
    expect(clockHint('version: 1\nname: x\nclock: { speed: 60 }\nduration: 15m\n')).toEqual({ durationMs: 900_000, speed: 60 });
    expect(clockHint('{"version":1,"clock":{"speed":100},"duration":"2h"}')).toEqual({ durationMs: 7_200_000, speed: 100 });
    expect(clockHint('{"duration": 30000}')).toEqual({ durationMs: 30_000, speed: 1 });
    expect(clockHint('version: 1\nclock: realtime\n')).toEqual({ durationMs: 600_000, speed: 1 });
    expect(clockHint('duration: soon\n')).toEqual({ durationMs: 600_000, speed: 1 });
  });
});
