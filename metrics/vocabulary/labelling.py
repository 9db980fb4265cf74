"""What to label next: the words of the list of unjudged ids a labeller should grade first.

An id nobody judged counts as non-relevant, so every figure at K that reads it rests on a
guess; labelling the ids the runs rank highest, and that most runs agree on, firms up the
most figures per label. Pure words and numbers; metrics/labelling.py applies them, the
command line and the dashboard print them.
"""

from __future__ import annotations

from metrics.vocabulary.format import DECIMALS, count, signed

UNJUDGED = (
    "An unjudged id is one a run returns in its top K, at its first occurrence in that run's "
    "list (a repeat below it counts once, at the higher rank), that the qrels hold no judgment "
    "for on that query. A judgment of grade 0 or less is a judgment: such an id is judged "
    "non-relevant, not unjudged."
)

ORDER_RULE = (
    "Ids are listed by how many of the chosen runs rank them in their top K (most first), then "
    "by their best rank, then by their mean rank over those runs, then in the query set's "
    "order, then by doc id."
)

# the columns of the list, in the order the CSV writes them, with what each holds
PRIORITY, QUERY_ID, DOC_ID, RUNS, BEST_RANK, MEAN_RANK, RANKED_BY = (
    "priority", "query_id", "doc_id", "runs", "best_rank", "mean_rank", "ranked_by",
)
COLUMNS = {
    PRIORITY: "Position in the labelling order, 1 first: the order survives a re-sort.",
    QUERY_ID: "The query the id was returned for.",
    DOC_ID: "The unjudged id.",
    RUNS: "How many of the chosen runs rank the id in their top K.",
    BEST_RANK: "The highest place any of those runs gives it (the smallest rank, 1 = top).",
    MEAN_RANK: "Its mean rank over the runs that rank it in their top K (not over every run).",
    RANKED_BY: "The names of those runs, in the order the runs were chosen.",
}
RANKED_BY_JOIN = ", "  # between the run names of one row
MEAN_RANK_DECIMALS = 2  # a mean of a few ranks: two decimals tell 2.5 from 2.67

QRELS_TEMPLATE = (
    "A TREC qrels file to fill in: one line per unjudged id, 'query_id 0 doc_id ' with the "
    "grade column left empty, in the query set's order and, within a query, in labelling order. "
    "Type each grade at the end of its line (an integer; 0 for non-relevant), delete the lines "
    "left unlabelled, and add the lines to the qrels: every line needs its grade before the "
    "file loads."
)
TREC_WRITABLE = (
    "A TREC file separates its columns by white space and skips a line that starts with '#': "
    "an id that holds a space, a tab, a line break or a NUL byte, an empty id, or a query id "
    "that starts with '#' cannot be written as a column of one; nor can an id holding a "
    "control or format character (ESC, a bidirectional override, a zero-width space), which "
    "the template would have to carry raw. Label such ids from the CSV (which writes those "
    "characters as escapes) or the JSON (--format json, every id exactly)."
)

# the one line shown with the list: {ids} and {queries} are counts with their nouns,
# {k} the cutoff, {runs} the chosen runs as a count; {queries} are those holding an id
SUMMARY = ("{ids} in the top {k} of {runs} across {queries}; labelling {them} firms up every "
           "figure at K.")
NOTHING = ("No unjudged id in the top {k} of {runs} across {queries}: every figure at K reads "
           "judged ids only.")


def to_label_sentence(ids: int, *, k: int, runs: int, queries: int, checked: int) -> str:
    """'412 unjudged ids in the top 10 of 3 runs across 87 queries; labelling them firms up
    every figure at K.' `queries` hold at least one of the ids; `checked` were looked at
    (the sentence names them when there is nothing to label)."""
    if not ids:
        return NOTHING.format(k=f"{k:,}", runs=count(runs, "run"),
                              queries=count(checked, "query"))
    return SUMMARY.format(ids=count(ids, "unjudged id"), k=f"{k:,}", runs=count(runs, "run"),
                          queries=count(queries, "query"), them="it" if ids == 1 else "them")


# --- grades given by hand (the dashboard's inline judging) ----------------------------------

MY_LABELS = (
    "Grades given here are yours and this session's: every page keeps reading the loaded "
    "qrels, unchanged. Download them (alone, or merged with the loaded qrels) and load the "
    "merged file to score with them; 'Rescore with my labels' shows what they would change."
)
MY_LABELS_FILE = ("Your grades as TREC qrels lines, 'query_id 0 doc_id grade', in the order "
                  "given: add them to the qrels, or load the merged file.")
MERGED_FILE = ("The loaded qrels with your grades added, as TREC qrels: every judgment of the "
               "loaded file, then yours. Load it as the qrels to score with them.")
ONLY_UNJUDGED = ("Only an unjudged id can be graded here: an id the qrels judge keeps its "
                 "grade (change it in the qrels file).")
RESCORED = ("With your {labels}, {changed} of {queries} {verb} on at least one measure in "
            "at least one run; {means}. The means below read the loaded qrels and then the "
            "merged ones, at the same K and conventions.")


def rescored_sentence(labels: int, changed: int, queries: int, means_changed: int,
                      means: int) -> str:
    """'With your 3 labels, 2 of 1,500 scored queries change ...; 4 of the 16 means below
    change at 3 decimals. ...': the means counted as the table writes them, so that a
    change too small to show is said, never left to read as +0.000 beside 'changes'."""
    if means_changed:
        said = (f"{means_changed:,} of the {means:,} means below "
                f"{'changes' if means_changed == 1 else 'change'} at {DECIMALS} decimals")
    elif changed:  # a change on a few queries, averaged over many, rounds to zero
        said = (f"averaged over every query, no mean below changes at {DECIMALS} decimals: "
                f"each change is smaller than {0.5 * 10 ** -DECIMALS:g}, written "
                f"{signed(0.0)}")
    else:
        said = "no mean below changes"
    return RESCORED.format(labels=count(labels, "label"), changed=f"{changed:,}",
                           queries=count(queries, "scored query", "scored queries"),
                           verb="changes" if changed == 1 else "change", means=said)
