"""One query, explained rank by rank from the engine's arrays (pure: numpy and pandas).

The per-rank rows show gain, discount log2(rank + 1) and gain / discount; every running total
(DCG, IDCG, precision at a rank, relevant ids so far) and every total (DCG@K, IDCG@K, nDCG@K,
AP, context precision, RR) is read from the engine's Scores, never recomputed here. The one
sum written out, the AP numerator, is the sum of the engine's precisions shown in the table;
the tests check that it reproduces the engine's AP and context precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dashboard.frames import natural_key
from metrics import Evaluation, Qrels
from metrics.evaluate import RunEvaluation
from metrics.measures import gains


@dataclass(frozen=True)
class RunExplanation:
    run: str
    ranks: pd.DataFrame  # rank, doc_id, grade, relevant, repeat, gain, discount, ..., DCG
    ap_steps: pd.DataFrame  # the relevant ranks AP reads: rank, doc_id, hits, precision
    totals: dict[str, float]  # the engine's values at K: DCG, IDCG, nDCG, AP, CP, RR
    first_relevant_rank: int  # 0 when no relevant id was returned
    hits: int  # relevant ids within the top K
    ap_numerator: float  # sum of the precisions in ap_steps
    cp_numerator: float  # the same sum over the ranks within K
    ap_denominator: int
    denominator_text: str  # what the denominator is: "R, every relevant id" or "min(R, K)"
    k: int
    n_relevant: int
    ap_read: str  # the conventions' "cutoff" or "full"
    rr_read: str

    @property
    def sentences(self) -> dict[str, str]:
        """The figures written out: "ndcg", "ap", "cp", "ap_vs_cp", "rr"."""
        return _sentences(self)


def query_row(evaluation: Evaluation, query_id: str) -> int:
    rows = np.flatnonzero(evaluation.query_set.query_ids == query_id)
    if not len(rows):
        raise ValueError(f"query {query_id!r} is not in the qrels")
    return int(rows[0])


def list_length(evaluation: Evaluation, query_id: str) -> int:
    """The longest list any shown run returned for the query."""
    q = query_row(evaluation, query_id)
    return max(int(run.aligned.list_length[q]) for run in evaluation.runs)


def _doc_ids(run: RunEvaluation, q: int, depth: int) -> np.ndarray:
    rows = run.aligned.row[q, :depth]
    return np.where(rows >= 0, run.run.doc[np.maximum(rows, 0)], None)


def first_ranks(run: RunEvaluation, q: int) -> dict[str, int]:
    """doc id -> rank of its first occurrence in the run's list for the query."""
    docs = _doc_ids(run, q, run.aligned.width)
    ranks: dict[str, int] = {}
    for rank, doc in enumerate(docs, 1):
        if doc is not None:
            ranks.setdefault(doc, rank)
    return ranks


STATUSES = ("relevant", "repeat", "not relevant", "unjudged", "no id")


def status(run: RunEvaluation, q: int, depth: int) -> np.ndarray:
    """What each slot is, in the engine's terms: relevant (first occurrence, grade at or above
    the level), repeat, judged but not relevant, unjudged, or empty."""
    a = run.aligned
    return np.select(
        [a.relevant[q, :depth], a.repeat[q, :depth], a.judged[q, :depth], a.returned[q, :depth]],
        list(STATUSES[:4]),
        default=STATUSES[4],
    )


def label(run: RunEvaluation, q: int, depth: int) -> list[str]:
    """Grade and status in one short cell: "3 · relevant", "0 · not relevant", "unjudged"."""
    judged = run.aligned.judged[q, :depth]
    grade = run.aligned.grade[q, :depth]
    return [f"{g} · {s}" if j else s
            for g, s, j in zip(grade, status(run, q, depth), judged, strict=True)]


