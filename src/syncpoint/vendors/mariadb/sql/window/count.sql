-- How many records Spark reads of a window (``read.sql``'s SELECT): what a round counts as
-- changes (echo records from the target itself are not).
SELECT count(*) FROM ($raw{query}) q
