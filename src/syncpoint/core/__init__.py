"""Plain-Python heart of syncpoint: no driver, no pyspark, no vendor."""
