"""Operations built on rounds and Spark, one package each: ``snapshot`` (initial load and
the hand-over to rounds) and ``verify`` (compare targets with their sources, repair)."""
