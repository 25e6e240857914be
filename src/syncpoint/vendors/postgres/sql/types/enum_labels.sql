-- An enum's labels in their order (the type given by oid).
SELECT enumlabel FROM pg_enum WHERE enumtypid = %s ORDER BY enumsortorder