def rank_table(evaluation: Evaluation, run: RunEvaluation, q: int, depth: int) -> pd.DataFrame:
    aligned = run.aligned
    rank = np.arange(1, depth + 1)
    grade = aligned.grade[q, :depth]
    gain = gains(grade, evaluation.conventions.gain)
    discount = np.log2(rank + 1)
    return pd.DataFrame(
        {
            "rank": rank,
            "doc_id": _doc_ids(run, q, depth),
            # the label of a judged id at its first occurrence; blank when unjudged or repeated
            "grade": pd.Series(grade, dtype="Int64").where(aligned.judged[q, :depth]).array,
            "status": status(run, q, depth),
            "label": label(run, q, depth),
            "relevant": aligned.relevant[q, :depth],
            "repeat": aligned.repeat[q, :depth],
            "gain": gain,
            "discount": discount,
            "gain / discount": gain / discount,
            "DCG": run.scores.values["DCG"][q, :depth],  # the engine's running DCG@rank
        }
    )


def ideal_table(evaluation: Evaluation, qrels: Qrels, query_id: str) -> pd.DataFrame:
    """The list IDCG is the DCG of: every positive grade, best first, retrieved or not, with
    the rank at which each shown run first returned the id (missing: never returned)."""
    q = query_row(evaluation, query_id)
    mine = (qrels.query == query_id) & (qrels.grade > 0)
    pairs = sorted(zip(qrels.doc[mine], qrels.grade[mine], strict=True),
                   key=lambda pair: (-pair[1], natural_key(str(pair[0]))))
    n = len(pairs)
    rank = np.arange(1, n + 1)
    grade = np.array([g for _, g in pairs], dtype=np.int64)
    gain = gains(grade, evaluation.conventions.gain)
    discount = np.log2(rank + 1)
    idcg = np.full(n, np.nan)
    width = min(n, evaluation.runs[0].scores.width)
    idcg[:width] = evaluation.runs[0].scores.values["IDCG"][q, :width]
    frame = pd.DataFrame(
        {
            "rank": rank,
            "doc_id": [d for d, _ in pairs],
            "grade": grade,
            "gain": gain,
            "discount": discount,
            "gain / discount": gain / discount,
            "IDCG": idcg,  # the engine's running IDCG@rank
            "within K": rank <= evaluation.k,
        }
    )
    for run in evaluation.runs:
        ranks = first_ranks(run, q)
        frame[f"rank in {run.name}"] = pd.array([ranks.get(d) for d, _ in pairs], dtype="Int64")
    return frame


def explain_run(evaluation: Evaluation, run: RunEvaluation, query_id: str,
                depth: int | None = None) -> RunExplanation:
    k = evaluation.k
    conventions = evaluation.conventions
    q = query_row(evaluation, query_id)
    scores = run.scores
    width = scores.width
    depth = min(depth or k, width)
    at_k = {key: float(values[q, k - 1]) for key, values in scores.values.items()}
    first = int(scores.first_relevant_rank[q])
    hits = int(scores.hits[q, k - 1])
    n_relevant = int(evaluation.query_set.n_relevant[q])

    ap_depth = k if conventions.ap == "cutoff" else width
    relevant_ranks = np.flatnonzero(run.aligned.relevant[q, :ap_depth]) + 1
    steps = pd.DataFrame(
        {
            "rank": relevant_ranks,
            "doc_id": _doc_ids(run, q, ap_depth)[relevant_ranks - 1],
            "relevant so far": scores.hits[q, relevant_ranks - 1].astype(int),
            "precision": scores.values["P"][q, relevant_ranks - 1],  # the engine's P@rank
        }
    )
    ap_numerator = float(steps["precision"].sum())
    cp_numerator = float(steps.loc[steps["rank"] <= k, "precision"].sum())
    if conventions.recall_denominator == "all":
        ap_denominator, denominator_text = n_relevant, "R, every relevant id"
    else:
        # the engine divides by min(R, cutoff), the cutoff being its full width when AP is
        # read over the whole list
        ap_denominator = min(n_relevant, ap_depth)
        denominator_text = f"min(R, {'K' if ap_depth == k else 'list depth'})"
    return RunExplanation(
        run=run.name,
        ranks=rank_table(evaluation, run, q, depth),
        ap_steps=steps,
        totals={key: at_k[key] for key in ("DCG", "IDCG", "nDCG", "AP", "CP", "RR")},
        first_relevant_rank=first,
        hits=hits,
        ap_numerator=ap_numerator,
        cp_numerator=cp_numerator,
        ap_denominator=ap_denominator,
        denominator_text=denominator_text,
        k=k,
        n_relevant=n_relevant,
        ap_read=conventions.ap,
        rr_read=conventions.rr,
    )


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def _terms(values) -> str:
    return " + ".join(f"{v:.3f}" for v in values) or "0"


