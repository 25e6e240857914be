-- The stops of many tables of one location cleared at once (a round that moved them).
DELETE FROM ${stops} WHERE application_name = ? AND location = ? AND table_name IN ($raw{tables})
