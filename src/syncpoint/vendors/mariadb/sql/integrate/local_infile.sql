-- Whether the server reads files the client sends (LOAD DATA LOCAL INFILE).
SELECT @@local_infile
