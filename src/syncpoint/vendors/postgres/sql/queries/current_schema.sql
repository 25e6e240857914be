-- The schema unqualified names are created in (the first of the search_path that exists).
SELECT current_schema()::text
