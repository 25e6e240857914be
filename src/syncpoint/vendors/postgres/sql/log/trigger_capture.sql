-- Whether trigger capture of this prefix is installed here (its capture generator exists).
SELECT to_regprocedure(%(fn)s) IS NOT NULL
