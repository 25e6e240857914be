-- A foreign key of a target table syncpoint created, to another table of the channel, as
-- its source has it (after the initial load where a snapshot fills the tables).
ALTER TABLE $raw{target} ADD CONSTRAINT $raw{constraint} FOREIGN KEY ($raw{columns})
REFERENCES $raw{parent} ($raw{parent_columns})
