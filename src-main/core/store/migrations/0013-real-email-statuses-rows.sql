-- The stored copies under the real service's statuses (0012 allowed both sets while they move).
UPDATE messages SET status = 'failed', failed_reason = 'recipient is on the suppression list (unsubscribed)' WHERE status = 'suppressed';
UPDATE messages SET status = 'failed', failed_reason = 'rejected by policy' WHERE status = 'rejected';
UPDATE messages SET status = 'sent' WHERE status = 'deferred';
UPDATE messages SET status = 'clicked' WHERE status = 'delivered'
  AND EXISTS (SELECT 1 FROM message_events e WHERE e.message_id = messages.id AND e.event = 'click');
UPDATE messages SET status = 'opened' WHERE status = 'delivered'
  AND EXISTS (SELECT 1 FROM message_events e WHERE e.message_id = messages.id AND e.event = 'open');
