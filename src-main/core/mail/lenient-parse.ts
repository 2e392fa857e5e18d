import type { AddressObject, Attachment, MailParserOptions } from 'mailparser';
import addressparser from 'nodemailer/lib/addressparser';
import { withThousands } from '../../../src-shared/format';
import { lazyImport } from '../lazy-load';
import { shownFileName } from './file-name';
import { bodyStart, splitEntity } from './header-end';
import { libmime } from './libmime';
import { cutDeepParts, DEEPER_PARTS_NAME, MAX_MIME_DEPTH } from './mime-depth';
import type { MailAddress, MailContent } from './parsed-mail';

/** mailparser, loaded with the first message read. */
const loadMailparser = lazyImport(() => import('mailparser'));

/**
 * mailparser (through mailsplit) refuses a message whose MIME tree has more than 1,000 nodes or one of
 * whose parts has a header block over 1 MB (`EMAXLEN`). A message the SMTP sink accepted is still
 * shown: parsed again with these raised limits, and failing that, its header lines and raw body.
 */
export const RELAXED_MIME_NODES = 10_000;
/** The raw body shown as text of a message mailparser cannot read at all, at most. */
export const SALVAGED_TEXT_LIMIT = 1024 * 1024;

export interface HeaderLine {
  name: string;
  value: string;
}

/** An attachment as parsed: its facts, and its bytes only when they were asked for. */
export interface ParsedAttachment {
  /** Its file name as shown (shownFileName): undefined when it has none, or one of format characters only. */
  filename: string | undefined;
  /** It carries a file name, even one that shows as nothing: Mailpit lists it. */
  named: boolean;
  contentType: string;
  size: number;
  contentId: string | undefined;
  contentDisposition: string | undefined;
  /** Its place in the MIME tree, as IMAP numbers parts (`2`, `1.2`): Mailpit's PartID. */
  partId: string | undefined;
  /** Part of a multipart/related body (an image the HTML shows): Mailpit lists it as Inline. */
  related: boolean;
  content: Buffer | null;
}

/** What could be read of a message: as mailparser reads it, or as much as could be, with why not all. */
export interface MailView {
  headers: HeaderLine[];
  from: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  text: string | null;
  html: string | null;
  attachments: ParsedAttachment[];
  /** Why the message could not be parsed as it is, in words; null when it could. */
  problem: string | null;
}

export interface ParseOptions {
  /** Keep the bytes of attachments (a download); otherwise they are read through and dropped. */
  keepAttachments?: boolean;
  /** Leave the text of an HTML-only message empty (the search reads the HTML itself). */
  skipHtmlToText?: boolean;
}

/** mailsplit's limits, which mailparser passes on; not in mailparser's typings. */
interface SplitterLimits {
  maxHeadSize?: number;
  maxChildNodes?: number;
}

/** The addresses of a parsed address header (groups flattened; entries without an address dropped). */
function addressesOf(value: unknown): MailAddress[] {
  const objects = (value === undefined ? [] : Array.isArray(value) ? value : [value]) as AddressObject[];
  return objects.flatMap((o) => (o?.value ?? []).flatMap((a) => (a.address ? [{ email: a.address, name: a.name ?? '' }] : [])));
}

/** Encoded words decoded; text that is not valid encoding kept as it is. */
function decodeWords(value: string): string {
  try {
    return libmime().decodeWords(value);
  } catch {
    return value;
  }
}

/** The addresses of a raw address header, read without mailparser. */
function rawAddresses(value: string | undefined): MailAddress[] {
  if (!value) return [];
  try {
    return addressparser(value, { flatten: true })
      .filter((a) => a.address)
      .map((a) => ({ email: a.address, name: decodeWords(a.name ?? '') }));
  } catch {
    return [];
  }
}

function headerLineOf(line: string): HeaderLine {
  const colon = line.indexOf(':');
  return colon < 0 ? { name: line.trim(), value: '' } : { name: line.slice(0, colon), value: line.slice(colon + 1).trim() };
}

/** One parse with mailparser's streaming parser: attachments read through (kept only when asked), never collected otherwise. */
async function parseOnce(raw: Buffer, options: ParseOptions, limits: SplitterLimits): Promise<MailView> {
  const { MailParser } = await loadMailparser();
  return new Promise((resolve, reject) => {
    const parserOptions: MailParserOptions & SplitterLimits = {
      skipImageLinks: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipHtmlToText: options.skipHtmlToText ?? false,
      ...limits,
    };
    const parser = new MailParser(parserOptions);
    const view: MailView = { headers: [], from: [], to: [], cc: [], subject: '', text: null, html: null, attachments: [], problem: null };
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      parser.removeAllListeners('data');
      parser.destroy();
      reject(err);
    };
    parser.on('error', fail);
    parser.on('headers', (headers: Map<string, unknown>) => {
      view.from = addressesOf(headers.get('from'));
      view.to = addressesOf(headers.get('to'));
      view.cc = addressesOf(headers.get('cc'));
      const subject = headers.get('subject');
      view.subject = typeof subject === 'string' ? subject : '';
      const lines = (parser as unknown as { headerLines?: Array<{ line: string }> }).headerLines ?? [];
      view.headers = lines.map((h) => headerLineOf(h.line));
    });
    parser.on('data', (data: { type: 'text'; text?: string; html?: string | false } | (Attachment & { type: 'attachment'; release: () => void })) => {
      if (data.type === 'text') {
        if (typeof data.text === 'string') view.text = data.text;
        if (typeof data.html === 'string') view.html = data.html;
        return;
      }
      const attachment: ParsedAttachment = {
        filename: shownFileName(data.filename),
        named: data.filename !== undefined && data.filename !== '',
        contentType: data.contentType,
        size: 0,
        contentId: data.contentId,
        contentDisposition: data.contentDisposition,
        partId: data.partId,
        related: data.related ?? false,
        content: null,
      };
      view.attachments.push(attachment);
      const chunks: Buffer[] = [];
      const stream = data.content as unknown as NodeJS.ReadableStream;
      stream.on('data', (chunk: Buffer) => {
        attachment.size += chunk.length;
        if (options.keepAttachments) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (options.keepAttachments) attachment.content = Buffer.concat(chunks, attachment.size);
        data.release();
      });
    });
    parser.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(view);
    });
    parser.end(raw);
  });
}

