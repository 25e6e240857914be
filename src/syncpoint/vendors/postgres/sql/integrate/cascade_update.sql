-- A child row whose foreign key columns a cascade set (SET NULL, ON UPDATE CASCADE).
UPDATE $raw{target} SET $raw{assign} WHERE $raw{match}
