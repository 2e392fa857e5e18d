import { describe, expect, it } from 'vitest';
import { AfterCommit } from '../../../src-main/core/after-commit';

/** What a send's commit announces reaches each area that subscribed, in order, inside the producer's call. */
describe('AfterCommit', () => {
  interface Events {
    'copies.stored': undefined;
    'copies.created': string[];
  }

  it('calls each listener of an event, in the order they subscribed, with its data, at once', () => {
    const hub = new AfterCommit<Events>();
    const heard: string[] = [];
    hub.on('copies.created', (rows) => heard.push(`first ${rows.join(',')}`));
    hub.on('copies.stored', () => heard.push('stored'));
    hub.on('copies.created', (rows) => heard.push(`second ${rows.length}`));
    hub.emit('copies.created', ['a', 'b']);
    expect(heard).toEqual(['first a,b', 'second 2']);
    hub.emit('copies.stored');
    expect(heard.at(-1)).toBe('stored');
  });

  it('says whether anyone listens, so a producer collects only what someone reads', () => {
    const hub = new AfterCommit<Events>();
    expect(hub.has('copies.created')).toBe(false);
    hub.emit('copies.created', ['nobody hears this']);
    hub.on('copies.created', () => undefined);
    expect(hub.has('copies.created')).toBe(true);
    expect(hub.has('copies.stored')).toBe(false);
  });

  it('lets a listener that throws fail the producer’s call', () => {
    const hub = new AfterCommit<Events>();
    hub.on('copies.stored', () => {
      throw new Error('indexer down');
    });
    expect(() => hub.emit('copies.stored')).toThrow('indexer down');
  });
});
