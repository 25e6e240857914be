DELETE FROM ${stin}
