"""The words of the Spark engine: its default master, the column naming each row's run in a
frame of several, what a Spark evaluation holds and leaves out, and how Spark's own ranking
measures (`pyspark.ml.evaluation.RankingEvaluator`, `pyspark.mllib.evaluation.RankingMetrics`)
differ from this engine's. Pure words; metrics/spark computes.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MASTER = "local[2]"
MASTER_HELP = (f"with --engine spark: the master URL of the session started (default "
               f"{DEFAULT_MASTER}: two local cores)")

# the columns a DataFrame or a Parquet file must carry are the in-memory readers' (by role,
# under the same names and alternative names: metrics.io.detect); a DataFrame holding
# several runs names each row's run in this one
RUN_NAME_COLUMN = "run"

ORDER_RULE = ("A Spark run is ordered as the in-memory reader orders a Parquet run: by its "
              "rank column (ties in row order), or without one by score descending, ties by "
              "doc_id descending.")
QUERY_ORDER_RULE = ("Rows are numbered as the in-memory reader numbers them: a Parquet "
                    "file's in file order, a directory's files in path order (a frame handed "
                    "over that was not read from files: in the order Spark reads it), and "
                    "queries follow the first appearance of each in the qrels; the "
                    "bootstrap's resampled queries depend on that order.")
WHAT_IT_HOLDS = ("A Spark evaluation holds each run's per-query figures at K, at every K of "
                 "the sweep and, for the summary figures, at every K up to the longest list; "
                 "its summary, query classes, k suggestion and diagnosis, as the in-memory "
                 "engine reads them; the lists stay in Spark, so the drill-down (one query's "
                 "ranked ids) is not there.")
NO_SPARK = ("the Spark engine needs pyspark (pip install -e \".[spark]\") and a Java runtime "
            "(Java 17 or 21)")
ONLY_PARQUET = ("--engine spark reads Parquet (a file or a directory of them): {path} is not "
                "one")


@dataclass(frozen=True)
class Difference:
    """One way a Spark ranking measure differs from this engine's figure of the same name."""

    spark: str  # Spark's name of the figure
    ours: str  # this engine's summary key
    cause: str  # what the difference comes from, one sentence


# what Spark's RankingEvaluator (metricName=...; RankingMetrics' methods) computes beside
# this engine's default figures; the README's reconciliation table reads these
DIFFERENCES: tuple[Difference, ...] = (
    Difference("precisionAtK", "P",
               "the same figure (hits in the top K over K, an empty slot a miss): only the "
               "queries averaged and the repeats differ"),
    Difference("recallAtK", "R",
               "the same figure (hits in the top K over every relevant id): only the queries "
               "averaged and the repeats differ"),
    Difference("meanAveragePrecisionAtK", "AP",
               "Spark divides AP@K by min(R, K), this engine by R (trec_eval map_cut_K); "
               "--recall-denominator min divides as Spark does"),
    Difference("ndcgAtK", "nDCG",
               "from Python, Spark reads the labels as a set and gains 1 for each (its Scala "
               "API alone takes relevance values, gains 2^rel - 1 and reads the ideal order "
               "from the labels as given, so they must come sorted best first); this engine "
               "gains the grade and sorts the ideal list itself: on labels read as 0/1 the "
               "same figure"),
    Difference("meanAveragePrecision", "AP",
               "over the whole list, divided by R (trec_eval's map); this engine's AP is read "
               "at K unless --ap full"),
)
EMPTY_QUERIES_DIFFERENCE = (
    "Spark scores a query without a relevant id 0 and keeps it in the mean; this engine "
    "excludes it (the seed rule) unless --empty-queries zero, which gives Spark's mean")
REPEATS_DIFFERENCE = (
    "Spark reads a repeated id at every rank it appears; this engine keeps its slot and "
    "scores only its first occurrence")
