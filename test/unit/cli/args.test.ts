import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envName, parseServeArgs, serveUsage, UsageError } from '../../../src-main/cli/args';
import { EmulatorConfigSchema } from '../../../src-main/core/config';

describe('parseServeArgs', () => {
  it('maps flags and variables to config keys, flags winning', () => {
    const { config } = parseServeArgs(['--http-port', '0', '--strict-webhook-urls'], {
      MAILYARD_HTTP_PORT: '9999',
      MAILYARD_SMTP_PORT: '2626',
      MAILYARD_HOST: '::1',
    });
    expect(config).toEqual({ httpPort: '0', smtpPort: '2626', host: '::1', strictWebhookUrls: true });
  });

  it('reads boolean variables strictly', () => {
    expect(parseServeArgs([], { MAILYARD_MEMORY: 'yes' }).config.memory).toBe(true);
    expect(parseServeArgs([], { MAILYARD_MEMORY: '0' }).config.memory).toBe(false);
    expect(() => parseServeArgs([], { MAILYARD_MEMORY: 'sometimes' })).toThrow(UsageError);
  });

  it('takes --scenarios more than once, and MAILYARD_SCENARIOS as a list with the path delimiter; a folder that is not there is refused', () => {
    const here = import.meta.dirname;
    const examples = `${here}/../../../examples/scenarios`;
    expect(parseServeArgs(['--scenarios', here, '--scenarios', examples], {}).config).toEqual({ scenarioDirs: [here, examples] });
    expect(parseServeArgs([], { MAILYARD_SCENARIOS: `${here}${delimiter}${examples}` }).config).toEqual({ scenarioDirs: [here, examples] });
    expect(() => parseServeArgs(['--scenarios', `${here}/nowhere`], {})).toThrow(`invalid value for --scenarios: no such folder "${here}/nowhere"`);
  });

  it('ignores unrelated variables', () => {
    expect(parseServeArgs([], { MAILYARD_UNKNOWN: 'x', HTTP_PORT: '1' }).config).toEqual({});
  });

  it('names the variable when a value is bad', () => {
    expect(() => parseServeArgs([], { MAILYARD_HTTP_PORT: '1.5' })).toThrow('invalid value for MAILYARD_HTTP_PORT');
  });

  it('takes --strict-requests as a flag and as MAILYARD_STRICT_REQUESTS', () => {
    expect(parseServeArgs(['--strict-requests'], {}).config).toEqual({ strictRequests: true });
    expect(parseServeArgs([], { MAILYARD_STRICT_REQUESTS: '1' }).config).toEqual({ strictRequests: true });
  });

  it('takes --smtp-max-size with units counted in 1024s, or bytes, and refuses a size it cannot read naming the flag', () => {
    const bytes = (args: string[], env: Record<string, string> = {}) => EmulatorConfigSchema.parse(parseServeArgs(args, env).config).maxMessageBytes;
    expect(bytes(['--smtp-max-size', '60MB'])).toBe(60 * 1024 * 1024);
    expect(bytes([], { MAILYARD_SMTP_MAX_SIZE: '512kb' })).toBe(512 * 1024);
    expect(bytes(['--smtp-max-size', '2000000'])).toBe(2_000_000);
    expect(bytes([])).toBe(25 * 1024 * 1024);
    expect(() => parseServeArgs(['--smtp-max-size', '60 parsecs'], {})).toThrow(
      'invalid value for --smtp-max-size: must be a size such as 60MB, 512KB or a number of bytes, got "60 parsecs"',
    );
    expect(() => parseServeArgs(['--smtp-max-size', '2GB'], {})).toThrow('invalid value for --smtp-max-size: must be at most 1024MB');
  });

  it('takes --enable-chaos as a flag and as MAILYARD_ENABLE_CHAOS', () => {
    expect(parseServeArgs(['--enable-chaos'], {}).config).toEqual({ enableChaos: true });
    expect(parseServeArgs([], { MAILYARD_ENABLE_CHAOS: 'true' }).config).toEqual({ enableChaos: true });
  });

  it('takes --payload-format spec|mailer-events, and refuses another shape naming the flag and the choices', () => {
    expect(parseServeArgs(['--payload-format', 'mailer-events'], {}).config).toEqual({ payloadFormat: 'mailer-events' });
    expect(parseServeArgs([], { MAILYARD_PAYLOAD_FORMAT: 'spec' }).config).toEqual({ payloadFormat: 'spec' });
    expect(() => parseServeArgs(['--payload-format', 'MAIL_DELIVERED'], {})).toThrow(/invalid value for --payload-format.*spec, mailer-events/);
  });

  it('takes --max-messages and --max-age (and their variables), 0 for no limit, and refuses a bad value naming the flag', () => {
    expect(parseServeArgs(['--max-messages', '100', '--max-age', '30d'], {}).config).toEqual({ maxMessages: '100', maxAge: '30d' });
    expect(parseServeArgs([], { MAILYARD_MAX_MESSAGES: '0', MAILYARD_MAX_AGE: '0' }).config).toEqual({ maxMessages: '0', maxAge: '0' });
    expect(() => parseServeArgs(['--max-messages', 'many'], {})).toThrow('invalid value for --max-messages');
    expect(() => parseServeArgs([], { MAILYARD_MAX_AGE: 'a month' })).toThrow(/invalid value for MAILYARD_MAX_AGE: "a month" is not an age/);
  });

  it('derives variable names from flags', () => {
    expect(envName('strict-webhook-urls')).toBe('MAILYARD_STRICT_WEBHOOK_URLS');
  });
});

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
