import { describe, expect, it } from 'vitest';
import { serveUsage } from '../../src-main/cli/args';

describe('mailyard serve --help', () => {
  it('keeps every flag apart from its description, all descriptions in one column', () => {
    const optionLines = serveUsage()
      .split('\n')
      .filter((line) => /^ {2}-/.test(line));
    expect(optionLines.length).toBeGreaterThan(10);
    const columns = new Set<number>();
    for (const line of optionLines) {
      const m = /^( {2}(?:-h, )?--[a-z-]+(?: [A-Z][A-Z,]*)?)( {2,})\S/.exec(line);
      expect(m, `flag and text run together in ${JSON.stringify(line)}`).not.toBeNull();
      columns.add(m![1]!.length + m![2]!.length);
    }
    expect([...columns]).toHaveLength(1);
    expect(serveUsage()).toMatch(/--geo-default COUNTRY,CITY {2,}geo_location of opens/);
  });
});
