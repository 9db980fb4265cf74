"""The engines a command can score on (--engine): where the kernel runs and what each holds.
Pure words; metrics/core (memory, blocks) and metrics/spark compute.
"""

from __future__ import annotations

ENGINES: dict[str, str] = {
    "memory": "every run held whole and scored in this process, every view and format "
    "(the default)",
    "blocks": "the runs read a block of queries at a time (Parquet streamed): the same "
    "summary and sweep in bounded memory, --format table only",
    "spark": "Spark reads Parquet --qrels and --run files and scores blocks of queries with "
    "this engine's kernel (pip install -e \".[spark]\"); the driver summarises",
}
DEFAULT_ENGINE = "memory"

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
