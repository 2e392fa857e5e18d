-- mailyard: rewrites-schema
-- A CHECK (column IN (...)) makes SQLite build a temporary lookup table for the list in statements
-- that check it. Measured with the dispatcher's own statements (insert, claim, attempt, final state)
-- on one store each, alternating: about 24 µs of SQLite work per delivery before, 20 µs after. The
-- same constraints as OR chains accept exactly the same values, so no stored row can break them: only
-- the schema's text changes, by SQLite's procedure for changing constraints without rebuilding a
-- table (https://www.sqlite.org/lang_altertable.html#otheralter). The migration runner lets this
-- file write sqlite_schema and bumps schema_version after it. Write new constraints as OR chains.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (is_default IN (0, 1))',
    'CHECK (is_default = 0 OR is_default = 1)')
  WHERE type = 'table' AND name = 'accounts';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (event IN (''EMAIL_EVENT'', ''DOMAIN_VERIFICATION''))',
    'CHECK (event = ''EMAIL_EVENT'' OR event = ''DOMAIN_VERIFICATION'')')
  WHERE type = 'table' AND name = 'webhooks';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (method IN (''GET'', ''POST'', ''PUT'', ''DELETE'', ''PATCH''))',
    'CHECK (method = ''GET'' OR method = ''POST'' OR method = ''PUT'' OR method = ''DELETE'' OR method = ''PATCH'')')
  WHERE type = 'table' AND name = 'webhooks';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (status IN (''pending'', ''sending'', ''succeeded'', ''failed'', ''cancelled''))',
    'CHECK (status = ''pending'' OR status = ''sending'' OR status = ''succeeded'' OR status = ''failed'' OR status = ''cancelled'')')
  WHERE type = 'table' AND name = 'deliveries';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (trigger IN (''scheduled'', ''manual'', ''recovered''))',
    'CHECK (trigger = ''scheduled'' OR trigger = ''manual'' OR trigger = ''recovered'')')
  WHERE type = 'table' AND name = 'delivery_attempts';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (outcome IN (''succeeded'', ''failed''))',
    'CHECK (outcome = ''succeeded'' OR outcome = ''failed'')')
  WHERE type = 'table' AND name = 'delivery_attempts';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (source IN (''api'', ''smtp''))',
    'CHECK (source = ''api'' OR source = ''smtp'')')
  WHERE type = 'table' AND name = 'messages';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (recipient_type IN (''to'', ''cc'', ''bcc''))',
    'CHECK (recipient_type = ''to'' OR recipient_type = ''cc'' OR recipient_type = ''bcc'')')
  WHERE type = 'table' AND name = 'messages';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (status IN (''queued'', ''delivered'', ''deferred'', ''bounced'', ''rejected'', ''failed'', ''suppressed''))',
    'CHECK (status = ''queued'' OR status = ''delivered'' OR status = ''deferred'' OR status = ''bounced'' OR status = ''rejected'' OR status = ''failed'' OR status = ''suppressed'')')
  WHERE type = 'table' AND name = 'messages';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (kind IN (''open'', ''click'', ''unsubscribe''))',
    'CHECK (kind = ''open'' OR kind = ''click'' OR kind = ''unsubscribe'')')
  WHERE type = 'table' AND name = 'tracking_tokens';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (source IN (''smtp'', ''api''))',
    'CHECK (source = ''smtp'' OR source = ''api'')')
  WHERE type = 'table' AND name = 'inbound_messages';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (status IN (''pending'', ''verified'', ''failed''))',
    'CHECK (status = ''pending'' OR status = ''verified'' OR status = ''failed'')')
  WHERE type = 'table' AND name = 'domains';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (next_outcome IN (''verified'', ''failed''))',
    'CHECK (next_outcome = ''verified'' OR next_outcome = ''failed'')')
  WHERE type = 'table' AND name = 'domains';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (mode IN (''simulated'', ''real''))',
    'CHECK (mode = ''simulated'' OR mode = ''real'')')
  WHERE type = 'table' AND name = 'domain_checks';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (config_type IN (''smtp'', ''imap''))',
    'CHECK (config_type = ''smtp'' OR config_type = ''imap'')')
  WHERE type = 'table' AND name = 'mailers';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (connection_type IN (''basic'', ''oauth''))',
    'CHECK (connection_type = ''basic'' OR connection_type = ''oauth'')')
  WHERE type = 'table' AND name = 'mailers';
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (status IN (''pending'', ''approved'', ''denied'', ''used''))',
    'CHECK (status = ''pending'' OR status = ''approved'' OR status = ''denied'' OR status = ''used'')')
  WHERE type = 'table' AND name = 'oauth_requests';
PRAGMA writable_schema = OFF;
