DELETE FROM ${tick_holes}
