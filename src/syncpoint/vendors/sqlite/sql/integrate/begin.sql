-- Take the write lock before any read a decision depends on.
BEGIN IMMEDIATE
