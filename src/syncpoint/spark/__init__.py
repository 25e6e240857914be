"""The only package that imports pyspark: reading, transforming and staging changes."""
