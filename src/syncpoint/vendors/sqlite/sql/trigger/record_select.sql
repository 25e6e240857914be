SELECT NULL, sc.context + 1, coalesce((SELECT o.dbid FROM ${origin} AS o LIMIT 1), sc.location),
       $lit{table}, $lit{catalog}, 'main', lower(hex(randomblob(16))), $lit{action},
       $raw{content}, $raw{oldcontent}, $raw{version},
       strftime('%Y-%m-%d %H:%M:%f', 'now') || '000', $raw{fix}
  FROM ${service_context} AS sc$raw{tail}
