SELECT o_clock, o_oldest, o_lsn::text FROM ${schema}.${fn_horizon}()
