import { type AttemptRecord, DELIVERY_BODY_LIMITS, type DeliveryDetail } from '../../../src-shared/schemas/dispatch';
import { BodyView, JsonView } from '../../components/JsonView';

/** A size in bytes as people read it: 812 bytes, 6.2 KiB, 104.3 MiB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

const KIB = (bytes: number) => `${bytes / 1024} KiB`;

/** The whole payload as a file: the emulator serves it as stored. */
function DownloadPayload({ d }: { d: Pick<DeliveryDetail, 'id' | 'payload_url' | 'payload_bytes'> }) {
  return (
    <a className="button" href={d.payload_url} download={`delivery-${d.id}.json`} data-testid="payload-download">
      Download the payload ({formatBytes(d.payload_bytes)})
    </a>
  );
}

/**
 * The delivery's payload: whole as JSON, or, when the emulator answered it in part (over 256 KiB),
 * its first part as text, said truncated, with the whole as a download.
 */
export function DeliveryPayload({ d }: { d: DeliveryDetail }) {
  if (!d.payload_truncated) return <JsonView value={d.payload} testId="delivery-payload" />;
  return (
    <>
      <p className="notice small" data-testid="payload-truncated">
        Payload truncated: {formatBytes(d.payload_bytes)} in all, the first {KIB(DELIVERY_BODY_LIMITS.payloadShownBytes)} shown. <DownloadPayload d={d} />
      </p>
      <pre className="snippet" data-testid="delivery-payload">
        {d.payload_preview}…
      </pre>
    </>
  );
}

/** What an attempt sent: the payload, or its first part when the payload is large (the whole is the delivery's). */
export function RequestBodyView({ request }: { request: AttemptRecord['request'] }) {
  if (!request.body_truncated) return <BodyView text={request.body} />;
  return (
    <>
      <pre className="snippet">{request.body}…</pre>
      <p className="muted small">
        The first {KIB(DELIVERY_BODY_LIMITS.requestBodyShownBytes)} of {formatBytes(request.body_bytes)}: the whole is the payload below.
      </p>
    </>
  );
}

/** Said under a response body the emulator kept only the start of. */
export function ResponseTruncatedNote() {
  return (
    <p className="muted small">
      Body truncated: an attempt keeps the first {KIB(DELIVERY_BODY_LIMITS.responseBodyKeptBytes)} of its answer, an earlier attempt the first{' '}
      {DELIVERY_BODY_LIMITS.earlierResponseBodyKeptChars.toLocaleString('en-US')} characters.
    </p>
  );
}
