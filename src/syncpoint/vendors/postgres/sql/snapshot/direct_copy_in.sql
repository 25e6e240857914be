-- The rows of one key range into the typed staging, at the target (the direct path).
COPY ${staging} ($raw{columns}, ${attempt}) FROM STDIN $raw{format}
