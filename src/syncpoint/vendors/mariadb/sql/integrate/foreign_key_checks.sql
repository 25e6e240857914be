-- Foreign key checks of this session off for a round with cascades to make (a row it upserts
-- may refer to a parent the round's cascade removes with it), then on again.
SET SESSION foreign_key_checks = $raw{value}
