-- What validate needs to judge the account's grants: the database, the account, whether
-- the binary log is on and lets a function's creator without SUPER make one, whether a
-- routine's creator is granted EXECUTE on it by itself.
SELECT DATABASE(), CURRENT_USER(), @@global.log_bin, @@global.log_bin_trust_function_creators,
       @@global.automatic_sp_privileges
