import { setImmediate as nextTurn } from 'node:timers/promises';
import * as base64 from 'nodemailer/lib/base64';
import type DKIM from 'nodemailer/lib/dkim';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import type { SendEmailBody } from '../../../../src-shared/schemas/email';
import { randomHex64 } from '../../ids';
import { lazyRequire } from '../../lazy-load';
import { mailComposer } from '../../mail/mail-composer';

/** nodemailer's signer, for the few sends signed with a domain's key. */
const dkimSigner = lazyRequire<typeof DKIM>('nodemailer/lib/dkim');

const address = (r: { email: string; name?: string }) => (r.name ? { name: r.name, address: r.email } : r.email);

/** Attachments of a request as the composer takes them: bytes only (never a path or URL). */
export function composerAttachments(list: SendEmailBody['attachments'] = []) {
  return list.map((a) => ({
    filename: a.filename,
    content: Buffer.from(a.content, 'base64'),
    contentType: a.type,
    contentDisposition: a.disposition ?? (a.content_id ? ('inline' as const) : ('attachment' as const)),
    cid: a.content_id,
  }));
}

/** What composes a send (composeMessage, or the same on the mail thread). */
export type Composer = typeof composeMessage;

/** What composeMessage takes besides the request. */
export interface ComposeOptions {
  messageId: string;
  date: Date;
  /** The subject, HTML and text as sent (after a template and substitutions); the request's own when absent. */
  subject?: string;
  html?: string;
  text?: string;
  extraHeaders?: Record<string, string>;
  /** The base of the MIME boundaries (random when absent): the copies of one send share it, so they differ in fewer bytes. */
  boundary?: string;
  /** Signs the message (a DKIM-Signature header) with the key of the sender's verified domain. */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
}

/**
 * The send payload as a real MIME message, its raw bytes (nodemailer's composer). Attachments are given as bytes
 * only: the composer is told never to read a file or fetch a URL, whatever a request says.
 */
export async function composeMessage(body: SendEmailBody, options: ComposeOptions): Promise<Buffer> {
  const tree = composerTree(body, options);
  const raw = (await renderInMemoryYielding(tree)) ?? (await tree.build());
  return options.dkim ? dkimSign(raw, options.dkim) : raw;
}

/**
 * composeMessage's bytes made at once, on the calling thread, for a message without a signature (a
 * request's parts are always in memory). For a message small enough to compose between two requests.
 */
export function composeMessageNow(body: SendEmailBody, options: Omit<ComposeOptions, 'dkim'>): Buffer {
  const raw = renderInMemory(composerTree(body, options));
  if (raw === undefined) throw new Error('a message whose parts are not all in memory cannot be composed at once');
  return raw;
}

/** nodemailer's MIME tree of the message: its header block is what buildHeaders() of its root answers. */
export function composerTree(body: SendEmailBody, options: Omit<ComposeOptions, 'dkim'>): MimeNode {
  const html = options.html ?? body.content?.find((c) => c.type === 'text/html')?.value;
  const text = options.text ?? body.content?.find((c) => c.type === 'text/plain')?.value;
  const MailComposer = mailComposer();
  return new MailComposer({
    from: address(body.from),
    to: body.to.map(address),
    cc: body.cc?.map(address),
    replyTo: body.replyTo,
    subject: options.subject ?? body.subject ?? '',
    html,
    text,
    headers: { ...body.headers, ...options.extraHeaders },
    attachments: composerAttachments(body.attachments),
    messageId: options.messageId,
    date: options.date,
    // The composer would make a system call for the random part of each message's boundaries.
    baseBoundary: options.boundary ?? randomHex64(),
    disableFileAccess: true,
    disableUrlAccess: true,
  }).compile();
}

/**
 * The bytes `tree.build()` makes, made synchronously, for a tree whose every part is in memory (a string or a
 * Buffer, which is all a send request can give). `build()` pipes each part through a chain of streams and
 * waits a turn of the event loop between parts; for a small message that machinery cost twice the encoding
 * itself. This walks the same tree with the composer's own pieces, in the order `build()` uses them: each
 * node's `buildHeaders()`, its content through nodemailer's own quoted-printable or base64 encoder, the
 * children between boundaries, and a final line break. Answers undefined for any other tree (streamed or
 * raw content, transforms), which `build()` then makes; a test holds the two byte for byte.
 */
export function renderInMemory(tree: MimeNode): Buffer | undefined {
  if (!inMemory(tree)) return undefined;
  const pieces: Piece[] = [];
  renderNode(tree, pieces);
  return assemble(pieces.map((p) => (Buffer.isBuffer(p) ? p : encodeWhole(p.encoder, p.content))));
}

