-- A fragment of cdr add's triggers: an update stamps the version of a group whose columns changed, keeps the others.
IF $raw{changed} THEN SET NEW.$raw{version} = v; ELSE SET NEW.$raw{version} = OLD.$raw{version}; END IF;
