import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../../src-main/core/config';

describe('defaultDataDir', () => {
  it('follows each platform', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/xdg' }, 'linux')).toBe('/xdg/mailyard');
    expect(defaultDataDir({}, 'linux')).toMatch(/\.local\/share\/mailyard$/);
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/mailyard$/);
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toMatch(/Roaming.mailyard$/);
  });
});
