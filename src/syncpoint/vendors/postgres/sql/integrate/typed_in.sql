-- One task's typed operations of a window (window/ops_out_typed.sql), into its staging.
COPY $raw{staging} (sp_repl_key, sp_sub, sp_action, sp_key $raw{columns}) FROM STDIN
