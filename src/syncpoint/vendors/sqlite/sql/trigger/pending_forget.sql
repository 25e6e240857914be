-- With recursive_triggers on, REPLACE fires the delete trigger for the rows it removes: they
-- are captured there, so the AFTER INSERT/UPDATE must not capture them again.
DELETE FROM ${pending} WHERE tablename = $lit{table}$raw{same_rowid};
