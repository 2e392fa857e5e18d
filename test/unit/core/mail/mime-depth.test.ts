import { describe, expect, it } from 'vitest';
import { parseLeniently } from '../../../../src-main/core/mail/lenient-parse';
import { cutDeepParts, DEEPER_PARTS_NAME, MAX_MIME_DEPTH } from '../../../../src-main/core/mail/mime-depth';

/** A message of `depth` nested multiparts, a text part at the bottom. */
function nested(depth: number): Buffer {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(`Content-Type: multipart/mixed; boundary="b${i}"`, '', `--b${i}`);
    close.unshift(`--b${i}--`);
  }
  return Buffer.from(
    ['From: a@example.com', 'Subject: Deep', 'MIME-Version: 1.0', ...open, 'Content-Type: text/plain', '', 'bottom', ...close, ''].join('\r\n'),
  );
}

describe('cutDeepParts', () => {
  it('leaves a message within the depth as it is', () => {
    const raw = nested(MAX_MIME_DEPTH);
    expect(cutDeepParts(raw)).toEqual({ raw, cut: false });
  });

  it('keeps the parts below the depth as one opaque part, the bytes below it as they came', () => {
    const raw = nested(MAX_MIME_DEPTH + 5);
    const { raw: read, cut } = cutDeepParts(raw);
    expect(cut).toBe(true);
    const text = read.toString();
    expect(text).toContain(`Content-Disposition: attachment; filename="${DEEPER_PARTS_NAME}"`);
    expect(text).not.toContain(`boundary="b${MAX_MIME_DEPTH}"`);
    expect(text).toContain(`boundary="b${MAX_MIME_DEPTH + 1}"`);
  });
});

describe('parseLeniently of a deep message', () => {
  it('reads to the depth and says where it stopped; the deeper bytes are its opaque part', async () => {
    const view = await parseLeniently(nested(MAX_MIME_DEPTH + 5), { keepAttachments: true });
    expect(view.problem).toBe(
      `Its MIME parts nest deeper than ${MAX_MIME_DEPTH} levels: below that they are not read, but kept as they came in the part ${DEEPER_PARTS_NAME}.`,
    );
    expect(view.attachments.map((a) => a.filename)).toEqual([DEEPER_PARTS_NAME]);
    expect(view.attachments[0]!.content!.toString()).toContain('bottom');
    expect(view.subject).toBe('Deep');
  });

  it('reads a message within the depth whole, with no problem', async () => {
    const view = await parseLeniently(nested(3));
    expect([view.problem, view.text?.trim()]).toEqual([null, 'bottom']);
  });
});
