"""What every column and control the dashboard shows means, declared once by keyword: the
tooltip of a table's column or a figure's tile (``COLUMN_MEANING``) and of a widget, an upload
or a download (``CONTROL_HELP``).

A meaning that needs a value (a run's name, a K, a count, a confidence level) is a template
with named fields, formatted by the caller with ``.format(...)``; ``FIELDS`` lists each
template's fields. Figures, levels and p-values are passed as ``metrics.format`` writes them;
counts are passed as ints and written by the template. Pure: no numpy, no pandas.

A meaning declared elsewhere is read from there, not restated: a measure's
(``MEASURE_BY_KEY``), a query class's (``CLASS_MEANING``), a convention's sentence
(``Conventions.sentences()``), a correction's, K's, a feature's (``risk``, ``cost``,
``overlap``, ``fusion``, ``leaderboard``...).
"""

from __future__ import annotations

from metrics.vocabulary.comparisons import CORRECTION_MEANING, SIGNIFICANCE_RULE
from metrics.vocabulary.cutoffs import SAMPLE_K
from metrics.vocabulary.format import MISSING
from metrics.vocabulary.headline import PRIMARY_MEANING
from metrics.vocabulary.measures import CLASS_MEANING
from metrics.vocabulary.timings import TIMINGS_HEADER

# the file formats every labels and runs upload reads
FORMATS = ("TREC, BEIR TSV, CSV/TSV with a header, JSONL, or Parquet with the same columns; "
           "gzipped files (.gz) are read too.")

# the long table of per-query figures (--per-query-out FILE.parquet): column -> meaning
PER_QUERY_COLUMNS: dict[str, str] = {
    "query_id": "The query, as the qrels name it.",
    "run": "The run, as the evaluation names it.",
    "measure": "The figure's name without its cutoff (nDCG, P(rel=2), Rprec).",
    "k": "The cutoff the figure is read at; empty for a figure of the whole list.",
    "value": "The query's figure.",
}

