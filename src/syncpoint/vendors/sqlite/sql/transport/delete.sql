-- The copy's old content, replaced in the same transaction as the insert of the new one.
DELETE FROM $raw{table}
