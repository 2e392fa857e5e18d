import type { MessageRow } from '../../src-main/core/store/messages.repo';

/**
 * The stored row of a queued copy, the `i`th of its test (its id, ref_id and content_id from `i`), to
 * `recipient` (default `r<i>@example.com`); `fields` replaces any other column.
 */
export function queuedCopy(i: number, options: { recipient?: string } & Partial<MessageRow> = {}): MessageRow {
  const { recipient = `r${i}@example.com`, ...fields } = options;
  const id = `01K${String(i).padStart(23, '0')}`;
  return {
    id,
    ref_id: id,
    account_id: 'acc',
    content_id: id,
    source: 'api',
    from_email: 'shop@store.test',
    from_name: 'Store',
    recipient_email: recipient,
    recipient_lc: recipient.toLowerCase(),
    recipient_domain: recipient.split('@')[1]!,
    recipient_name: '',
    recipient_type: 'to',
    subject: `Message ${i}`,
    campaign_id: '',
    mailer_id: '',
    custom_args: '{}',
    status: 'queued',
    created_ms: i,
    created_at: 'now',
    delivered_ms: null,
    delivered_at: null,
    failed_reason: '',
    priority: '0',
    updated_at: 'now',
    patch: null,
    size: null,
    ...fields,
  };
}
