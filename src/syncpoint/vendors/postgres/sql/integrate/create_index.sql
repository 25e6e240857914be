-- An index of a target table syncpoint created, as its source has it (after the initial
-- load where a snapshot fills the table).
CREATE $raw{unique} INDEX IF NOT EXISTS $raw{index} ON $raw{target} $raw{using} ($raw{columns})
