SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = $lit{items}), 0)