COLUMN_MEANING: dict[str, str] = {
    # a paired comparison: the table of each candidate, and its slices
    "baseline_mean": "The baseline's mean.",
    "run_mean": "{run}'s mean.",
    "run_metric": "{metric} of {run}.",
    "difference": "Mean of the per-query differences (after − before).",
    "difference_interval": "{level} paired {bootstrap} interval of the difference.",
    "p": "Two-sided paired randomization test, before correction.",
    "p_adjusted": "p adjusted: {correction} over the {n} comparisons shown.",
    "p_adjusted_slices": "{correction} over the {n} slices shown.",
    "p_t": "Paired t-test.",
    "p_wilcoxon": "Wilcoxon signed-rank test.",
    "effect_size": "Mean difference over the standard deviation of the differences; undefined "
    "when every query moved by the same amount.",
    "pair_p": "Adjusted p of this run against each column's run, on {metric}.",
    # the ids of one query: their texts, grades and ranks
    "question": "The query's text (hover a cell to read all of it).",
    "chunk": "The id's title and text from the corpus file (hover a cell to read it all).",
    "grade_unjudged": f"{MISSING}: unjudged.",
    "grade_status": "The id's grade and what the engine made of it.",
    "rank_in_run": f"Rank in {{run}}, first occurrence; {MISSING}: not returned.",
    "ideal_rank_in_run": f"Where {{run}} first returned this id; {MISSING}: never returned, "
    "which still lowers its nDCG.",
    "places_climbed": "Positive: higher in the candidate.",
    "query_figure": "{run}'s value on this query at K, as the engine scored it.",
    "query_figures": "Each run's value on this query at K, as the engine scored it.",
    "query_class": "What the run's top K holds for this query (full, partial, late hit, miss).",
    "in_other_run": "Where this id first sits in {run}'s list; not retrieved: its list does "
    "not hold it.",
    "contribution": "This query's difference divided by the {n:,} scored queries: what it adds "
    "to the mean difference.",
    "mean_difference": "The mean of the per-query differences over every scored query.",
    "query_difference": "{b} minus {a} on this query.",
    "my_grade": "Your grade for this id on this query (this session only).",
    "rescored_before": "The mean with the loaded qrels.",
    "rescored_after": "The mean with the loaded qrels and your labels.",
    "moved": "What {run} did with the id.",
    # DCG and AP written out rank by rank
    "discount": "The discount log2(rank + 1).",
    "running_dcg": "The running DCG at this rank, from the engine.",
    "running_idcg": "IDCG at this rank, from the engine.",
    "within_k": "Counted by IDCG@K.",
    "precision_there": "Precision at that rank, from the engine.",
    # the summary and its slices
    "metric_at_k": "Each metric read at the chosen K.",
    "run_summary": "Mean over the {n:,} scored queries [low, high] of its {level} interval.",
    "slice_queries": "Scored queries in the slice.",
    "slice_mean": "Mean {metric} over the slice's queries [low, high] of its {level} interval.",
    "mean_interval": "Mean [low, high] of its interval.",
    "run_table_cell": "The run's mean at K, then its difference from the baseline; ▲ or ▼: "
    "significantly better or worse (the test and correction are named under the table).",
    "k": "The cutoff.",
    # the precision-recall curve
    "recall_level": "The recall level: the share of the query's relevant ids found so far.",
    "interpolated_precision": "{run}'s mean interpolated precision at this recall level: the "
    "best precision at any rank that reaches it.",
    # rank agreement: two orderings of the runs
    "agreement_against": "The figure whose ordering of the runs is set against the headline "
    "metric's.",
    # what was scored, per run
    "scored": "Queries with at least one relevant id.",
    "excluded": CLASS_MEANING["excluded"].capitalize() + "; left out of every average.",
    "class_count": "Queries where {meaning} (at K = {k}).",
    "repeats": "Repeated ids over the scored queries' lists: each keeps its rank slot and "
    "scores nothing.",
    "missing": "Qrels queries the run has no list for: they score 0.",
    "not_in_qrels": "Run queries absent from the qrels: ignored.",
    "dropped": "Lines of the run file that were read but not used (see the load report).",
    # snapshots
    "snapshot": "When it was saved, and its label.",
    "lists_fingerprint": "SHA-256 of the run's ranked lists as scored: when it changes, the "
    "run returned other lists; when it holds, the figures cannot move.",
    # harm and fragility: {delta} as risk.delta_words writes it, {low} and {high} as risk.share
    "harmed": "Share of queries losing more than {delta}, with its {level} Wilson interval.",
    "harmed_count": "{harmed:,} of {n:,}; {level} Wilson interval [{low}, {high}].",
    "flip_under": "The other choice, every other convention as in the sidebar.",
    "shared_feature": "A word of the queries' texts, or a facet value.",
    "shared_harmed": "How many of the harmed queries hold it.",
    "shared_rest": "How many of the other scored queries hold it.",
    "shared_lift": "Its share among the harmed queries over its share among the others "
    "(undefined when none of the others holds it).",
    "shared_q": "One-sided hypergeometric (Fisher's exact) test, Benjamini-Hochberg over every "
    "feature weighed.",
    "flip_becomes": "The verdict under that choice.",
    # a fusion of two runs, cross-fitted, against each run alone
    "cross_fitted": "[{low}, {high}]: each query scored at the weight the other half chose; "
    "the delta is its difference from the better run alone.",
    "run_alone": "Its mean at K, with its interval: [{low}, {high}].",
}

