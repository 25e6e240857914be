    SET $raw{target} = CONCAT('{', COALESCE($raw{target}, ''), '}');
