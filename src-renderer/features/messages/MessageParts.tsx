import { useEffect, useState } from 'react';
import { remoteContent } from '../../../src-shared/remote-content';
import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { CopyButton } from '../../components/CopyButton';
import { formatSize } from '../../components/size';

/**
 * The HTML part, served by the emulator with a script-free CSP, in a sandboxed frame without
 * allow-scripts or allow-same-origin: nothing in a captured message runs, whatever it carries. The
 * emulator serves it without the tracking pixel and with tracked links to their own URLs, so the
 * preview never counts as an open or a click. Remote images, style sheets and fonts stay blocked (as
 * mail clients block them: loading one tells the sender the message was looked at) until the user
 * allows them for this message; then exactly what the banner counts loads (the emulator's policy
 * allows those URLs and no other).
 */
export function Preview({ d }: { d: Detail }) {
  const [width, setWidth] = useState<'desktop' | 'mobile'>('desktop');
  const [images, setImages] = useState<{ id: string; allowed: boolean }>({ id: d.id, allowed: false });
  const allowed = images.id === d.id && images.allowed;
  if (d.html === null) return <p className="muted pad">This message has no HTML part. See the Text tab.</p>;
  const found = remoteContent(d.html);
  const remote = { images: found.images.length, css: found.css.length };
  const onlyImages = remote.css === 0;
  return (
    <div className="preview">
      {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons named for screen readers; a <fieldset> would bring its border, legend and min-width rules into the row's layout */}
      <div className="segmented" role="group" aria-label="Preview width">
        {(['desktop', 'mobile'] as const).map((w) => (
          <button key={w} type="button" className={`seg${width === w ? ' on' : ''}`} aria-pressed={width === w} onClick={() => setWidth(w)}>
            {w === 'desktop' ? 'Desktop' : 'Mobile (375 px)'}
          </button>
        ))}
      </div>
      <p className="muted small preview-note" data-testid="preview-note">
        Looking counts as nothing: the preview loads no tracking pixel, and its tracked links go straight to their URLs. Use Simulate open or Simulate click to
        record one.
      </p>
      {remote.images + remote.css > 0 && (
        <div className="images-blocked" data-testid="images-blocked">
          {allowed ? (
            <span className="muted small">
              {onlyImages
                ? `Remote images shown (${remote.images}); loading them told their servers you looked.`
                : `Remote content shown (${blockedParts(remote).join(', ')}); loading it told its servers you looked.`}
            </span>
          ) : (
            <>
              <span className="small">
                {onlyImages
                  ? `${remote.images === 1 ? '1 remote image is' : `${remote.images} remote images are`} blocked, as mail clients block them until asked.`
                  : `Remote content is blocked (${blockedParts(remote).join(', ')}), as mail clients block it until asked.`}
              </span>
              <button type="button" className="button" onClick={() => setImages({ id: d.id, allowed: true })}>
                {onlyImages ? 'Show remote images' : 'Show remote content'}
              </button>
            </>
          )}
        </div>
      )}
      <div className="frame-wrap">
        <iframe
          key={`${d.id}-${allowed ? 'images' : 'blocked'}`}
          title="HTML preview"
          className={`html-frame ${width}`}
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          referrerPolicy="no-referrer"
          src={`/emulator/messages/${encodeURIComponent(d.id)}/html${allowed ? '?images=allow' : ''}`}
        />
      </div>
    </div>
  );
}

/** "1 image", "2 style sheets, fonts or backgrounds": what the preview blocks, or loads once allowed, in words. */
function blockedParts({ images, css }: { images: number; css: number }): string[] {
  return [
    ...(images === 0 ? [] : [images === 1 ? '1 image' : `${images} images`]),
    ...(css === 0 ? [] : [`${css} style ${css === 1 ? 'sheet, font or background' : 'sheets, fonts or backgrounds'}`]),
  ];
}

/** The message source as received, with a download of the .eml. */
export function Raw({ id }: { id: string }) {
  const [raw, setRaw] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    fetch(`/emulator/messages/${encodeURIComponent(id)}/raw`)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then(
        (t) => !gone && setRaw(t),
        (e: Error) => !gone && setError(e.message),
      );
    return () => {
      gone = true;
    };
  }, [id]);
  if (error) return <p className="error pad">{error}</p>;
  if (raw === null) return <p className="muted pad">Loading…</p>;
  return (
    <>
      <div className="toolbar">
        <a className="button" href={`/emulator/messages/${encodeURIComponent(id)}/raw`} download={`${id}.eml`}>
          Download .eml
        </a>
        <CopyButton text={raw} label="Copy source" />
      </div>
      <pre className="snippet raw" data-testid="raw-source">
        {raw.length > 500_000 ? `${raw.slice(0, 500_000)}\n… (truncated here; download the .eml for all of it)` : raw}
      </pre>
    </>
  );
}

/** The message's attachments, each with its download. */
export function Attachments({ d }: { d: Detail }) {
  if (d.attachments.length === 0) return <p className="muted pad">No attachments.</p>;
  return (
    <table className="table">
      <thead>
        <tr>
          <th>File</th>
          <th>Type</th>
          <th>Size</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {d.attachments.map((a) => (
          <tr key={a.index}>
            <td>
              {a.filename} {a.disposition === 'inline' && <span className="badge">inline{a.content_id ? ` cid:${a.content_id}` : ''}</span>}
            </td>
            <td>
              <code>{a.content_type}</code>
            </td>
            <td>{formatSize(a.size)}</td>
            <td>
              <a className="button" href={`/emulator/messages/${encodeURIComponent(d.id)}/attachments/${a.index}`} download={a.filename}>
                Download
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