/**
 * renderInMemory with a turn of the event loop between slices of a large part's encoding (the encoders'
 * output does not depend on where their input is split), so composing a message of megabytes never holds
 * other requests for long. The same bytes; a message without a large part is made at once.
 */
export async function renderInMemoryYielding(tree: MimeNode): Promise<Buffer | undefined> {
  if (!inMemory(tree)) return undefined;
  const pieces: Piece[] = [];
  renderNode(tree, pieces);
  const chunks: Buffer[] = [];
  for (const p of pieces) {
    if (Buffer.isBuffer(p)) chunks.push(p);
    else if (p.content.length < YIELD_SLICE * 2) chunks.push(encodeWhole(p.encoder, p.content));
    else chunks.push(await encodeInSlices(p.encoder, Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content)));
  }
  return assemble(chunks);
}

/** Content at least twice this size is encoded this much at a time, a turn of the event loop between. */
const YIELD_SLICE = 128 * 1024;

/** A part of the message: its bytes, or content still to go through its transfer encoding. */
type Piece = Buffer | { encoder: qp.Encoder | base64.Encoder; content: string | Buffer };

/** The pieces in order, and the final line break build() adds. */
function assemble(chunks: Buffer[]): Buffer {
  const last = chunks.at(-1)?.at(-1);
  if (last !== 0x0a) chunks.push(Buffer.from(last === 0x0d ? '\n' : '\r\n'));
  return Buffer.concat(chunks);
}

interface NodeInternals {
  _raw?: unknown;
  _transforms?: unknown[];
  _processFuncs?: unknown[];
}

function inMemory(node: MimeNode): boolean {
  const internals = node as unknown as NodeInternals;
  if (internals._raw || internals._transforms?.length || internals._processFuncs?.length || node.newline) return false;
  const content = node.content;
  if (content !== undefined && typeof content !== 'string' && !Buffer.isBuffer(content)) return false;
  return node.childNodes.every(inMemory);
}

function renderNode(node: MimeNode, pieces: Piece[]): void {
  // buildHeaders() settles the node's transfer encoding and boundary and writes them into its headers.
  pieces.push(Buffer.from(`${node.buildHeaders()}\r\n\r\n`));
  const content = node.content as string | Buffer | undefined;
  if (content) {
    const encoding = String(node.getHeader('Content-Transfer-Encoding') ?? '').toLowerCase();
    if (encoding === 'quoted-printable') {
      // Outside of text, a lone CR or LF is data (as build() treats it).
      pieces.push({ encoder: new qp.Encoder({ binary: !/^text\//i.test(node.contentType ?? '') }), content });
    } else if (encoding === 'base64') {
      pieces.push({ encoder: new base64.Encoder(), content });
    } else {
      pieces.push(Buffer.isBuffer(content) ? content : Buffer.from(content));
    }
  }
  if (node.multipart) {
    node.childNodes.forEach((child, i) => {
      pieces.push(Buffer.from(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`));
      renderNode(child, pieces);
    });
    pieces.push(Buffer.from(`\r\n--${node.boundary}--\r\n`));
  }
}

/** All of `content` through one of nodemailer's encoder streams, whose transform and flush run synchronously. */
function encodeWhole(encoder: qp.Encoder | base64.Encoder, content: string | Buffer): Buffer {
  encoder.end(content);
  return readAll(encoder);
}

/** All of `content` through the encoder a slice at a time, a turn of the event loop after each. */
async function encodeInSlices(encoder: qp.Encoder | base64.Encoder, content: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  for (let at = 0; at < content.length; at += YIELD_SLICE) {
    const slice = content.subarray(at, at + YIELD_SLICE);
    if (at + YIELD_SLICE >= content.length) encoder.end(slice);
    else encoder.write(slice);
    out.push(readAll(encoder));
    if (at + YIELD_SLICE < content.length) await nextTurn();
  }
  return Buffer.concat(out);
}

/** What the encoder has made so far. */
function readAll(encoder: qp.Encoder | base64.Encoder): Buffer {
  const out: Buffer[] = [];
  for (let chunk = encoder.read() as Buffer | null; chunk !== null; chunk = encoder.read() as Buffer | null) out.push(chunk);
  return Buffer.concat(out);
}

/** The message with a DKIM-Signature header added (relaxed/relaxed, rsa-sha256), by nodemailer's signer. */
function dkimSign(raw: Buffer, key: { domainName: string; keySelector: string; privateKey: string }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const Signer = dkimSigner();
    const signed = new Signer(key).sign(raw);
    signed.on('data', (chunk: Buffer) => chunks.push(chunk));
    signed.on('end', () => resolve(Buffer.concat(chunks)));
    signed.on('error', reject);
  });
}
