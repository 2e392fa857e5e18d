/**
 * The served OpenAPI document, as the tools users feed it to read it: Redocly's recommended lint,
 * openapi-typescript's types, and a small openapi-fetch client on those types, type-checked with tsc
 * and run against the emulator (send, page the logs, register a webhook, read an error's `details` and `fields`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';
import { type Receiver, startReceiver } from '../helpers/receiver';

const run = promisify(execFile);

/** The client a user would write: every call typed by the generated `paths`, the base URL the document's `servers` entry. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api';

export async function main(baseUrl: string, apiKey: string, hookUrl: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });

  const sent = await client.POST('/v1/email/send', {
    body: {
      from: { email: 'app@example.com' },
      to: [{ email: 'ann@example.org' }, { email: 'bob@example.org' }, { email: 'cid@example.org' }],
      subject: 'Hello from a generated client',
      content: [{ type: 'text/plain', value: 'Hi' }],
      attachments: [{ filename: 'a.txt', content: 'aGk=', type: 'text/plain' }],
    },
  });
  if (!sent.data) throw new Error('send failed: ' + JSON.stringify(sent.error));
  const refId: string = sent.data.ref_id;

  const recipients: string[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const page = await client.GET('/v1/email/logs', { params: { query: { refId, pageSize: 2, pageToken } } });
    if (!page.data) throw new Error('logs failed: ' + JSON.stringify(page.error));
    for (const entry of page.data.emailLogs) recipients.push(entry.recipientAddress);
    pageToken = page.data.nextPageToken || undefined;
    pages += 1;
  } while (pageToken && pages < 10);

  const hook = await client.POST('/v1/webhook/register', {
    body: { webhook_url: hookUrl, event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
  });
  if (!hook.data) throw new Error('register failed: ' + JSON.stringify(hook.error));

  const bad = await client.POST('/v1/webhook/register', {
    body: { webhook_url: 'not a url', event: 'EMAIL_EVENT', method: 'POST', webhook_options: { events: { delivery: true } } },
  });
  if (!bad.error) throw new Error('a bad webhook URL was taken');
  // Error results are typed, not any. A webhook call's own errors always carry details, an object as
  // its page shows; the union also holds the plain body of what is answered before routing (408, 431).
  type IsAny<T> = 0 extends 1 & T ? true : false;
  const errorIsTyped: IsAny<typeof bad.error> extends false ? true : never = true;
  const badDetails = typeof bad.error.details === 'object' ? bad.error.details.fields : undefined;
  const badFields: Record<string, string> | undefined = bad.error.fields;

  return { errorIsTyped, refId, recipients: recipients.sort(), pages, hookSuccess: hook.data.success, status: bad.response.status, error: bad.error.error, badDetails, badFields };
}

const [baseUrl, apiKey, hookUrl] = process.argv.slice(2) as [string, string, string];
main(baseUrl, apiKey, hookUrl).then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });
`;

/**
 * The send's body as openapi-typescript types it: a content send and a template send compile, a body
 * that is neither (or not an object at all) does not. `@ts-expect-error` fails the check when the line
 * it marks compiles.
 */
