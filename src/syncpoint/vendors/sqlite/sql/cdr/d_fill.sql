-- The staged rows, their values converted by the caller (see integrate.py).
INSERT INTO ${d} (sp_rk, sp_c, sp_dv, sp_hb, $raw{columns}, sp_hl) VALUES (?, ?, ?, ?, $raw{marks}, 0)
