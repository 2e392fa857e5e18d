import type { Session, Shell, WebContents, WebPreferences } from 'electron';

/**
 * The window's lockdown, per Electron's security checklist. Everything here takes the Electron
 * objects it works on, so it is tested without Electron.
 */

/** The renderer gets no Node, an isolated preload world, Chromium's sandbox, and no webviews. */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
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
    safeDialogs: true,
    spellcheck: false,
    // A middle click must not open a window behind the window-open handler's back.
    disableBlinkFeatures: 'Auxclick',
  };
}

/** An http(s) URL to open in the user's browser, or null for anything else (file:, javascript:, custom schemes). */
export function externalHttpUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * The one place the app hands a URL to the operating system: http(s) only, so a link can never
 * launch a file, a local program or a custom protocol handler. Resolves with whether it was opened.
 */
export async function openInBrowser(shell: Pick<Shell, 'openExternal'>, url: string): Promise<boolean> {
  const safe = externalHttpUrl(url);
  if (!safe) return false;
  await shell.openExternal(safe);
  return true;
}

/** Whether a URL is on the emulator's origin (the only place the window may go). */
export function isEmulatorUrl(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** Frames may show the emulator's pages and inline documents (the sandboxed preview of captured HTML). */
export function isAllowedFrameUrl(url: string, origin: string): boolean {
  return isEmulatorUrl(url, origin) || url === 'about:blank' || url === 'about:srcdoc';
}

export interface LockdownOptions {
  /** The emulator's origin, e.g. `http://127.0.0.1:4400`. */
  origin: string;
  /** Opens an http(s) URL in the user's browser (openInBrowser with Electron's shell). */
  openInBrowser: (url: string) => unknown;
}

type Contents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/**
 * Navigation limited to the emulator's origin (top-level navigations and redirects elsewhere are
 * cancelled); subframes limited to it and inline documents; `window.open` and target=_blank always
 * denied, with http(s) links handed to the browser; webviews refused.
 */
export function lockDownContents(contents: Contents, options: LockdownOptions): void {
  const { origin } = options;
  contents.on('will-navigate', (event, url) => {
    if (!isEmulatorUrl(url, origin)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isEmulatorUrl(url, origin)) event.preventDefault();
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isAllowedFrameUrl(event.url, origin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalHttpUrl(url);
    if (external) void options.openInBrowser(external);
    return { action: 'deny' };
  });
}

/**
 * Permissions: the one the UI's copy buttons use (`clipboard-sanitized-write`, writing plain text
 * to the clipboard) is granted to the emulator's own top-level page; every other request and check
 * (camera, microphone, notifications, geolocation, clipboard reads, ...) is denied.
 */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function isPermissionGranted(permission: string, requestingUrl: string | undefined, origin: string): boolean {
  return GRANTED_PERMISSIONS.has(permission) && requestingUrl !== undefined && isEmulatorUrl(requestingUrl, origin);
}

type SessionLike = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'webRequest'>;

/** The session's permission handlers, and the UI's CSP on every page of the emulator that came without one. */
export function lockDownSession(session: SessionLike, options: { origin: string; csp: string }): void {
  const { origin } = options;
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const url = details.requestingUrl;
    callback(isPermissionGranted(permission, url, origin) && details.isMainFrame);
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionGranted(permission, requestingOrigin, origin));
  // The emulator already sends its CSP with every UI page; this is the belt to those braces for any
  // document of its origin that comes without one. Captured HTML keeps its own, stricter, policy.
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = details.responseHeaders ?? {};
    const hasCsp = Object.keys(headers).some((name) => name.toLowerCase() === 'content-security-policy');
    const isDocument = details.resourceType === 'mainFrame' || details.resourceType === 'subFrame';
    if (isDocument && !hasCsp && isEmulatorUrl(details.url, origin)) {
      callback({ responseHeaders: { ...headers, 'Content-Security-Policy': [options.csp] } });
      return;
    }
    callback({});
  });
}
