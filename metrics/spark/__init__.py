"""The Spark driver: runs and qrels held as Spark DataFrames, scored inside Spark by this
engine's own kernel, summarised on the driver by the same aggregation as the in-memory path.

`evaluate_spark(qrels, runs, k)` takes DataFrames of an existing SparkSession and returns a
`SparkEvaluation`; `spark_session(master)` starts a small local one, as the command line's
`--engine spark` does. pyspark is imported only when a DataFrame is read or a session
started, so `import metrics` never needs it (pip install -e ".[spark]").
"""
