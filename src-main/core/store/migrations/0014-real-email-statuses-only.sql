-- mailyard: rewrites-schema
-- No stored copy has an old status any more (0013): the constraint allows the real service's alone.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql,
    ' OR status = ''deferred'' OR status = ''rejected'' OR status = ''suppressed'')',
    ')')
  WHERE type = 'table' AND name = 'messages';
PRAGMA writable_schema = OFF;
