import { describe, expect, it, vi } from 'vitest';
import {
  externalHttpUrl,
  isPermissionGranted,
  lockDownContents,
  lockDownSession,
  openInBrowser,
  secureWebPreferences,
} from '../../../src-main/desktop/security';
import { FakeContents, fakeEvent } from './fakes';

const ORIGIN = 'http://127.0.0.1:4400';

describe('secureWebPreferences', () => {
  it('isolates, sandboxes and keeps Node out of the renderer', () => {
    const prefs = secureWebPreferences('/app/out/preload/preload.cjs');
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    });
    expect(prefs.enableBlinkFeatures).toBeUndefined();
    expect(prefs.disableBlinkFeatures).toBe('Auxclick');
  });
});

describe('externalHttpUrl and openInBrowser', () => {
  it('passes http and https only', async () => {
    expect(externalHttpUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(externalHttpUrl('http://localhost:3000/')).toBe('http://localhost:3000/');
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'mailto:a@b.c', 'vscode://x', 'not a url', '']) {
      expect(externalHttpUrl(bad), bad).toBeNull();
    }
    const shell = { openExternal: vi.fn(async () => {}) };
    expect(await openInBrowser(shell, 'file:///bin/sh')).toBe(false);
    expect(shell.openExternal).not.toHaveBeenCalled();
    expect(await openInBrowser(shell, 'https://example.com')).toBe(true);
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/');
  });
});

describe('lockDownContents', () => {
  function locked() {
    const contents = new FakeContents();
    const openInBrowser = vi.fn();
    lockDownContents(contents as never, { origin: ORIGIN, openInBrowser });
    return { contents, openInBrowser };
  }

  it('lets the window navigate within the emulator origin only', () => {
    const { contents } = locked();
    for (const [url, allowed] of [
      [`${ORIGIN}/deliveries/abc`, true],
      [`${ORIGIN}/`, true],
      ['http://127.0.0.1:4401/', false],
      ['http://localhost:4400/', false],
      ['https://example.com/', false],
      ['file:///etc/passwd', false],
      ['javascript:alert(1)', false],
    ] as const) {
      for (const name of ['will-navigate', 'will-redirect']) {
        const event = fakeEvent();
        contents.emit(name, event, url);
        expect(event.defaultPrevented(), `${name} ${url}`).toBe(!allowed);
      }
    }
  });

  it('keeps frames on the emulator origin or inline documents', () => {
    const { contents } = locked();
    for (const [url, allowed] of [
      [`${ORIGIN}/emulator/messages/1/html`, true],
      ['about:srcdoc', true],
      ['about:blank', true],
      ['https://tracker.example/pixel', false],
      ['file:///home/user/', false],
    ] as const) {
      const event = fakeEvent({ url });
      contents.emit('will-frame-navigate', event);
      expect(event.defaultPrevented(), url).toBe(!allowed);
    }
  });

  it('denies every new window and hands http(s) links to the browser', () => {
    const { contents, openInBrowser } = locked();
    expect(contents.windowOpenHandler!({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
    expect(openInBrowser).toHaveBeenCalledWith('https://example.com/docs');
    expect(contents.windowOpenHandler!({ url: `${ORIGIN}/messages` })).toEqual({ action: 'deny' });
    expect(openInBrowser).toHaveBeenCalledWith(`${ORIGIN}/messages`);
    openInBrowser.mockClear();
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ms-msdt:/id', 'about:blank']) {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: 'deny' });
    }
    expect(openInBrowser).not.toHaveBeenCalled();
  });

  it('refuses webviews', () => {
    const { contents } = locked();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event, {}, {});
    expect(event.defaultPrevented()).toBe(true);
  });
});

describe('lockDownSession', () => {
  function session() {
    const s = {
      request: undefined as undefined | ((...args: any[]) => void),
      check: undefined as undefined | ((...args: any[]) => boolean),
      headers: undefined as undefined | ((details: any, callback: (r: any) => void) => void),
      setPermissionRequestHandler: vi.fn((h) => (s.request = h)),
      setPermissionCheckHandler: vi.fn((h) => (s.check = h)),
      webRequest: { onHeadersReceived: vi.fn((h) => (s.headers = h)) },
    };
    lockDownSession(s as never, { origin: ORIGIN, csp: "default-src 'self'" });
    return s;
  }

  it('denies permission requests, except clipboard writes by the UI itself', () => {
    const s = session();
    const ask = (permission: string, requestingUrl: string, isMainFrame = true) => {
      const callback = vi.fn();
      s.request!({}, permission, callback, { requestingUrl, isMainFrame });
      return callback.mock.calls[0]![0] as boolean;
    };
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'fullscreen',
      'midi',
      'hid',
      'serial',
      'usb',
      'fileSystem',
      'pointerLock',
      'display-capture',
      'unknown',
    ]) {
      expect(ask(permission, `${ORIGIN}/`), permission).toBe(false);
    }
    expect(ask('clipboard-sanitized-write', `${ORIGIN}/messages`)).toBe(true);
    expect(ask('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    expect(ask('clipboard-sanitized-write', `${ORIGIN}/emulator/messages/1/html`, false)).toBe(false);
  });

  it('answers permission checks the same way', () => {
    const s = session();
    expect(s.check!({}, 'media', ORIGIN, {})).toBe(false);
    expect(s.check!({}, 'notifications', ORIGIN, {})).toBe(false);
    expect(s.check!({}, 'clipboard-sanitized-write', 'https://example.com', {})).toBe(false);
    expect(s.check!({}, 'clipboard-sanitized-write', ORIGIN, {})).toBe(true);
    expect(isPermissionGranted('clipboard-sanitized-write', undefined, ORIGIN)).toBe(false);
  });

  it('adds the CSP to emulator documents that lack one and leaves others alone', () => {
    const s = session();
    const answer = (details: Record<string, unknown>) => {
      let result: any;
      s.headers!(details, (r) => (result = r));
      return result;
    };
    expect(answer({ url: `${ORIGIN}/x`, resourceType: 'mainFrame', responseHeaders: { 'Content-Type': ['text/html'] } })).toEqual({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': ["default-src 'self'"] },
    });
    // Its own (the UI's, or captured HTML's stricter one) is kept.
    expect(answer({ url: `${ORIGIN}/`, resourceType: 'mainFrame', responseHeaders: { 'content-security-policy': ["script-src 'none'"] } })).toEqual({});
    expect(answer({ url: `${ORIGIN}/v1/x`, resourceType: 'xhr', responseHeaders: {} })).toEqual({});
    expect(answer({ url: 'https://example.com/', resourceType: 'mainFrame', responseHeaders: {} })).toEqual({});
  });
});
