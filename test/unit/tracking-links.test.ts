import { describe, expect, it } from 'vitest';
import { addTracking, MAX_TRACKED_LINKS } from '../../src-main/core/services/email/tracking';

describe('click tracking of a message with very many links', () => {
  it('rewrites the first MAX_TRACKED_LINKS links and leaves the rest as written', () => {
    const html = Array.from({ length: MAX_TRACKED_LINKS + 5 }, (_, i) => `<a href="https://example.com/${i}">${i}</a>`).join('');
    const tracked = addTracking(html, undefined, { open: false, click: true, unsubscribe: false, baseUrl: 'http://127.0.0.1:4400' });
    expect(tracked.tokens).toHaveLength(MAX_TRACKED_LINKS);
    expect(tracked.html).toContain(`<a href="https://example.com/${MAX_TRACKED_LINKS}">`);
    expect(tracked.html).not.toContain('<a href="https://example.com/0">');
  });
});
