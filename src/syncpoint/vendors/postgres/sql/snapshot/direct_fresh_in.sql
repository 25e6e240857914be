-- The rows of one key range straight into the target table (the range held no row there):
-- its own transaction; a key found there after all fails it, and the range is staged.
COPY $raw{target} ($raw{columns}) FROM STDIN $raw{format}
