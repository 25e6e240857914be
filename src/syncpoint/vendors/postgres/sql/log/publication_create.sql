-- Through the partitioned root: a partitioned table's rows come as the parent's, whatever
-- partition holds them. Made before the slot (a slot decodes with the catalog of its own
-- time, and a publication that did not exist then makes decoding fail).
CREATE PUBLICATION ${pub} WITH (publish_via_partition_root = true)
