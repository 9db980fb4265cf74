"""Ranked-list retrieval metrics over one frozen, labelled query set.

Per-query arrays at every K first, means and intervals after; conventions stated, not implied.
This module is the whole public API: the dashboard, the report and scripts import `metrics`
and nothing below it.
"""

from metrics import format, vocabulary
from metrics.cli import (
    Parser,
    UsageError,
    add_input_arguments,
    evaluation_from,
    print_load_report,
    run_guarded,
)
from metrics.compare import (
    CORRECTIONS,
    DEFAULT_PERMUTATIONS,
    Comparison,
    PairedTest,
    compare,
    compare_evaluation,
    metric_key,
    regressions,
)
from metrics.conventions import DEFAULT_SEED, Conventions
from metrics.diagnose import LOW_RECALL, Finding, Suggestion
from metrics.evaluate import (
    Evaluation,
    Prepared,
    RunEvaluation,
    evaluate,
    evaluate_prepared,
    prepare,
)
from metrics.explain import (
    STATUS_MEANING,
    STATUSES,
    RunExplanation,
    explain_run,
    ideal_table,
    list_length,
    query_row,
)
from metrics.files import (
    RunSource,
    distinct_names,
    evaluate_files,
    load_runs,
    read_qrels,
    read_run,
)
from metrics.intervals import Interval, bootstrap, wilson
from metrics.io import SCORE_PRECISIONS, LoadReport, Qrels, ReportLine, Run, load_qrels, load_run
from metrics.movement import MOVES, movement_sentence, query_grades, rank_movement
from metrics.sample import SAMPLE_DIR, SAMPLE_K, load_sample, sample_qrels, sample_runs
from metrics.snapshot import (
    Snapshot,
    SnapshotRun,
    check_comparable,
    compare_with_snapshot,
    created_minute,
    drift_rows,
    evaluation_fingerprints,
    to_snapshot,
    tool_version,
)
from metrics.snapshot import dumps as snapshot_dumps
from metrics.snapshot import loads as snapshot_loads
from metrics.vocabulary import (
    CLASS_MEANING,
    COMPARED,
    CONVENTION_BY_FIELD,
    CONVENTIONS,
    LIMITS,
    MEASURE_BY_KEY,
    MEASURES,
    QUERY_CLASSES,
    SUMMARY_MEASURES,
    Convention,
    Measure,
)

__all__ = [
    "STATUS_MEANING",
    "Parser",
    "UsageError",
    "add_input_arguments",
    "evaluation_from",
    "print_load_report",
    "run_guarded",
    "Snapshot",
    "SnapshotRun",
    "SCORE_PRECISIONS",
    "CLASS_MEANING",
    "COMPARED",
    "CONVENTIONS",
    "CONVENTION_BY_FIELD",
    "CORRECTIONS",
    "DEFAULT_PERMUTATIONS",
    "DEFAULT_SEED",
    "LIMITS",
    "LOW_RECALL",
    "MEASURES",
    "MEASURE_BY_KEY",
    "MOVES",
    "QUERY_CLASSES",
    "SAMPLE_DIR",
    "SAMPLE_K",
    "STATUSES",
    "SUMMARY_MEASURES",
    "Comparison",
    "Convention",
    "Conventions",
    "Evaluation",
    "Finding",
    "Interval",
    "LoadReport",
    "Measure",
    "PairedTest",
    "Prepared",
    "Qrels",
    "ReportLine",
    "Run",
    "RunEvaluation",
    "RunExplanation",
    "RunSource",
    "Suggestion",
    "bootstrap",
    "check_comparable",
    "compare",
    "compare_evaluation",
    "compare_with_snapshot",
    "created_minute",
    "distinct_names",
    "drift_rows",
    "evaluate",
    "evaluate_files",
    "evaluate_prepared",
    "evaluation_fingerprints",
    "explain_run",
    "format",
    "ideal_table",
    "list_length",
    "load_qrels",
    "load_run",
    "load_runs",
    "load_sample",
    "metric_key",
    "movement_sentence",
    "prepare",
    "query_grades",
    "query_row",
    "rank_movement",
    "read_qrels",
    "read_run",
    "regressions",
    "sample_qrels",
    "sample_runs",
    "snapshot_dumps",
    "snapshot_loads",
    "to_snapshot",
    "tool_version",
    "vocabulary",
    "wilson",
]