CONTROL_HELP: dict[str, str] = {
    # the sidebar: the data, the runs shown, snapshots, fusion
    "source": f"The bundled sample (seed 000: 10 queries, 3 runs, K = {SAMPLE_K}) or your own "
    "qrels and runs over one frozen query set.",
    "qrels_file": "query_id, doc_id, grade (qid, docid or pid, relevance or label are read "
    f"too). {FORMATS} Leave empty if your first run is a JSONL file whose records carry both "
    "'retrieved' and 'relevant'.",
    "judge_file": "A model judge's labels over the same queries, in any qrels format "
    f"(query_id, doc_id, grade). {FORMATS} The Qrels box then holds the human labels, which "
    "may cover only a random sample of the queries: the Judge labels page sets the two side "
    "by side and corrects the judge with prediction-powered intervals.",
    "subtopics_file": "The diversity track's subtopic judgments, 'query_id subtopic_id doc_id "
    "grade' (TREC Web track format; or a CSV/TSV with those columns, or Parquet), beside the "
    "qrels: the diversity measures of More measures (alpha_nDCG, ERR_IA, nERR_IA, NRBP, P_IA, "
    "AP_IA, StRecall) read them, as ndeval does.",
    "timings_file": "Each query's latency (and cost, tokens) under each run: a CSV/TSV with "
    f"the header {TIMINGS_HEADER}, runs named as the sidebar names them before any rename. "
    "A CSV/TSV/Parquet run may carry the latency_ms, cost and tokens columns itself. The "
    "Overview and Compare then set each run's headline figure against its p95 latency (or "
    "mean cost), with intervals both ways.",
    "tradeoff_axis": "What the trade-off chart puts across: a latency quantile or a mean cost, "
    "each with its interval over the resampled queries.",
    "labels": "Which labels every page scores against: the human qrels, or the judge's "
    "(every figure then carries the judge's errors uncorrected; the Judge labels page "
    "measures them).",
    "ppi_lambda": "The weight on the judge's labels: PPI++ tunes it per figure to make the "
    "interval narrowest; plain PPI fixes it at 1.",
    "runs_file": f"query_id, doc_id and rank or score (qid, docid or pid are read too). {FORMATS}"
    " Each run is named after its file; rename, hide and reorder below.",
    "queries_file": "query_id and text, and any other column (or BEIR metadata key) as a facet "
    "to slice the figures by: TSV query_id<TAB>text, BEIR queries.jsonl, JSONL, or CSV/TSV "
    "with a header; gzipped files (.gz) are read too.",
    "corpus_file": "doc_id and text (and a title) of the chunks: BEIR corpus.jsonl, JSONL with "
    "doc_id, or TSV doc_id<TAB>text; gzipped files (.gz) are read too. Only the ids the qrels "
    "and the runs mention are kept.",
    "runs_shown": "Shown in the order picked; the first is the baseline every view compares "
    "against. Remove a run to hide it; remove it and add it back to move it to the end.",
    "save_snapshot": "A JSON file of the figures shown now (over every query, whatever the "
    "filter), stamped with the time you click.",
    "load_snapshots": "Snapshot files saved here or written by `python -m metrics snapshot`.",
    "load_history": "A history store's index.jsonl and its snapshot files (snapshots/*.json), "
    "as `python -m metrics history append --store DIR` writes them: select them all.",
    "fuse_runs": "Two or more runs, fused over their full lists.",
    "fuse_weight": "The other run weighs 1 − this.",
    "fuse_remove": "Remove this fused run",
    # more measures: the figures every view shows beside the default ones
    "more_measures": "Scored on request and shown beside the default figures on every page: "
    "pick one, or type any name ir_measures or trec_eval reads, e.g. P(rel=2)@5, "
    "nDCG(dcg=exp-log2)@10, AP(judged_only=True), RBP(p=0.9), ERR@20, ndcg_cut_10, map. A name "
    "without @K is read as the conventions read it (at the K above, or over the full list for "
    "RR and AP read so); a cutoff after @ is always read at; a parameter holds for that figure "
    "alone and is stated beside it.",
    # Compare: the comparison, the headline, the query-by-query review
    "baseline": "Defaults to the first run shown in the sidebar. A snapshot's run compares its "
    "frozen per-query figures with the live runs (same query set, K and conventions only).",
    "candidates": "Each is compared with the baseline, query by query.",
    "metrics": "Every (candidate, metric) pair shown is one comparison of the family the "
    "correction covers: more metrics, stricter adjusted p. Judged@K is left out by default: it "
    "measures the labels' reach, not the ranking.",
    "correction": "; ".join(CORRECTION_MEANING.values()) + ".",
    "alpha": f"{SIGNIFICANCE_RULE.capitalize()} alpha.",
    "primary": f"{PRIMARY_MEANING.capitalize()}.",
    "all_pairs": "Every pair by the paired randomization test, one correction over the pairs: "
    "the runs' significance letters and the matrix of adjusted p (a fraction of a second per "
    "pair on thousands of queries).",
    "compare_metric": "The metric the charts, the gains and the losses show.",
    "compare_candidate": "Whose biggest gains and losses, and rank movement, to list.",
    "movement_query": "Largest gain in {metric} first; a click in the gains or losses picks a "
    "query too.",
    "depth": "The ids either run returned down to this rank; relevant ids are shown wherever "
    "they are.",
    # Overview, K sweep, heatmap, drill-down, drift
    "mark_best": "Tests every run against each metric's best, query by query (a paired "
    "randomization test per run and metric, Holm over all of them): a second or so on "
    "thousands of queries.",
    "slice_metric": "The figure each cell shows, over the slice's queries only.",
    "sweep_metrics": "Each metric gets its own panel; every panel has the same 0-1 scale.",
    "sweep_bands": "Shade each run's interval at every K: {methods}, at the confidence level "
    "set in the sidebar.",
    "heatmap_metric": "Colours the cells and drives the sort.",
    "heatmap_sort": "Ties keep the query-id order.",
    "rows_per_page": "Queries a page of the chart shows, at most {most}; the table view below "
    "holds every scored query.",
    "page": "{pages:,} pages of {rows:,} queries in the chosen order: page 1 starts with the "
    "first.",
    "every_metric": "One panel per metric instead of the chosen one only.",
    "drilldown_query": "Scored queries only: a query with no relevant id cannot be scored "
    "({excluded} excluded).",
    "whole_list": "Show every returned rank ({longest:,} here), not only the top K = {k}.",
    "previous_query": "The query before this one in the list (key P).",
    "next_query": "The query after this one in the list (key N).",
    "present": "The evaluation as full-width slides a room can follow, without the sidebar "
               "or the controls: what was compared, the headline, the K sweep, what the "
               "candidate wins and loses, what it costs, the caveats. The link carries it "
               "(present=1) and the slide shown (slide=4).",
    "next_slide": "The next slide (keys →, Page Down, space).",
    "previous_slide": "The slide before (keys ←, Page Up).",
    "leave_present": "Back to the pages and the sidebar.",
    "slides_pdf": "Every slide as one PDF, a 16:9 page a slide, its text at 18 pt or more.",
    "slides_png": "Every slide as a 1920 x 1080 PNG, in a ZIP, named in order.",
    "side_a": "The run on the left; the baseline by default.",
    "side_b": "The run on the right, compared with the left one on this query.",
    "judge": "Grade this unjudged id: 0 for non-relevant, higher for more relevant. Click the "
    "chosen grade again to take it back.",
    "my_labels_qrels": "Your grades alone, as TREC qrels lines.",
    "merged_qrels": "The loaded qrels with your grades added, as TREC qrels: load it as the "
    "qrels to score with them.",
    "rescore": "Score every run again with your grades added, and show what changes; the "
    "pages keep reading the loaded qrels.",
    "clear_labels": "Forget every grade given in this session.",
    "apply_snapshot": "Re-scores the live runs with the snapshot's K and conventions.",
    "drift_metric": "The metric whose figures the table shows, for every snapshot and run.",
    # downloads: what each file holds
    "chart_image": "This chart as a {kind} image, rendered when you click (as the report draws "
    "it, in the light theme).",
    "report_html": "Built when you click (a few seconds: the charts are rendered to SVG).",
    "summary_csv": "One row per run and metric: mean, low, high, interval method.",
    "per_query_csv": "One row per run and scored query: every measure at K.",
    "comparison_csv": "One row per candidate and metric, p-values unrounded.",
    "overlap_csv": "One row per pair: every figure's mean and bounds, as the command line's "
    "JSON.",
    "to_label_csv": "One row per query and id, most wanted first.",
    "latex_table": "A booktabs table: load the booktabs and graphicx packages in the preamble, "
    "then input the file where the table goes (it shrinks to the text's width when wider).",
    "pr_curve": "Each run's interpolated precision at trec_eval's 11 recall levels, computed "
    "when you switch it on.",
    "worst_csv": "Every query the candidate scores lower on this metric, worst first: the "
    "question, both figures, the difference, and each run's top chunks.",
}

# the templates above (of either table) -> the fields their caller passes to .format
FIELDS: dict[str, tuple[str, ...]] = {
    "run_mean": ("run",),
    "run_metric": ("metric", "run"),
    "difference_interval": ("level", "bootstrap"),
    "p_adjusted": ("correction", "n"),
    "p_adjusted_slices": ("correction", "n"),
    "pair_p": ("metric",),
    "rank_in_run": ("run",),
    "ideal_rank_in_run": ("run",),
    "moved": ("run",),
    "run_summary": ("n", "level"),
    "slice_mean": ("metric", "level"),
    "class_count": ("meaning", "k"),
    "harmed": ("delta", "level"),
    "harmed_count": ("harmed", "n", "level", "low", "high"),
    "cross_fitted": ("low", "high"),
    "interpolated_precision": ("run",),
    "run_alone": ("low", "high"),
    "sweep_bands": ("methods",),
    "rows_per_page": ("most",),
    "page": ("pages", "rows"),
    "movement_query": ("metric",),
    "drilldown_query": ("excluded",),
    "whole_list": ("k", "longest"),
    "query_figure": ("run",),
    "in_other_run": ("run",),
    "contribution": ("n",),
    "query_difference": ("a", "b"),
    "chart_image": ("kind",),
}
