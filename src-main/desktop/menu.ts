import type { MenuItemConstructorOptions } from 'electron';

/** What the menu can do; index.ts wires each to Electron (clipboard, shell, login items, dialogs). */
export interface MenuActions {
  copyApiKey(): void;
  openDataFolder(): void;
  openInBrowser(): void;
  setStartAtLogin(enabled: boolean): void;
  setFailureNotifications(enabled: boolean): void;
  /** Asks for a folder (a native dialog) whose scenario files the UI may run with their app. */
  allowScenariosFolder(): void;
  forgetScenariosFolders(): void;
  showAbout(): void;
  quit(): void;
}

export interface MenuState {
  platform: NodeJS.Platform;
  httpUrl: string;
  smtpUrl: string | null;
  /** Electron sets login items on macOS and Windows only. */
  loginItemsSupported: boolean;
  startAtLogin: boolean;
  failureNotifications: boolean;
  /** The scenarios folders allowed (their scenario files run from the UI, apps included). */
  scenarioDirs: readonly string[];
}

/** The application menu. Rebuilt when a checkbox changes, so it always shows the current state. */
export function buildMenuTemplate(state: MenuState, actions: MenuActions): MenuItemConstructorOptions[] {
  const mac = state.platform === 'darwin';
  const mailyard: MenuItemConstructorOptions[] = [
    { label: `HTTP: ${state.httpUrl}`, enabled: false },
    { label: `SMTP: ${state.smtpUrl ?? 'off'}`, enabled: false },
    { type: 'separator' },
    { label: 'Copy API Key', accelerator: 'CmdOrCtrl+Shift+K', click: () => actions.copyApiKey() },
    { label: 'Open Data Folder', click: () => actions.openDataFolder() },
    { label: 'Open Web UI in Browser', click: () => actions.openInBrowser() },
    { type: 'separator' },
    {
      label: state.loginItemsSupported ? 'Start at Login' : 'Start at Login (macOS and Windows)',
      type: 'checkbox',
      enabled: state.loginItemsSupported,
      checked: state.loginItemsSupported && state.startAtLogin,
      click: (item) => actions.setStartAtLogin(item.checked),
    },
    {
      label: 'Notify on Failed Deliveries',
      type: 'checkbox',
      checked: state.failureNotifications,
      click: (item) => actions.setFailureNotifications(item.checked),
    },
    { type: 'separator' },
    { label: 'Allow a Scenarios Folder…', click: () => actions.allowScenariosFolder() },
    ...state.scenarioDirs.map((dir): MenuItemConstructorOptions => ({ label: `Scenarios: ${dir}`, enabled: false })),
    { label: 'Forget Scenarios Folders', enabled: state.scenarioDirs.length > 0, click: () => actions.forgetScenariosFolders() },
  ];
  const about: MenuItemConstructorOptions = { label: 'About Mailyard', click: () => actions.showAbout() };
  const quit: MenuItemConstructorOptions = { label: mac ? 'Quit Mailyard' : 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() };
  const template: MenuItemConstructorOptions[] = mac
    ? [
        {
          label: 'Mailyard',
          submenu: [
            about,
            { type: 'separator' },
            ...mailyard,
            { type: 'separator' },
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            { type: 'separator' },
            quit,
          ],
        },
      ]
    : [{ label: '&File', submenu: [...mailyard, { type: 'separator' }, quit] }];
  template.push(
    { role: 'editMenu' },
    {
      label: '&View',
      submenu: [
        { role: 'reload' },
        { role: 'forceReload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  );
  if (!mac) template.push({ label: '&Help', submenu: [about] });
  return template;
}

/** The about dialog's text: the versions that matter when reporting a problem. */
export function aboutDetail(info: { version: string; versions: Partial<Record<string, string>>; platform: string; dataDir: string; httpUrl: string }): string {
  const v = info.versions;
  return [
    `Mailyard ${info.version}`,
    `Electron ${v.electron ?? '?'} · Chromium ${v.chrome ?? '?'} · Node ${v.node ?? '?'} · V8 ${v.v8 ?? '?'}`,
    `Platform ${info.platform}`,
    '',
    `Web UI and API: ${info.httpUrl}`,
    `Data: ${info.dataDir}`,
  ].join('\n');
}
