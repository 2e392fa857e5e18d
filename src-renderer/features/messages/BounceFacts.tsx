import type { MessageDetail as Detail } from '../../../src-shared/schemas/messages';
import { bounceOfReply } from '../../../src-shared/simulator';
import { suppressionWords } from './SuppressionFact';

const CATEGORY_WORDS: Record<string, string> = {
  invalid_recipient: 'invalid recipient',
  mailbox_full: 'mailbox full',
  mailbox_unavailable: 'mailbox unavailable',
  network: 'network',
  policy: 'policy',
};

/**
 * A bounced copy's bounce, with or without a webhook: its type, its category and the receiving
 * server's SMTP reply, and whether the address is suppressed now (the emulator's answer: a hard bounce
 * of a simulator address never suppresses it, and a suppression can be lifted). Rows of the message's facts list.
 */
export function BounceFacts({ d }: { d: Detail }) {
  const bounce = d.status === 'bounced' && d.failed_reason ? bounceOfReply(d.failed_reason) : undefined;
  if (!bounce) return null;
  return (
    <>
      <dt>Bounce</dt>
      <dd data-testid="message-bounce">
        <span data-testid="bounce-type">{bounce.type} bounce</span>
        {bounce.category && (
          <>
            {' · '}
            <span data-testid="bounce-category">{CATEGORY_WORDS[bounce.category] ?? bounce.category}</span>
          </>
        )}
        <span className="muted small" data-testid="bounce-suppressed">
          {bounce.type === 'soft' ? ' · a temporary refusal · the address is not suppressed' : ` · ${suppressionWords(d)}`}
        </span>
      </dd>
      <dt>SMTP reply</dt>
      <dd>
        <code className="wrap" data-testid="bounce-reply">
          {bounce.reply}
        </code>
      </dd>
    </>
  );
}
