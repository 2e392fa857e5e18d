import { describe, expect, it } from 'vitest';
import { answeredWords } from '../../../../../src-renderer/features/catchers/modes';

describe("a caught request's answer, in the list's words", () => {
  it('says a hang, a refusal for the bound of held requests, or the status', () => {
    expect(answeredWords({ answered_status: 0, answered_because: 'hang' })).toBe('no answer (hung)');
    expect(answeredWords({ answered_status: 503, answered_because: 'held_limit' })).toBe('503: refused, too many held at once');
    expect(answeredWords({ answered_status: 503, answered_because: 'status' })).toBe('503');
  });
});
