DELETE FROM ${pending} WHERE tablename = $lit{table};
