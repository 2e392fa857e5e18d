-- mailyard: rewrites-schema
-- The email logs' statuses become the real service's: queued, sent, delivered, opened, clicked, bounced,
-- failed, spam, unsubscribed. The constraint is replaced in place (as 0009 does; the table keeps its
-- rows and its foreign keys); 0013 then moves the stored rows to the new names.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql,
    'CHECK (status = ''queued'' OR status = ''delivered'' OR status = ''deferred'' OR status = ''bounced'' OR status = ''rejected'' OR status = ''failed'' OR status = ''suppressed'')',
    'CHECK (status = ''queued'' OR status = ''sent'' OR status = ''delivered'' OR status = ''opened'' OR status = ''clicked'' OR status = ''bounced'' OR status = ''failed'' OR status = ''spam'' OR status = ''unsubscribed'' OR status = ''deferred'' OR status = ''rejected'' OR status = ''suppressed'')')
  WHERE type = 'table' AND name = 'messages';
PRAGMA writable_schema = OFF;
