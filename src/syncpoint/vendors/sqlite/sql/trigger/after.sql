CREATE TRIGGER ${trigger} AFTER $raw{event} ON ${table}
BEGIN
$raw{before_record}
$raw{record};
$raw{after_record}
$raw{debug}
END
