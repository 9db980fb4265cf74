"""A retriever evaluated live (`metrics.evaluate_retriever`, `run-retriever`): the timings
file's columns, the kinds of failure a query's call can end in, the defaults and bounds of the
settings, and the words the command line prints. Declarations only."""

from __future__ import annotations

from metrics.vocabulary.cutoffs import DEFAULT_K

# The timings side file: CSV, one row per query answered, header `query_id,run,latency_ms`
# (the same file `--timings` reads beside the runs; optional `cost` and `tokens` columns are
# never written here: a live call has no price of its own)
TIMINGS_COLUMNS = ("query_id", "run", "latency_ms")
LATENCY_DECIMALS = 3  # milliseconds to the microsecond: perf_counter's resolution is finer

# what a query's call can end in, besides a ranked list
TIMEOUT = "timeout"  # the call ran past timeout_s (its thread is left to finish, unread)
INVALID = "invalid result"  # it returned something a run cannot hold (the message says what)
NOT_ASKED = "not asked"  # never called: too many overrunning calls were still running
FAILURE_KINDS = (TIMEOUT, INVALID, NOT_ASKED)  # or the exception's type name

DEFAULT_RUN_NAME = "live"
DEFAULT_DEPTH = 100  # ids kept of each list on the command line (--k): a run's usual depth
DEFAULT_WARMUP = 0
DEFAULT_CONCURRENCY = 1
MAX_CONCURRENCY = 256  # threads asking at once; more is a mistake, not a setting
MAX_WARMUP = 10_000
# while `concurrency` overrunning calls are still running no call starts; if none of them
# returns within this many timeouts more, the retriever is taken to be stuck
STUCK_TIMEOUTS = 10
FAILURES_SHOWN = 10  # failures the command line lists one a line (all are counted)

TIMEOUT_RULE = (
    "A call that runs past the timeout is recorded as a failure of its query. Python cannot "
    "stop a thread, so the call is left to finish on its own (its worker, a daemon thread, "
    "ends when it returns, its answer discarded) and a new worker takes the next query. "
    "While `concurrency` such calls are still running no call starts (so at most twice "
    "`concurrency` threads run the retriever), and if none of them returns within "
    f"{STUCK_TIMEOUTS} timeouts more the retriever is taken to be stuck and the queries left "
    "are recorded as not asked."
)
TIMINGS_RULE = (
    "Latency is the wall time of the call alone (time.perf_counter around it, in the thread "
    "that makes it), in milliseconds; warm-up calls are not counted. Only answered queries "
    "have a latency: a failed call's time is not one (a timeout's is only a lower bound)."
)
ORDER_RULE = (
    "The run is the retriever's order. A TREC file is ordered by score (ties by doc id, "
    "descending), so a query whose scores would read back in another order (ties, scores "
    "not descending, scores that tie as 32-bit floats as trec_eval 9 and pytrec_eval read "
    "them, or none given) gets rank scores in the file instead (n, n-1, ..., 1): the file "
    "reads back as the order returned."
)

# the command line
COMMAND_HELP = ("call a retriever (MODULE:FUNCTION, query text -> ranked ids or (id, score) "
                "pairs) on every query, timing each call; write its TREC run and timings, and "
                "score it when --qrels is given")
TARGET_HELP = ("the retriever: MODULE:FUNCTION (a module importable from the current "
               "directory, or a path to a .py file, then the name of a callable in it; "
               "MODULE:FACTORY() calls FACTORY with no arguments first to build it)")
QUERIES_HELP = "the queries file (BEIR queries.jsonl, JSONL, CSV/TSV with query_id and text)"
OUT_HELP = "where to write the TREC run"
TIMINGS_OUT_HELP = ("where to write the timings (CSV: " + ",".join(TIMINGS_COLUMNS) + "; "
                    "default: the run's file name with .timings.csv)")
WARMUP_HELP = "calls made first and not counted (the first queries' texts, again from the top)"
CONCURRENCY_HELP = (f"calls at once, on as many worker threads, warm-up included (1 to "
                    f"{MAX_CONCURRENCY})")
TIMEOUT_HELP = "seconds a call may take before it is recorded as a failure of its query"
DEPTH_HELP = f"ids kept of each list (default {DEFAULT_DEPTH})"
EVAL_K_HELP = f"with --qrels: the K the figures are read at (default {DEFAULT_K})"
NAME_HELP = "the run's name, its TREC tag and the timings' run column (default: --out's stem)"

# the adapters of retrieval frameworks (metrics.context.frameworks): the metadata field a
# document's id is read from, and the one a LangChain document's score may stand in
DEFAULT_ID_FIELD = "id"
DEFAULT_SCORE_FIELD = "score"
LANGCHAIN_EXTRA = 'pip install -e ".[langchain]" (langchain-core)'
LLAMAINDEX_EXTRA = 'pip install -e ".[llamaindex]" (llama-index-core)'
