"""Rank movement: where each id sits in the baseline's list and in a candidate's, for one
query, and what the candidate did to the top K, in words naming the ids; the two lists side
by side, rank by rank; and what one query contributes to the mean difference of two runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.core.kernel import SUMMARY_MEASURES
from metrics.explain.query import _labels, doc_ids, first_ranks, query_row
from metrics.vocabulary.format import count, listing, natural_key

if TYPE_CHECKING:
    import pandas as pd

MOVES = {
    # (relevant, in the baseline's top K, in the candidate's top K) -> what happened
    (True, False, True): "lifted into the top K",
    (True, True, False): "pushed out of the top K",
    (True, True, True): "kept in the top K",
    (True, False, False): "still outside the top K",
    (False, False, True): "noise promoted into the top K",
    (False, True, False): "noise pushed out of the top K",
    (False, True, True): "noise kept in the top K",
    (False, False, False): "noise outside the top K",
}


def query_grades(evaluation: Evaluation, query_id: str) -> dict[str, int]:
    """doc id -> grade of every judgment of the query (absent: unjudged)."""
    qrels = evaluation.qrels
    mine = qrels.query == query_id
    return {str(d): int(g) for d, g in zip(qrels.docs_at(mine), qrels.grade[mine], strict=True)}


def rank_movement(evaluation: Evaluation, baseline: str, candidate: str, query_id: str,
                  depth: int) -> pd.DataFrame:
    """Where each id sits in the baseline's list and in the candidate's, for one query.

    Rows: every id either run returned within `depth`, and every relevant id of the query
    wherever it is. Columns: doc_id, grade (NA: unjudged), judged (relevant / not relevant /
    unjudged, at the conventions' level), before and after (the rank of its first occurrence
    in the baseline's and the candidate's list; NA: not returned), climbed (places gained in
    the candidate), moved (what the candidate did to it relative to the top K). Sorted by the
    candidate's rank, then the baseline's.
    """
    import pandas as pd

    q = query_row(evaluation, query_id)
    k = evaluation.k
    level = evaluation.conventions.relevance_level
    before = first_ranks(evaluation.run(baseline), q)
    after = first_ranks(evaluation.run(candidate), q)
    grades = query_grades(evaluation, query_id)
    relevant = {d for d, g in grades.items() if g >= level}
    shown = [d for ranks in (before, after) for d, r in ranks.items() if r <= depth]
    ids = list(dict.fromkeys(shown + sorted(relevant, key=natural_key)))
    never = 1 << 30  # sorts an id a list never returned after every rank

    def move(doc: str) -> str:
        return MOVES[(doc in relevant, before.get(doc, never) <= k, after.get(doc, never) <= k)]

    ids.sort(key=lambda d: (after.get(d, never), before.get(d, never), natural_key(d)))
    frame = pd.DataFrame({
        "doc_id": ids,
        "grade": pd.array([grades.get(d) for d in ids], dtype="Int64"),
        "judged": ["relevant" if d in relevant else "not relevant" if d in grades
                   else "unjudged" for d in ids],
        "before": pd.array([before.get(d) for d in ids], dtype="Int64"),
        "after": pd.array([after.get(d) for d in ids], dtype="Int64"),
        "moved": [move(d) for d in ids],
    })
    frame.insert(5, "climbed", frame["before"] - frame["after"])
    return frame


def movement_sentence(movement: pd.DataFrame, candidate: str, k: int) -> str:
    """What the candidate did to the top K, in one sentence naming the ids: 'Against the
    baseline, reranked lifted 2 relevant ids (d21, d22) into the top 5 and pushed none out of
    it; it promoted no non-relevant or unjudged id into the top 5 and pushed 1 (d92) out.'"""
    def chosen(what: str) -> list[str]:
        return [str(d) for d in movement.loc[movement["moved"] == what, "doc_id"]]

    def ids(what: str, noun: str) -> str:  # the first of a clause: 'no id', '2 ids (a, b)'
        found = chosen(what)
        return f"no {noun}" if not found else f"{count(len(found), noun)} ({listing(found)})"

    def more(what: str) -> str:  # the second, its noun said: 'none', '2 (a, b)'
        found = chosen(what)
        return f"{len(found):,} ({listing(found)})" if found else "none"

    lifted, pushed = MOVES[True, False, True], MOVES[True, True, False]
    promoted, dropped = MOVES[False, False, True], MOVES[False, True, False]
    return (f"Against the baseline, {candidate} lifted {ids(lifted, 'relevant id')} into the "
            f"top {k} and pushed {more(pushed)} out of it; it promoted "
            f"{ids(promoted, 'non-relevant or unjudged id')} into the top {k} and pushed "
            f"{more(dropped)} out.")


def side_by_side(evaluation: Evaluation, a: str, b: str, query_id: str,
                 depth: int | None = None) -> pd.DataFrame:
    """Two runs' lists for one query aligned by rank, down to `depth` (default K): at each rank
    each run's id, its grade and status ("2 · relevant", "unjudged"), whether it is judged
    (for the judging controls), and where that id first sits in the other run's list (NA: not
    retrieved). Columns: rank, then a_doc, a_label, a_judged, a_in_b and b_doc, b_label,
    b_judged, b_in_a."""
    import pandas as pd

    q = query_row(evaluation, query_id)
    depth = depth or evaluation.k
    runs = {"a": evaluation.run(a), "b": evaluation.run(b)}
    ranks = {side: first_ranks(run, q) for side, run in runs.items()}
    columns: dict[str, object] = {"rank": np.arange(1, depth + 1)}
    for side, other in (("a", "b"), ("b", "a")):
        run = runs[side]
        width = min(depth, run.aligned.width)
        ids = list(doc_ids(run, q, width)) + [None] * (depth - width)
        labels = _labels(run, q, width) + ["no id"] * (depth - width)
        judged = list(run.aligned.judged[q, :width]) + [False] * (depth - width)
        # object, so that an empty slot stays None (a string column would make it nan)
        columns[f"{side}_doc"] = pd.Series(ids, dtype=object)
        columns[f"{side}_label"] = labels
        columns[f"{side}_judged"] = [bool(j) for j in judged]
        columns[f"{side}_in_{other}"] = pd.array(
            [None if doc is None else ranks[other].get(doc) for doc in ids], dtype="Int64")
    return pd.DataFrame(columns)


def query_contribution(evaluation: Evaluation, a: str, b: str, query_id: str) -> pd.DataFrame:
    """What one scored query adds to the mean difference between two runs, per summary
    measure at K: a's and b's values on it, their difference (b - a), its share of the mean
    difference over the scored queries (difference / scored queries) and that mean
    difference. Columns: metric (a measure key), a, b, difference, contribution, mean
    difference."""
    import pandas as pd

    q = query_row(evaluation, query_id)
    if not evaluation.scored[q]:
        raise ValueError(f"query {query_id!r} is not scored: it adds nothing to a mean")
    n = int(evaluation.scored.sum())
    at = {name: evaluation.run(name).scores.at(evaluation.k) for name in (a, b)}
    rows = []
    for m in SUMMARY_MEASURES:
        here = at[b][m.key][q] - at[a][m.key][q]
        mean = float((at[b][m.key][evaluation.scored] - at[a][m.key][evaluation.scored]).mean())
        rows.append({"metric": m.key, "a": float(at[a][m.key][q]),
                     "b": float(at[b][m.key][q]), "difference": float(here),
                     "contribution": float(here) / n, "mean difference": mean})
    return pd.DataFrame(rows)
