-- The watched tables. Besides the columns every vendor has: relid (the table's oid, NULL
-- while the table is dropped), key_columns (the key named in the channel file, NULL when
-- the primary key is used), key_attnums (the key the current trigger pairs rows on; by
-- attnum so that a renamed key column is followed), shape (the columns as of the last DDL
-- event, the old shape of the next ALTER record), reason (why status is ERROR).
CREATE TABLE IF NOT EXISTS ${schema}.${tables} (
    id           integer GENERATED ALWAYS AS IDENTITY,
    catalogname  text     NOT NULL,
    schemaname   text     NOT NULL,
    tablename    text     NOT NULL,
    actions      text,
    status       text     NOT NULL DEFAULT 'CREATING',
    repl_key     bigint,
    trigger_name text,
    debug        smallint NOT NULL DEFAULT 0,
    version      integer  NOT NULL DEFAULT 1,
    relid        oid,
    key_columns  text[],
    key_attnums  smallint[],
    shape        jsonb,
    reason       text,
    CONSTRAINT ${tables_pkey} PRIMARY KEY (id),
    CONSTRAINT ${tables_name} UNIQUE (schemaname, tablename),
    CONSTRAINT ${tables_actions} CHECK (actions IS NULL OR actions ~ '^I?U?D?$'),
    CONSTRAINT ${tables_debug} CHECK (debug IN (0, 1))
)
