-- The webhook-id a delivery's requests carry when it is not the delivery's own id: a scenario's
-- duplicate (the same event delivered a second time, a delivery of its own with its own attempts)
-- carries its original's, as a provider's redelivery of one event does. NULL: the delivery's id.
ALTER TABLE deliveries ADD COLUMN webhook_id TEXT;