const SEND_SHAPES = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:4400' });
const from = { email: 'app@example.com' };
const to = [{ email: 'ann@example.org' }];
export const sends = [
  () => client.POST('/v1/email/send', { body: { from, to, subject: 'Hi', content: [{ type: 'text/plain', value: 'Hi' }] } }),
  () => client.POST('/v1/email/send', { body: { from, to, template_id: 'welcome', substitutions: { '*': { name: 'Ann' } } } }),
  () => client.POST('/v1/email/send', { body: { from, to, template_id: 'welcome', subject: 'Its own subject' } }),
  // @ts-expect-error: not a body
  () => client.POST('/v1/email/send', { body: 42 }),
  // @ts-expect-error: neither subject and content nor a template
  () => client.POST('/v1/email/send', { body: { from, to } }),
  // @ts-expect-error: content without a subject
  () => client.POST('/v1/email/send', { body: { from, to, content: [{ type: 'text/plain', value: 'Hi' }] } }),
];
type IsUnknown<T> = unknown extends T ? true : false;
export const bodyIsTyped: IsUnknown<components['schemas']['SendEmailBody']> = false;
`;

let typesChecked: Promise<{ types: string; diagnostics: Map<string, string[]> }> | undefined;
/**
 * openapi-typescript's types of the served document (api.d.ts), and tsc's diagnostics of the client
 * and of the send's shapes against them, per file: one program for both (strict, as a bundler project
 * resolves openapi-fetch).
 */
function checkedTypes() {
  typesChecked ??= (async () => {
    const types = astToString(await openapiTS(JSON.stringify(doc)));
    await writeFile(join(dir, 'api.d.ts'), types);
    await writeFile(join(dir, 'client.ts'), CLIENT);
    await writeFile(join(dir, 'send-shapes.ts'), SEND_SHAPES);
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [resolve('node_modules/@types')],
      skipLibCheck: true,
    };
    const program = ts.createProgram([join(dir, 'client.ts'), join(dir, 'send-shapes.ts')], options);
    const diagnostics = new Map<string, string[]>([
      ['client.ts', []],
      ['send-shapes.ts', []],
    ]);
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const file = d.file ? basename(d.file.fileName) : 'client.ts';
      const line = d.file && d.start !== undefined ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
      diagnostics.set(file, [...(diagnostics.get(file) ?? []), line + ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
    }
    return { types, diagnostics };
  })();
  return typesChecked;
}

let emu: TestEmulator;
let receiver: Receiver;
let dir: string;
let doc: { servers?: { url: string }[]; paths: Record<string, Record<string, { security?: unknown[] }>>; components: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  [emu, receiver] = await Promise.all([startEmulator(), startReceiver()]);
  dir = await mkdtemp(join(tmpdir(), 'mailyard-openapi-'));
  // The client resolves openapi-fetch as it would in a user's project.
  await symlink(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  const res = await emu.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.json;
});

afterAll(async () => {
  await Promise.all([emu?.cleanup(), receiver?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the served OpenAPI document, read by third-party tools', () => {
  it("passes Redocly's recommended rules with no error", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: join(dir, 'openapi.json'), config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('names its server relatively, so a client generated from it serves every instance; the API key in either header as the service API security', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    expect(doc.paths['/v1/email/send']!.post!.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  });

  it('gives openapi-typescript types from which an openapi-fetch client type-checks and runs against the emulator', async () => {
    const { types, diagnostics } = await checkedTypes();
    expect(types).toContain('"/v1/email/send"');
    // A field with a default may be left out: the IMAP webhook's method (POST unless given).
    expect(types).toMatch(/ConfigureMailerBody: \{[\s\S]*?webhook\?: \{[^}]*?\bmethod\?: /);
    expect(diagnostics.get('client.ts')).toEqual([]);

    const js = ts.transpileModule(CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    await writeFile(join(dir, 'client.mjs'), js);
    const baseUrl = new URL(doc.servers![0]!.url, emu.url).href.replace(/\/$/, '');
    const { stdout } = await run(process.execPath, [join(dir, 'client.mjs'), baseUrl, emu.apiKey, receiver.url], { timeout: 30_000 });
    const result = JSON.parse(stdout);
    expect(result.recipients).toEqual(['ann@example.org', 'bob@example.org', 'cid@example.org']);
    expect(result.pages).toBe(2);
    expect(result.hookSuccess).toBe(true);
    expect(result.status).toBe(400);
    expect(result.badFields).toHaveProperty('webhook_url');
    expect(result.badDetails).toEqual(result.badFields);
  }, 60_000);

  it("types the send's body as its two shapes (content, or a template): 42 and a body with neither do not compile", async () => {
    const { diagnostics } = await checkedTypes();
    expect(diagnostics.get('send-shapes.ts')).toEqual([]);
  }, 60_000);

  it("declares an attachment download as any media type, since it answers the attachment's own Content-Type", async () => {
    const get = (doc.paths['/emulator/messages/{id}/attachments/{n}']!.get as unknown as { responses: Record<string, { content: Record<string, unknown> }> })
      .responses['200']!;
    expect(Object.keys(get.content)).toEqual(['*/*']);
  });
});
