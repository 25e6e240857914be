-- A foreign key of a target table syncpoint created, to another table of the channel, as
-- its source has it (after the initial load where a snapshot fills the tables). Deferrable
-- (checked at once, as declared, outside rounds): a round defers it to COMMIT, for a row it
-- upserts may refer to a parent that the same round's cascade (made at the target) removes
-- with the row.
ALTER TABLE $raw{target} ADD CONSTRAINT $raw{constraint} FOREIGN KEY ($raw{columns})
REFERENCES $raw{parent} ($raw{parent_columns}) DEFERRABLE INITIALLY IMMEDIATE
