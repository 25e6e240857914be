SELECT p.pubviaroot, p.puballtables,
       ARRAY(SELECT format('%%I.%%I', t.schemaname, t.tablename) FROM pg_publication_tables t
              WHERE t.pubname = p.pubname ORDER BY 1)
  FROM pg_publication p WHERE p.pubname = %(pub)s
