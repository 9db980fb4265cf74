"""Ranked-list retrieval metrics over one frozen, labelled query set.

Per-query arrays at every K first, means and intervals after; conventions stated, not implied.
"""

from metrics.conventions import DEFAULT_SEED, Conventions
from metrics.diagnose import CLASS_MEANING, QUERY_CLASSES, Finding, Suggestion
from metrics.evaluate import (
    Evaluation,
    Prepared,
    RunEvaluation,
    evaluate,
    evaluate_prepared,
    prepare,
)
from metrics.files import RunSource, evaluate_files
from metrics.intervals import Interval, bootstrap, wilson
from metrics.io import LoadReport, Qrels, ReportLine, Run, load_qrels, load_run
from metrics.measures import MEASURE_BY_KEY, MEASURES, SUMMARY_MEASURES, Measure
from metrics.sample import SAMPLE_K, load_sample

__all__ = [
    "CLASS_MEANING",
    "DEFAULT_SEED",
    "MEASURES",
    "MEASURE_BY_KEY",
    "QUERY_CLASSES",
    "SAMPLE_K",
    "SUMMARY_MEASURES",
    "Conventions",
    "Evaluation",
    "Finding",
    "Interval",
    "LoadReport",
    "Measure",
    "Prepared",
    "Qrels",
    "ReportLine",
    "Run",
    "RunEvaluation",
    "RunSource",
    "Suggestion",
    "bootstrap",
    "evaluate",
    "evaluate_prepared",
    "evaluate_files",
    "load_qrels",
    "load_run",
    "load_sample",
    "prepare",
    "wilson",
]
