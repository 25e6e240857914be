SELECT o_tick, o_guaranteed FROM ${schema}.${fn_tick}()