/** The error mailparser gave, in words (its code when it has one). */
function describe(err: unknown): string {
  const e = err as { message?: string; code?: string };
  const message = (e.message ?? String(err)).replace(/\s+/g, ' ').trim();
  return e.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}

/** What a message mailparser cannot read at all still shows: its header lines (unfolded) and its raw body as text. */
function salvage(raw: Buffer): Omit<MailView, 'problem'> {
  const { end, body: bodyAt } = splitEntity(raw);
  const lines: string[] = [];
  for (const line of raw.subarray(0, end).toString('utf8').split(/\r?\n/)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
    else if (line.length > 0) lines.push(line);
  }
  const body = raw.subarray(bodyAt, bodyAt + SALVAGED_TEXT_LIMIT).toString('utf8');
  const headers = lines.map(headerLineOf);
  const first = (name: string) => headers.find((h) => h.name.trim().toLowerCase() === name)?.value;
  return {
    headers,
    from: rawAddresses(first('from')),
    to: rawAddresses(first('to')),
    cc: rawAddresses(first('cc')),
    subject: decodeWords(first('subject') ?? ''),
    text: body,
    html: null,
    attachments: [],
  };
}

/**
 * A message as well as mailparser can read it, never failing: parsed as it is; else (over mailparser's
 * limits) parsed again with raised ones; else its header lines and raw body. `problem` says which, and why.
 */
export async function parseLeniently(raw: Buffer, options: ParseOptions = {}): Promise<MailView> {
  const release = await readTurn();
  try {
    const deep = cutDeepParts(raw);
    const view = await parseWhole(deep.raw, options);
    if (!deep.cut) return view;
    const cut = `Its MIME parts nest deeper than ${MAX_MIME_DEPTH} levels: below that they are not read, but kept as they came in the part ${DEEPER_PARTS_NAME}.`;
    return { ...view, problem: view.problem ? `${view.problem} ${cut}` : cut };
  } finally {
    release();
  }
}

/** Reads at once, at most (per thread): a costly message's read holds memory until it ends, and the others wait their turn. */
export const MAX_CONCURRENT_READS = 4;
let reading = 0;
const waiting: Array<() => void> = [];

/** Waits for a read's turn; answers how to give it back. */
async function readTurn(): Promise<() => void> {
  if (reading >= MAX_CONCURRENT_READS) await new Promise<void>((resolve) => waiting.push(resolve));
  else reading++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = waiting.shift();
    if (next) next();
    else reading--;
  };
}

async function parseWhole(raw: Buffer, options: ParseOptions): Promise<MailView> {
  let first: unknown;
  try {
    return await parseOnce(raw, options, {});
  } catch (err) {
    first = err;
  }
  const why = `mailparser could not read this message as it is: ${describe(first)}`;
  try {
    const view = await parseOnce(raw, options, { maxHeadSize: Math.max(raw.length + 1, 1024 * 1024), maxChildNodes: RELAXED_MIME_NODES });
    return {
      ...view,
      problem: `${why}. It is shown as read with raised limits (up to ${withThousands(RELAXED_MIME_NODES)} MIME parts, header blocks of any size).`,
    };
  } catch (err) {
    const more = raw.length - (bodyStart(raw) + SALVAGED_TEXT_LIMIT);
    return {
      ...salvage(raw),
      problem:
        `${why}; read again with raised limits: ${describe(err)}. Shown are its header lines and its raw body as text` +
        `${more > 0 ? ` (the first ${withThousands(SALVAGED_TEXT_LIMIT)} bytes)` : ''}; the raw source has it all.`,
    };
  }
}

/**
 * What a webhook payload carries of a message read by parseLeniently (so a message over mailparser's
 * limits is posted as well as it can be read, never refused): attachments need `keepAttachments`.
 */
export function mailContentOfView(view: MailView): MailContent {
  const headers: Record<string, string> = {};
  for (const h of view.headers) {
    const name = h.name.trim();
    const value = h.value.replace(/\r?\n[ \t]+/g, ' ').trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    from: view.from[0] ?? { email: '', name: '' },
    to: view.to,
    cc: view.cc,
    subject: view.subject,
    text: view.text ?? '',
    html: view.html ?? '',
    headers,
    attachments: view.attachments.map((a, i) => ({
      filename: a.filename ?? `attachment-${i + 1}`,
      content_type: a.contentType,
      size: a.size,
      content_id: a.contentId ? a.contentId.replace(/^<|>$/g, '') : '',
      content: (a.content ?? Buffer.alloc(0)).toString('base64'),
    })),
  };
}
