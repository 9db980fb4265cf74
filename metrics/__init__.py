"""Ranked-list retrieval metrics over one frozen, labelled query set.

Per-query figures first, means and intervals after; conventions stated, not implied. This
module is the whole public API: the dashboard, the report and scripts import ``metrics`` and
nothing below it. It is grouped in sections below (load, evaluate, compare and decide,
explain, context, snapshots, vocabulary, formatting, outputs); each name is imported from its
home the first time it is read (PEP 562), so ``import metrics`` loads nothing else, and a
script pays only for what it uses. No name lives in the command line (``metrics.cli``).

    import metrics
    evaluation = metrics.evaluate_files("qrels.txt", [metrics.RunSource("bm25.run")], k=10)
    comparison = metrics.compare_evaluation(evaluation)
"""

from __future__ import annotations

import importlib
from typing import Any

# section -> public name -> (home module, its name there; None for the module itself)
SECTIONS: dict[str, dict[str, tuple[str, str | None]]] = {
    "load": {
        **{name: ("metrics.io", name) for name in (
            "Qrels", "Run", "Queries", "Corpus", "LoadReport", "ReportLine", "CorpusReport",
            "QueriesReport", "load_qrels", "load_run", "load_queries", "read_corpus",
            "iter_documents", "mentioned_doc_ids", "queries_report", "FORMAT_EXAMPLES",
            "MAX_INPUT_BYTES", "MAX_LINE_BYTES", "SCORE_PRECISIONS")},
        **{name: ("metrics.core.files", name) for name in (
            "RunSource", "read_qrels", "read_run", "load_runs", "distinct_names",
            "evaluate_files", "rereader", "read_subtopics")},
        # the diversity measures' judgments: subtopic qrels and intent probabilities
        **{name: ("metrics.io.subtopics", name) for name in (
            "SubtopicQrels", "IntentProbabilities", "load_subtopic_qrels",
            "load_intent_probabilities", "SUBTOPIC_FORMATS")},
        "Subtopics": ("metrics.core.diversity", "Subtopics"),
        # one query's rows of a run or qrels file, read on demand in bounded memory
        # each query's latency, cost and tokens: the side file and a run's own columns
        **{name: ("metrics.io.timings", name) for name in (
            "RunTimings", "TimingsReport", "load_timings", "run_file_timings",
            "merge_timings", "check_runs")},
        **{name: ("metrics.io.one_query", name) for name in (
            "load_query_run", "load_query_qrels")},
        **{name: ("metrics.core.sample", name) for name in (
            "load_sample", "sample_qrels", "sample_runs", "SAMPLE_DIR")},
        **{name: ("metrics.io.names", name) for name in (
            "plain_name", "rename_refusal", "hidden_characters")},
        # what a command line names, read once, and the flags that name it: what every
        # program that reads runs shares (python -m metrics, python -m dashboard report)
        "Inputs": ("metrics.inputs.reading", "Inputs"),
        **{name: ("metrics.inputs.arguments", name) for name in (
            "command_parser", "UsageError", "run_guarded", "output_file", "to_stderr")},
    },
    "evaluate": {
        "Conventions": ("metrics.vocabulary.conventions", "Conventions"),
        "DEFAULT_SEED": ("metrics.vocabulary.conventions", "DEFAULT_SEED"),
        **{name: ("metrics.core.evaluate", name) for name in (
            "evaluate", "evaluate_prepared", "Evaluation", "RunEvaluation")},
        **{name: ("metrics.core.prepared", name) for name in ("prepare", "Prepared")},
        **{name: ("metrics.core.blocks", name) for name in (
            "evaluate_blocks", "BlockEvaluation", "BlockRun", "DEFAULT_BLOCK_QUERIES")},
        **{name: ("metrics.core.per_query", name) for name in ("long_table", "write_long")},
        # an evaluation read back from its saved per-query figures (--per-query-out)
        **{name: ("metrics.core.saved", name) for name in (
            "read_figures", "SavedEvaluation", "SavedRun", "query_lists", "QueryLists")},
        # standardised scores (issue 51): z-scores against a trec_eval -Z file or the runs
        **{name: ("metrics.core.standardise", name) for name in (
            "standardise", "Standardised")},
        **{name: ("metrics.io.standards", name) for name in ("load_standards", "Standards")},
        # gm_map (issue 51): a summary that is not a mean, its interval and paired difference
        **{name: ("metrics.core.geometric", name) for name in (
            "geometric_means", "geometric_difference_of", "geometric_differences",
            "GeometricDifference")},
        **{name: ("metrics.vocabulary.measures", name) for name in (
            "GM_MAP", "GEOMETRIC_SUMMARIES", "geometric_summary")},
        # runs held as Spark DataFrames (pip install -e ".[spark]"; pyspark loaded on use)
        **{name: ("metrics.spark.evaluate", name) for name in (
            "evaluate_spark", "spark_session", "SparkEvaluation", "SparkRun")},
        **{name: ("metrics.stats.intervals", name) for name in ("Interval", "bootstrap",
                                                                 "wilson")},
        **{name: ("metrics.core.diagnosis", name) for name in ("Suggestion", "Finding",
                                                                "LOW_RECALL")},
    },
    "compare and decide": {
        **{name: ("metrics.stats.comparison", name) for name in (
            "compare", "Comparison", "PairedTest", "CORRECTIONS", "DEFAULT_PERMUTATIONS",
            "regressions")},
        **{name: ("metrics.core.compare", name) for name in (
            "compare_evaluation", "metric_key", "comparison_settings")},
        # each run against the first: what every output compares unless told otherwise
        "baseline_comparison": ("metrics.decide.baseline", "baseline_comparison"),
        **{name: ("metrics.decide.headline", name) for name in (
            "headline", "headlines", "short_headline", "short_headlines", "headline_comparison")},
        **{name: ("metrics.decide.leaderboard", name) for name in (
            "leaderboard", "Leaderboard", "Standing", "all_pairs", "AllPairs",
            "anova_tables")},
        # many runs at once: the two-way ANOVA (query x run), the randomized and classic
        # Tukey HSD, the equivalence test, the topic-set-size design
        **{name: ("metrics.stats.anova", name) for name in (
            "two_way_anova", "TwoWayAnova", "Factor")},
        **{name: ("metrics.stats.tukey", name) for name in (
            "tukey_hsd", "tukey_hsd_figures", "TukeyHSD", "permuted_ranges",
            "studentized_range_pvalues")},
        **{name: ("metrics.stats.equivalence", name) for name in ("tost", "Equivalence")},
        **{name: ("metrics.stats.topic_set_size", name) for name in (
            "topic_set_size", "TopicSetSize", "t_test_queries", "anova_queries",
            "ci_queries", "expected_ci_width")},
        "topic_set_sizes": ("metrics.decide.power", "topic_set_sizes"),
        **{name: ("metrics.decide.best", name) for name in ("best_marks", "BestMarks")},
        **{name: ("metrics.decide.table", name) for name in ("run_table", "RunTable")},
        **{name: ("metrics.decide.budget", name) for name in (
            "Budget", "BudgetVerdict", "parse_budgets", "judge_comparison")},
        # what each query cost (latency, cost, tokens) beside what it scored, and its gate
        **{name: ("metrics.decide.latency", name) for name in (
            "Timed", "RunCost", "PairedCost", "CostFigure", "timed", "run_cost",
            "paired_cost", "pareto_front", "pareto_standing", "LatencyLimit",
            "parse_latency_limit", "parse_latency_limits", "judge_latency",
            "timing_report_lines")},
        **{name: ("metrics.decide.power", name) for name in ("power_table", "power_report")},
        **{name: ("metrics.stats.power", name) for name in (
            "PowerFigure", "min_detectable_difference", "queries_needed")},
        **{name: ("metrics.decide.risk", name) for name in (
            "risks", "Risk", "HarmLimit", "HarmVerdict", "parse_harm_limits", "harm_gate")},
        "is_harmed": ("metrics.stats.paired", "is_harmed"),
        **{name: ("metrics.decide.fragility", name) for name in (
            "fragility", "Fragility", "Flip")},
        **{name: ("metrics.stats.agreement", name) for name in ("Agreement", "agreement")},
        "measure_agreements": ("metrics.decide.agreement", "measure_agreements"),
        "label_agreement": ("metrics.context.judge", "label_agreement"),
        **{name: ("metrics.stats.agreement", name) for name in ("kendall_tau", "tau_ap")},
    },
    "explain": {
        **{name: ("metrics.explain.query", name) for name in (
            "explain_run", "RunExplanation", "query_row", "ideal_table", "list_length",
            "query_figures", "standardised_query", "top_ids", "STATUSES", "STATUS_MEANING")},
        **{name: ("metrics.explain.movement", name) for name in (
            "rank_movement", "movement_sentence", "query_grades", "side_by_side",
            "query_contribution", "MOVES")},
        **{name: ("metrics.explain.mismatch", name) for name in (
            "id_mismatches", "run_mismatches", "IdMismatch")},
        **{name: ("metrics.explain.facets", name) for name in ("facets", "Facet",
                                                                "slice_masks",
                                                                "default_facet")},
        **{name: ("metrics.explain.slices", name) for name in (
            "slice_evaluation", "filter_evaluation", "compare_slices", "Slice")},
        "find_queries": ("metrics.explain.search", "find_queries"),
        **{name: ("metrics.explain.figures", name) for name in (
            "explain_figures", "FigureExplanation")},
        **{name: ("metrics.explain.lists", name) for name in ("short_lists", "ShortLists")},
        **{name: ("metrics.explain.harmed", name) for name in ("harm_profile", "HarmProfile",
                                                               "Shared")},
    },
    "context": {
        **{name: ("metrics.context.cost", name) for name in (
            "costs", "chunk_tokens", "Cost", "ChunkTokens", "sweep_costs", "SweepCost")},
        **{name: ("metrics.context.leakage", name) for name in (
            "find_leaks", "retrieved_or_judged", "reads_as_sentence", "Leak", "Leakage")},
        **{name: ("metrics.context.labelling", name) for name in (
            "to_label", "ToLabel", "to_qrels_template", "trec_unwritable", "merge_labels",
            "labels_qrels", "merged_qrels", "rescore", "Rescored")},
        "to_label_summary": ("metrics.context.labelling", "summary"),
        "to_label_csv": ("metrics.context.labelling", "to_csv"),
        **{name: ("metrics.context.fusion", name) for name in (
            "fuse", "FusionRecipe", "recipe_from", "recipe_from_text", "cross_fitted_weights",
            "fusion_pool", "FusionPool",
            "CrossFit")},
        "write_trec_run": ("metrics.context.fusion", "write_trec"),
        **{name: ("metrics.context.overlap", name) for name in (
            "overlap", "query_overlap", "Overlap", "PairOverlap", "rbo_ext")},
        # labels from a model judge beside human ones; prediction-powered means
        **{name: ("metrics.context.judge", name) for name in (
            "judge_report", "JudgeReport", "UnderJudge", "GradeAgreement", "Coverage",
            "SampleCheck", "label_coverage", "grade_agreement", "sample_checks",
            "ppi_headlines", "ppi_regressions")},
        # a retriever called live on every query, each call timed (issue 49), and the
        # adapters of LangChain's and LlamaIndex's retrievers (their packages loaded on use)
        **{name: ("metrics.context.live", name) for name in (
            "evaluate_retriever", "LiveRun", "ranked_answer", "timings_text")},
        "LiveFailure": ("metrics.context.live", "Failure"),
        **{name: ("metrics.context.frameworks", name) for name in (
            "langchain_retriever", "llamaindex_retriever")},
        **{name: ("metrics.context.sampling", name) for name in ("sample_queries",
                                                                  "allocation")},
        **{name: ("metrics.stats.ppi", name) for name in ("ppi_mean", "clt_mean",
                                                           "tuned_lambda", "MeanEstimate")},
        **{name: ("metrics.stats.kappa", name) for name in ("cohens_kappa", "linear_weights",
                                                             "Kappa")},
    },
    "snapshots": {
        **{name: ("metrics.snapshot", name) for name in (
            "Snapshot", "SnapshotRun", "to_snapshot", "check_comparable",
            "compare_with_snapshot", "drift_rows", "evaluation_fingerprints", "same_run_note",
            "created_minute", "tool_version")},
        "snapshot_dumps": ("metrics.snapshot", "dumps"),
        "snapshot_loads": ("metrics.snapshot", "loads"),
        # a history of snapshots: the store, appending to it, and each figure's trend
        "HistoryStore": ("metrics.snapshot.history", "Store"),
        "history_append": ("metrics.snapshot.history", "append"),
        "history_trend": ("metrics.snapshot.history", "trend"),
        "HISTORY_TERMS": ("metrics.vocabulary.history", None),
    },
    "vocabulary": {
        "vocabulary": ("metrics.vocabulary", None),
        **{name: ("metrics.vocabulary", name) for name in (
            "MEASURES", "MEASURE_BY_KEY", "SUMMARY_MEASURES", "Measure", "COMPARED",
            "CATALOGUE", "STANDARD_RECALL",
            "CONVENTIONS", "CONVENTION_BY_FIELD", "Convention", "CLASS_MEANING",
            "QUERY_CLASSES", "LIMITS", "FACET_RULES", "SEARCH_RULE", "SLICE_MIN_QUERIES",
            "LEAKAGE_RULE", "LEAKAGE_RULES")},
        **{name: ("metrics.vocabulary.names", name) for name in (
            "Spec", "parse_measure", "parse_measures", "default_spec", "label_of",
            "NAME_EXAMPLES", "OFFERED_NAMES", "trec_eval_name")},
        "AGREEMENT_TERMS": ("metrics.vocabulary.agreement", "AGREEMENT_TERMS"),
        "JUDGE_TERMS": ("metrics.vocabulary.judge", "TERMS"),
        **{name: ("metrics.vocabulary.cutoffs", name) for name in (
            "SAMPLE_K", "DEFAULT_K", "MAX_K", "DASHBOARD_MAX_K", "MAX_SWEEP", "K_MEANING")},
        "PRIMARY": ("metrics.vocabulary.headline", "PRIMARY"),
        "HEADLINE_FAMILY": ("metrics.vocabulary.headline", "FAMILY"),
        **{name: ("metrics.vocabulary.leaderboard", name) for name in (
            "LEADERBOARD_TERMS", "BEST_MARK", "EVEN_MARK")},
        **{name: ("metrics.vocabulary.power", name) for name in (
            "POWER_MEANING", "POWER_METHOD", "TOPIC_SET_METHOD", "TOPIC_SET_MEANING")},
        **{name: ("metrics.vocabulary.tukey", name) for name in (
            "ALL_PAIRS_TESTS", "ALL_PAIRS_TEST_NAMES", "ANOVA_METHOD", "TUKEY_METHOD",
            "TUKEY_TERMS")},
        **{name: ("metrics.vocabulary.comparisons", name) for name in (
            "DECISIONS", "EQUIVALENCE_METHOD", "MANY_QUERIES")},
        **{name: ("metrics.vocabulary.conventions", name) for name in (
            "MIN_EFFECT", "min_effect_sentence")},
        **{name: ("metrics.vocabulary.risk", name) for name in ("HARM_DELTA", "RISK_ALPHAS")},
        "COST_MEANING": ("metrics.vocabulary.cost", "COST_MEANING"),
        "COST_UNIT": ("metrics.vocabulary.cost", "UNIT"),
        **{name: ("metrics.vocabulary.coverage", name) for name in ("FEW_QUERIES",
                                                                     "few_queries_note")},
    },
    "formatting": {
        "format": ("metrics.vocabulary.format", None),
        **{name: ("metrics.io.spreadsheet", name) for name in ("csv_cell", "FORMULA_STARTS")},
    },
    "outputs": {
        # the one writer of every file written: replaced whole or not at all
        **{name: ("metrics.io.writing", name) for name in ("write_text", "CannotWrite")},
        # what both front ends write: a paper's table, trec_eval's three columns, and the
        # report's contents (the Export page and python -m dashboard report lay it out)
        "latex_table": ("metrics.outputs.latex", "latex_table"),
        # a history's trend as rows, one a point with the change from the previous one
        "trend_rows": ("metrics.outputs.history", "trend_rows"),
        "trec_eval_text": ("metrics.outputs.trec_eval", "trec_eval_text"),
        # the pull request's Markdown, one writer: the dashboard's summary and compare's
        # comment (compare --format markdown, the Action's)
        "summary_markdown": ("metrics.outputs.markdown", "summary_markdown"),
        # the two-way ANOVA's table as written (the text table and the dashboard's)
        **{name: ("metrics.outputs.text", name) for name in ("anova_rows", "anova_margin")},
        **{name: ("metrics.outputs.report", name) for name in ("report_contents",
                                                                "ReportContents")},
    },
}

_HOMES: dict[str, tuple[str, str | None]] = {
    name: home for names in SECTIONS.values() for name, home in names.items()}
__all__ = list(_HOMES)  # noqa: PLE0605 - the names are bound on first read, by __getattr__


def __getattr__(name: str) -> Any:
    """A public name, imported from its home on first read and kept."""
    try:
        module, attribute = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module 'metrics' has no attribute {name!r}") from None
    found = importlib.import_module(module)
    value = found if attribute is None else getattr(found, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