def _sentences(x: RunExplanation) -> dict[str, str]:
    k, hits, totals, steps = x.k, x.hits, x.totals, x.ap_steps
    within = steps[steps["rank"] <= k]
    ap_where = f"within the top {k}" if x.ap_read == "cutoff" else "anywhere in the list"
    sentences = {
        "ndcg": f"nDCG@{k} = DCG@{k} / IDCG@{k} = {totals['DCG']:.3f} / {totals['IDCG']:.3f} "
        f"= {totals['nDCG']:.3f}",
        "ap": f"AP = ({_terms(steps['precision'])}) / {x.ap_denominator} = "
        f"{totals['AP']:.3f}: the precision at each relevant rank {ap_where}, summed "
        f"({x.ap_numerator:.3f}), divided by {x.denominator_text} = {x.ap_denominator}.",
        "cp": f"Context precision@{k} = ({_terms(within['precision'])}) / {hits} = "
        f"{totals['CP']:.3f}: the same precisions within the top {k} ({x.cp_numerator:.3f}), "
        f"divided by the {hits} relevant id{_s(hits)} returned there."
        if hits
        else f"Context precision@{k} = 0: no relevant id in the top {k}.",
    }
    if np.isclose(totals["AP"], totals["CP"]):
        why = (f"both are 0: no relevant id came back in the top {k}." if totals["AP"] == 0
               else f"they agree here: AP's denominator ({x.ap_denominator}) equals the {hits} "
               f"relevant id{_s(hits)} returned in the top {k}.")
    else:
        reasons = []
        if x.ap_denominator != hits:
            missing = x.n_relevant - hits
            reasons.append(
                f"AP divides by {x.ap_denominator} ({x.denominator_text}) while context "
                f"precision divides only by the {hits} relevant id{_s(hits)} found in the top "
                f"{k}; {missing} of the query's {x.n_relevant} relevant ids {_are(missing)} not "
                "there, which AP charges for and context precision does not"
            )
        below = len(steps) - len(within)
        if below:
            reasons.append(f"AP, read over the full list, also counts the {below} relevant "
                           f"id{_s(below)} found below rank {k}")
        why = "they differ because " + "; and ".join(reasons) + "."
    sentences["ap_vs_cp"] = "AP and context precision: " + why
    first = x.first_relevant_rank
    if first == 0:
        sentences["rr"] = "No relevant id anywhere in the list: RR = 0."
    elif first <= k or x.rr_read == "full":
        read = "" if first <= k else f" (read over the full list, although rank {first} > K)"
        sentences["rr"] = (f"First relevant id at rank {first}{read}: RR = 1 / {first} = "
                           f"{totals['RR']:.3f}.")
    else:
        sentences["rr"] = (f"First relevant id at rank {first}, below K = {k}: RR is read at K, "
                           f"so RR@{k} = {totals['RR']:.3f} (1 / {first} over the full list).")
    return sentences


# --------------------------------------------------------------------------- rank movement

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
    return {str(d): int(g) for d, g in zip(qrels.doc[mine], qrels.grade[mine], strict=True)}


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
    """What the candidate did to the top K, in one sentence naming the ids."""
    def ids(what: str) -> str:
        chosen = list(movement.loc[movement["moved"] == what, "doc_id"])
        return f"{len(chosen)} ({', '.join(chosen)})" if chosen else "none"

    lifted, pushed = MOVES[True, False, True], MOVES[True, True, False]
    promoted, dropped = MOVES[False, False, True], MOVES[False, True, False]
    return (f"Against the baseline, {candidate} lifted {ids(lifted)} relevant id(s) into the "
            f"top {k} and pushed {ids(pushed)} out of it; it promoted {ids(promoted)} "
            f"non-relevant or unjudged id(s) into the top {k} and pushed {ids(dropped)} out.")
