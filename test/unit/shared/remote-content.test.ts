import { describe, expect, it } from 'vitest';
import { remoteContentCsp } from '../../../src-main/core/http/routes/message-files.routes';
import { REMOTE_CONTENT_MAX, REMOTE_CONTENT_MAX_CHARS, remoteContent, remoteContentSources, sourceOf } from '../../../src-shared/remote-content';

describe('remoteContent (what the preview loads once allowed)', () => {
  it('lists remote <img src> and style sheets, CSS url()s, @import and image-set() strings, each once, and no other kind', () => {
    const html = `<link rel="stylesheet" href="https://cdn.test/a.css"><link rel="icon" href="https://cdn.test/icon.png">
<link rel=preload as=image href="https://cdn.test/pre.png">
<style>@import "//cdn.test/b.css"; .x { background: url('https://cdn.test/bg.png') } .y { background-image: image-set("https://cdn.test/set.png" 1x) }</style>
<img src="https://cdn.test/one.png?a=1&amp;b=2"><img src='https://cdn.test/one.png?a=1&b=2'><img src="cid:logo"><img src="data:image/png;base64,AA==">
<img src="http://localhost:4400/t/o/AbCdEfGhIjKlMnOp"><video poster="https://cdn.test/poster.png"></video>
<div style="background:url(&quot;https://cdn.test/quoted.png&quot;)" background="https://cdn.test/attr.png"></div>`;
    expect(remoteContent(html)).toEqual({
      images: ['https://cdn.test/one.png?a=1&b=2'],
      css: ['https://cdn.test/a.css', 'https://cdn.test/bg.png', 'https://cdn.test/quoted.png', '//cdn.test/b.css', 'https://cdn.test/set.png'],
    });
  });

  it('names each URL as a CSP source that allows it alone, and leaves out what no source can name alone', () => {
    expect(sourceOf('https://cdn.test:8443/img/a;b,c.png?q=1')).toBe('https://cdn.test:8443/img/a%3Bb%2Cc.png');
    expect(sourceOf('//cdn.test/x.png')).toBe('cdn.test/x.png');
    for (const none of ['https://cdn.test/', 'https://cdn.test', 'http://[::1]/x.png', 'https://exa mple/x.png']) expect(sourceOf(none)).toBeUndefined();
    expect(remoteContent('<img src="https://cdn.test/folder/">').images).toEqual([]);
    expect(remoteContentSources({ images: ['https://a.test/1.png'], css: ['https://b.test/s.css'] })).toEqual({
      images: ['https://a.test/1.png', 'https://b.test/s.css'],
      css: ['https://b.test/s.css'],
    });
  });

  it('stops at its bound: the rest is not listed, so it stays blocked', () => {
    const many = Array.from({ length: REMOTE_CONTENT_MAX + 5 }, (_, i) => `<img src="https://cdn.test/${i}.png">`).join('');
    expect(remoteContent(many).images).toHaveLength(REMOTE_CONTENT_MAX);
    // Long URLs fill the characters first: the preview's header stays far below what Chromium takes.
    const long = Array.from({ length: 50 }, (_, i) => `<img src="https://cdn.test/${'x'.repeat(1000)}/${i}.png">`).join('');
    const listed = remoteContent(long).images;
    expect(listed.length).toBe(Math.floor(REMOTE_CONTENT_MAX_CHARS / (listed[0]!.length + 1)));
    expect(listed.join(' ').length).toBeLessThanOrEqual(REMOTE_CONTENT_MAX_CHARS);
  });

  it('makes the allowed preview policy of exactly those sources, with no scheme-wide source', () => {
    const csp = remoteContentCsp('<img src="https://cdn.test/one.png"><link rel="stylesheet" href="https://cdn.test/a.css">');
    expect(csp).toContain('img-src data: cid: https://cdn.test/one.png https://cdn.test/a.css;');
    expect(csp).toContain("style-src 'unsafe-inline' https://cdn.test/a.css;");
    expect(csp).toContain('font-src data: https://cdn.test/a.css;');
    expect(csp).not.toMatch(/\shttps?:(\s|;)/);
    expect(csp).toContain("default-src 'none'");
  });
});
