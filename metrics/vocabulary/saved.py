"""Saved figures (the long table `--per-query-out FILE.parquet` writes, read back by
`metrics.core.saved`): the key of what the file says about itself, and every sentence a view
of saved figures says about what it shows and what needs the runs. Pure words."""

from __future__ import annotations

# the Parquet schema's metadata key under which the writer records K, the conventions, the
# engine, the counts the table cannot carry and the sweep's means
METADATA_KEY = b"retrieval_compare.evaluation"
METADATA_VERSION = 1

SAVED_FROM = ("Saved figures from {file}: every scored query's figures at K = {k}, "
              "{queries} scored queries, {runs}; written by the {engine} engine.")
UNRECORDED = ("{file} does not record the K and conventions its figures were computed under "
              "(written before the writer recorded them, or by another tool): K = {k} is read "
              "from the table's K column and the default conventions are assumed for the "
              "intervals and tests ({seed_words}). Write the file again with "
              "`python -m metrics ... --per-query-out` to record them.")
RECOMPUTED = ("The means, intervals, paired tests, gates and leaderboard are computed again "
              "from these per-query figures, with the same seed and resamples as the command "
              "that wrote them: the same digits.")
SWEEP_SAVED = ("The sweep's means at every K of {low}..{high} were saved with the figures; "
               "{bands}")
SWEEP_BANDS_SAVED = "its bands too."
SWEEP_NO_BANDS = ("its bands were not (the in-memory engine does not compute them for "
                  "--per-query-out): give the runs and the qrels to see them.")
SWEEP_ABSENT = ("This file holds each query's figures at K = {k} only, and no sweep over K "
                "(written before the writer saved the sweep, or by another tool): the K "
                "sweep needs the runs and the qrels. Open them under My files (Qrels and "
                "Runs), or write the file again with `python -m metrics ... --per-query-out`.")

# what a view of saved figures cannot give, and what to give to get it
NEEDS_LISTS: dict[str, str] = {
    "k": "another K than the saved one (K is fixed by the file: the figures at other K "
         "were not kept)",
    "conventions": "other conventions (recall denominator, gain, relevance level...: each "
                   "changes every query's figure)",
    "measures": "figures not saved (More measures), and the precision-recall curve",
    "drilldown": "the drill-down and rank movement (one query's ranked lists)",
    "classes": "query classes, the k suggestion and each run's reading in words (they read "
               "the first relevant rank and R of every query)",
    "fragility": "the fragility check (it rescores under other conventions)",
    "overlap": "overlap between runs, leakage, what to label next and the texts (they read "
               "the ids retrieved)",
    "snapshots": "snapshots and drift (a snapshot fingerprints the qrels and the runs)",
    "judge": "the judge's labels beside the human ones (each label set scores every run "
             "again)",
    "report": "the HTML report and the pull-request summary (they write each query's lists, "
              "classes and the load report)",
}
EXPORTS_FROM_FIGURES = ("The LaTeX table and the CSVs below are written from the saved figures "
                        "alone; the per-query CSV leaves each query's class blank (it reads the "
                        "lists).")
GIVE_RUNS = ("To get them, open the qrels and the run files the figures were computed from "
             "under My files (Qrels and Runs) without an evaluation file; to keep the saved "
             "figures and read one query's lists on demand, give the qrels and the runs beside "
             "the evaluation file.")
DRILLDOWN_NEEDS = ("The drill-down reads one query's ranked lists from the run files and its "
                   "labels from the qrels: give the qrels and the run files these figures "
                   "were computed from (sidebar, under the evaluation file). Only that query's "
                   "rows are read.")
DRILLDOWN_FROM_FILES = ("Query {query}'s lists read on demand from the run files (only its "
                        "rows), its labels from the qrels; the figures beside them are the "
                        "saved ones at K = {k}.")
DRILLDOWN_MISSING_RUN = ("No run file named {run} was given: give it beside the others to see "
                         "its list.")

# the dashboard's controls for saved figures
OPEN_LABEL = "Open an evaluation (saved figures)"
OPEN_HELP = ("The Parquet file `python -m metrics ... --per-query-out FILE.parquet` writes "
             "(either engine): every scored query's figures at K. Overview, Compare, the "
             "heatmap, the K sweep and every decision are computed from it alone, without "
             "the runs; give the qrels and the runs below as well to read one query's lists "
             "in the drill-down. Remove it (its ✕) to score the qrels and runs instead.")
SIDE_FILES = ("Beside saved figures, the qrels and run files are not scored: only the rows of "
              "the query a page explains are read (Parquet: the row groups that can hold it; "
              "text: one line at a time). Each run file goes with the saved run of its name "
              "(the file name without its extensions).")
COMMAND_LINE = ("Opened from the command line: {file}. Upload another evaluation here to "
                "replace it.")
FIXED_SETTINGS = ("K = {k} and the conventions are the file's (below): the figures at other "
                  "K or under other conventions were not saved.")
NO_FIGURES_YET = ("The evaluation file was refused, so nothing can be shown: {error}")
