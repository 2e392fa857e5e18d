import { useEffect, useState } from 'react';
import type { InboundMessageRecord } from '../../../src-shared/schemas/inbound';
import { control } from '../../api/clients';
import { Link } from '../../components/Link';
import { InboundRule } from './InboundRule';

/** An inbound post's delivery: the inbound guide's rule that accepted the email it posts (by the delivery's ref_id). */
export function InboundRuleFact({ refId }: { refId: string }) {
  const [m, setM] = useState<InboundMessageRecord | null>(null);
  useEffect(() => {
    let gone = false;
    setM(null);
    control.listInboundMessages({ ref_id: refId }).then(
      (res) => !gone && setM(res.data.messages[0] ?? null),
      // The fact is left out: the rest of the delivery still shows.
      () => undefined,
    );
    return () => {
      gone = true;
    };
  }, [refId]);
  if (m === null) return null;
  return (
    <>
      <dt>Inbound</dt>
      <dd data-testid="delivery-inbound">
        <InboundRule m={m} /> <span className="muted small">· to {m.recipient} · </span>
        <Link to="/deliveries?view=inbound" className="small">
          all inbound mail
        </Link>
      </dd>
    </>
  );
}
