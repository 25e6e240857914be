DROP TABLE IF EXISTS temp.${spare}
