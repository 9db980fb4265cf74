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
ENGINE_HELP = "; ".join(f"{name}: {words}" for name, words in ENGINES.items())
