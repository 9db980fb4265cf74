"""The engines a command can score on (--engine): where the kernel runs and what each holds.
Pure words; metrics/core (memory, blocks) and metrics/spark compute.
"""

from __future__ import annotations

ENGINES: dict[str, str] = {
    "memory": "every run held whole and scored in this process (the default)",
    "blocks": "the runs read a block of queries at a time (Parquet streamed): the same "
    "figures for the default measures, in every --format, in bounded memory",
    "spark": "Spark reads Parquet --qrels and --run files and scores blocks of queries with "
    "this engine's kernel (pip install -e \".[spark]\"); the driver summarises: the same "
    "figures for the default measures, in every --format",
}
DEFAULT_ENGINE = "memory"
# the block and Spark engines score the default figures (metrics.core.kernel.MEASURES) only
ONLY_DEFAULTS = ("--engine {engine} scores the default figures only; {names} would need the "
                 "in-memory engine (--engine memory)")
# what only the in-memory engine reads, by flag: why the block and Spark engines cannot
NEEDS_MEMORY: dict[str, str] = {
    "--queries": "the queries file is read against the whole evaluation (its report, and "
    "--by's slices)",
    "--by": "each slice's summary is read again from every query's scores at every K, which "
    "the other engines do not keep",
    "--corpus": "the chunk texts are matched to the ids of the ranked lists, which the other "
    "engines do not keep",
    "--tokens-per-chunk": "the context cost counts every query's ids at the suggested k, "
    "known only once every query is scored, when the other engines keep no list",
    "--price-per-mtok": "the context cost counts every query's ids at the suggested k, known "
    "only once every query is scored, when the other engines keep no list",
    "--normalize-ids": "the other engines match a block's ids to the qrels' as read (the "
    "in-memory engine rewrites every file's ids first)",
    "--load-report": "Spark reads the rows in its workers and keeps no load report "
    "(--engine blocks writes one)",
    "--interval bca": "the block engine's sweep bands would read every query's figure at "
    "every K, which it does not keep (--engine spark draws BCa intervals)",
}

# what a run refused by the in-memory size bound (--max-input-mb) can do instead, by whether
# it is Parquet (which --engine blocks streams) or a text format (which every engine reads
# whole); the qrels are read whole by every engine, so only the bound's flag is named there
RAISE_BOUND = "{flag} raises the limit when memory holds a few times the file"
OVER_BOUND: dict[str, str] = {
    "parquet": RAISE_BOUND + "; --engine blocks reads a Parquet run a block of queries at a "
    "time whatever its size (the same summary, sweep and per-query figures, in bounded "
    "memory)",
    "text": RAISE_BOUND + "; for a run that memory does not hold, write it as Parquet and "
    "take --engine blocks, which reads Parquet a block of queries at a time (it reads a text "
    "run whole, under the same limit)",
}
ENGINE_HELP = "; ".join(f"{name}: {words}" for name, words in ENGINES.items())
