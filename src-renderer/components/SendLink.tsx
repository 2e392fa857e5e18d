import { type ReactNode, useEffect, useState } from 'react';
import { control } from '../api/clients';
import { Link } from './Link';

/** The Messages list filtered to one send's copies (every copy of a send shares its ref_id). */
export const sendPath = (refId: string) => `/messages?q=${encodeURIComponent(refId)}`;

/** The copies of a send a link can choose from: a send of more recipients links to its list. */
const COPIES_LOOKED_AT = 500;

/**
 * A link to what a send's `ref_id` stands for: the one copy whose recipient is `recipient` (or the
 * send's only copy, without a recipient) when exactly one matches, else the list of the send's copies.
 * It links to the list at once and to the copy once the copies are known.
 */
export function SendLink({ refId, recipient, children, testId }: { refId: string; recipient?: string | null; children?: ReactNode; testId?: string }) {
  const [copyId, setCopyId] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    setCopyId(null);
    control.listMessages({ q: refId, limit: COPIES_LOOKED_AT }).then(
      (res) => {
        const copies = res.data.messages.filter((m) => m.ref_id === refId);
        const wanted = recipient?.toLowerCase();
        const matching = wanted ? copies.filter((m) => m.recipient.email.toLowerCase() === wanted) : copies;
        if (!gone && matching.length === 1) setCopyId(matching[0]!.id);
      },
      // The list link stays: it shows the send's copies, or says none matches.
      () => {},
    );
    return () => {
      gone = true;
    };
  }, [refId, recipient]);
  return (
    <span data-testid={testId}>
      <Link to={copyId ? `/messages/${copyId}` : sendPath(refId)} title={copyId ? `the copy ${copyId} of send ${refId}` : `every copy of send ${refId}`}>
        {children ?? refId}
      </Link>
    </span>
  );
}
