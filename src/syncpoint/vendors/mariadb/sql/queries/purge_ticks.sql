DELETE FROM ${ticks} WHERE tick_id < %(upto)s
