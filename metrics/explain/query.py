"""One query's figures written out, from the engine's own arrays and denominators.

For each run: every rank with its grade, status, gain, discount log2(rank + 1) and the
engine's running DCG; the terms whose sums give DCG@K, AP and context precision; the
denominators the engine divided by (kept in Scores, never recomputed here); the rank that
gives RR; and the ideal list that gives IDCG. The sentences state the arithmetic, and the
tests check that the stated terms and denominators reproduce the engine's figures.
pandas is imported only when a frame is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from metrics.core.asked import figures_at
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.core.kernel import SUMMARY_MEASURES, discount, gains
from metrics.stats.standardise import UNDEFINED_REASONS, z_scores
from metrics.vocabulary.format import figure, natural_key

if TYPE_CHECKING:
    import pandas as pd

STATUS_MEANING = {
    "relevant": "grade at or above the level, first occurrence",
    "repeat": "keeps its slot, scores nothing",
    "not relevant": "judged below the level",
    "unjudged": "no label: scores as not relevant",
    "no id": "the list ended",
}
STATUSES = tuple(STATUS_MEANING)


@dataclass(frozen=True, eq=False)
class RunExplanation:
    run: str
    k: int
    n_relevant: int
    depth: int  # ranks shown in `ranks` (K, or the whole list)
    ranks: pd.DataFrame  # rank, doc_id, grade, status, label, relevant, repeat, gain, ..., DCG
    ap_steps: pd.DataFrame  # the relevant ranks AP reads: rank, doc_id, relevant so far, precision
    totals: dict[str, float]  # the engine's values at K: DCG, IDCG, nDCG, AP, CP, RR
    dcg_terms: np.ndarray  # gain / discount at ranks 1..K: their sum is DCG@K
    ap_terms: np.ndarray  # precision at each relevant rank AP reads: sum / ap_denominator = AP
    ap_denominator: float  # what the engine divided AP by
    denominator_text: str  # what that denominator is, in words
    cp_terms: np.ndarray  # the precisions within K: sum / cp_denominator = CP
    cp_denominator: int  # relevant ids in the top K
    first_relevant_rank: int  # 0 when no relevant id was returned
    rr_rank: int  # the rank RR reads (0: none, so RR = 0)
    ap_read: str  # the conventions' "cutoff" or "full"
    rr_read: str

    @property
    def hits(self) -> int:
        return self.cp_denominator

    @property
    def sentences(self) -> dict[str, str]:
        """The figures written out: "dcg", "ndcg", "ap", "cp", "ap_vs_cp", "rr"."""
        return _sentences(self)


def query_row(evaluation: Evaluation, query_id: str) -> int:
    """The query's row in the evaluation's arrays (QuerySet.row)."""
    return evaluation.query_set.row(query_id)


def list_length(evaluation: Evaluation, query_id: str) -> int:
    """The longest list any run of the evaluation returned for the query."""
    q = query_row(evaluation, query_id)
    return max(int(run.aligned.list_length[q]) for run in evaluation.runs)


def doc_ids(run: RunEvaluation, q: int, depth: int) -> np.ndarray:
    """The ids at ranks 1..depth (None past the end of the list)."""
    rows = run.aligned.row[q, :depth]
    if not (rows >= 0).any():  # no list (a run of no rows has no row 0 to stand in)
        return np.full(len(rows), None, dtype=object)
    return np.where(rows >= 0, run.run.docs_at(np.maximum(rows, 0)), None)


def first_ranks(run: RunEvaluation, q: int) -> dict[str, int]:
    """doc id -> rank of its first occurrence in the run's list for the query."""
    ranks: dict[str, int] = {}
    for rank, doc in enumerate(doc_ids(run, q, run.aligned.width), 1):
        if doc is not None:
            ranks.setdefault(doc, rank)
    return ranks


def status(run: RunEvaluation, q: int, depth: int) -> np.ndarray:
    """What each slot is, in the engine's terms: relevant (first occurrence, grade at or above
    the level), repeat, judged but not relevant, unjudged, or empty."""
    a = run.aligned
    return np.select(
        [a.relevant[q, :depth], a.repeat[q, :depth], a.judged[q, :depth], a.returned[q, :depth]],
        list(STATUSES[:4]),
        default=STATUSES[4],
    )


def _labels(run: RunEvaluation, q: int, depth: int) -> list[str]:
    """Grade and status in one short cell: "3 · relevant", "0 · not relevant", "unjudged"."""
    judged = run.aligned.judged[q, :depth]
    grade = run.aligned.grade[q, :depth]
    return [f"{g} · {s}" if j else s
            for g, s, j in zip(grade, status(run, q, depth), judged, strict=True)]


def _dcg_parts(grade: np.ndarray, gain: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """gain, discount log2(rank + 1) and their ratio at ranks 1..len(grade)."""
    g, d = gains(grade, gain), discount(len(grade))
    return g, d, g / d


def rank_table(evaluation: Evaluation, run: RunEvaluation, q: int, depth: int) -> pd.DataFrame:
    import pandas as pd

    aligned = run.aligned
    grade = aligned.grade[q, :depth]
    gain, by_rank, ratio = _dcg_parts(grade, evaluation.conventions.gain)
    return pd.DataFrame(
        {
            "rank": np.arange(1, depth + 1),
            "doc_id": doc_ids(run, q, depth),
            # the label of a judged id at its first occurrence; blank when unjudged or repeated
            "grade": pd.Series(grade, dtype="Int64").where(aligned.judged[q, :depth]).array,
            "status": status(run, q, depth),
            "label": _labels(run, q, depth),
            "relevant": aligned.relevant[q, :depth],
            "repeat": aligned.repeat[q, :depth],
            "gain": gain,
            "discount": by_rank,
            "gain / discount": ratio,
            "DCG": run.scores.values["DCG"][q, :depth],  # the engine's running DCG@rank
        }
    )


def ideal_table(evaluation: Evaluation, query_id: str) -> pd.DataFrame:
    """The list IDCG is the DCG of: every positive grade, best first, retrieved or not, with
    the rank at which each run first returned the id (missing: never returned)."""
    import pandas as pd

    qrels = evaluation.qrels
    q = query_row(evaluation, query_id)
    mine = (qrels.query == query_id) & (qrels.grade > 0)
    pairs = sorted(zip(qrels.docs_at(mine), qrels.grade[mine], strict=True),
                   key=lambda pair: (-pair[1], natural_key(str(pair[0]))))
    n = len(pairs)
    grade = np.array([g for _, g in pairs], dtype=np.int64)
    gain, by_rank, ratio = _dcg_parts(grade, evaluation.conventions.gain)
    idcg = evaluation.runs[0].scores.values["IDCG"][q, :n]  # read past the lists too
    frame = pd.DataFrame(
        {
            "rank": np.arange(1, n + 1),
            "doc_id": [d for d, _ in pairs],
            "grade": grade,
            "gain": gain,
            "discount": by_rank,
            "gain / discount": ratio,
            "IDCG": idcg,  # the engine's running IDCG@rank
            "within K": np.arange(1, n + 1) <= evaluation.k,
        }
    )
    for run in evaluation.runs:
        ranks = first_ranks(run, q)
        frame[f"rank in {run.name}"] = pd.array([ranks.get(d) for d, _ in pairs], dtype="Int64")
    return frame


def _denominator_text(evaluation: Evaluation) -> str:
    c = evaluation.conventions
    if c.recall_denominator == "all":
        return "R, every relevant id"
    return "min(R, K)" if c.ap == "cutoff" else "min(R, the length of this run's list)"


def explain_run(evaluation: Evaluation, run: RunEvaluation, query_id: str,
                depth: int | None = None) -> RunExplanation:
    """One run's figures for one query at the evaluation's K, written out."""
    import pandas as pd

    k = evaluation.k
    conventions = evaluation.conventions
    q = query_row(evaluation, query_id)
    scores = run.scores
    width = scores.width
    depth = min(depth or k, width)
    at_k = {key: float(values[q, k - 1]) for key, values in scores.values.items()}
    first = int(scores.first_relevant_rank[q])

    ap_depth = k if conventions.ap == "cutoff" else width
    relevant_ranks = np.flatnonzero(run.aligned.relevant[q, :ap_depth]) + 1
    precisions = scores.values["P"][q, relevant_ranks - 1]  # the engine's P@rank
    steps = pd.DataFrame(
        {
            "rank": relevant_ranks,
            "doc_id": doc_ids(run, q, ap_depth)[relevant_ranks - 1],
            "relevant so far": scores.hits[q, relevant_ranks - 1].astype(int),
            "precision": precisions,
        }
    )
    reads_rr = first if first and (first <= k or conventions.rr == "full") else 0
    _, _, dcg_terms = _dcg_parts(run.aligned.grade[q, :k], conventions.gain)
    return RunExplanation(
        run=run.name,
        k=k,
        n_relevant=int(evaluation.query_set.n_relevant[q]),
        depth=depth,
        ranks=rank_table(evaluation, run, q, depth),
        ap_steps=steps,
        totals={key: at_k[key] for key in ("DCG", "IDCG", "nDCG", "AP", "CP", "RR")},
        dcg_terms=dcg_terms,
        ap_terms=precisions,
        ap_denominator=float(scores.ap_denominator[q, k - 1]),
        denominator_text=_denominator_text(evaluation),
        cp_terms=precisions[relevant_ranks <= k],
        cp_denominator=int(scores.hits[q, k - 1]),
        first_relevant_rank=first,
        rr_rank=reads_rr,
        ap_read=conventions.ap,
        rr_read=conventions.rr,
    )


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def _terms(values: np.ndarray) -> str:
    return " + ".join(figure(v) for v in values) or "0"


def _number(value: float) -> str:
    """A denominator as it is: '5', or '2.5' should one ever be fractional."""
    return f"{value:g}"


def _sentences(x: RunExplanation) -> dict[str, str]:
    k, hits, totals = x.k, x.cp_denominator, x.totals
    ap_where = f"within the top {k}" if x.ap_read == "cutoff" else "anywhere in the list"
    denominator = _number(x.ap_denominator)
    sentences = {
        "dcg": f"DCG@{k} = {_terms(x.dcg_terms)} = {figure(totals['DCG'])}: each rank's gain "
        f"divided by log2(rank + 1), summed over the top {k}.",
        "ndcg": f"nDCG@{k} = DCG@{k} / IDCG@{k} = {figure(totals['DCG'])} / "
        f"{figure(totals['IDCG'])} = {figure(totals['nDCG'])}"
        + (" (no relevant id, so IDCG is 0 and nDCG is 0)" if totals["IDCG"] == 0 else ""),
        "ap": f"AP = ({_terms(x.ap_terms)}) / {denominator} = {figure(totals['AP'])}: the "
        f"precision at each relevant rank {ap_where}, summed ({figure(x.ap_terms.sum())}), "
        f"divided by {x.denominator_text} = {denominator}."
        if x.ap_denominator
        else f"AP = 0: {x.denominator_text} is 0 (the run returned no id for this query).",
        "cp": f"Context precision@{k} = ({_terms(x.cp_terms)}) / {hits} = "
        f"{figure(totals['CP'])}: the same precisions within the top {k} "
        f"({figure(x.cp_terms.sum())}), divided by the {hits} relevant id{_s(hits)} returned "
        "there."
        if hits
        else f"Context precision@{k} = 0: no relevant id in the top {k}.",
    }
    below = len(x.ap_terms) - len(x.cp_terms)
    if np.isclose(totals["AP"], totals["CP"]):
        why = (f"both are 0: no relevant id came back in the top {k}." if totals["AP"] == 0
               else f"they agree here: AP's denominator ({denominator}) equals the {hits} "
               f"relevant id{_s(hits)} returned in the top {k}.")
    else:
        reasons = []
        if x.ap_denominator != hits:
            missing = x.n_relevant - hits
            reasons.append(
                f"AP divides by {denominator} ({x.denominator_text}) while context "
                f"precision divides only by the {hits} relevant id{_s(hits)} found in the top "
                f"{k}; {missing} of the query's {x.n_relevant} relevant ids {_are(missing)} not "
                "there, which AP charges for and context precision does not"
            )
        if below:
            reasons.append(f"AP, read over the full list, also counts the {below} relevant "
                           f"id{_s(below)} found below rank {k}")
        why = "they differ because " + "; and ".join(reasons) + "."
    sentences["ap_vs_cp"] = "AP and context precision: " + why
    first = x.first_relevant_rank
    if first == 0:
        sentences["rr"] = "No relevant id anywhere in the list: RR = 0."
    elif x.rr_rank:
        read = "" if first <= k else f" (read over the full list, although rank {first} > K)"
        sentences["rr"] = (f"First relevant id at rank {first}{read}: RR = 1 / {first} = "
                           f"{figure(totals['RR'])}.")
    else:
        sentences["rr"] = (f"First relevant id at rank {first}, below K = {k}: RR is read at "
                           f"K, so RR@{k} = {figure(totals['RR'])} (1 / {first} over the full "
                           "list).")
    return sentences


def query_figures(evaluation: Evaluation, query_id: str) -> pd.DataFrame:
    """One query's figures at K, one row per run: its class and every summary figure's
    per-query value (the engine's own, at the evaluation's K; those asked for after the
    default measures, each at its own cutoff), columns keyed by figure key."""
    import pandas as pd

    q = query_row(evaluation, query_id)
    scored = list(np.flatnonzero(evaluation.scored))
    place = scored.index(q) if q in scored else None
    asked = [s for s in evaluation.summary_specs if s in evaluation.asked]
    rows = []
    for run in evaluation.runs:
        at = run.scores.at(evaluation.k)
        more = figures_at(run.asked, asked, evaluation.k, slice(q, q + 1))
        rows.append({"run": run.name,
                     "class": None if place is None else str(run.classes[place]),
                     **{m.key: float(at[m.key][q]) for m in SUMMARY_MEASURES},
                     **{key: float(values[0]) for key, values in more.items()}})
    return pd.DataFrame(rows)


def standardised_query(evaluation: Evaluation, raw: Evaluation, query_id: str) -> pd.DataFrame:
    """How one query's figures at K were standardised (`evaluation`, from
    metrics.standardise), a row per run and summary figure: its raw figure (read from `raw`,
    the same runs unstandardised), the population's mean and standard deviation for the
    query, z = (raw - mean) / deviation and the figure shown (z, or Phi(z)), with why it is
    undefined ("" when defined) by trec_eval's rule (metrics.stats.standardise.z_scores)."""
    import pandas as pd

    if evaluation.population is None:
        raise ValueError("the figures are not standardised")
    shown, read = query_figures(evaluation, query_id), query_figures(raw, query_id)
    if list(shown["run"]) != list(read["run"]):
        raise ValueError("the raw figures are not those of the same runs")
    q = query_row(evaluation, query_id)
    rows = []
    for spec in evaluation.summary_specs:
        mean, deviation = (float(m[q]) for m in evaluation.population.moments[spec.key])
        values = read[spec.key].to_numpy(dtype=float)
        z, why = z_scores(values, np.full_like(values, mean), np.full_like(values, deviation))
        rows += [{"run": run, "metric": spec.key, "raw": value, "mean": mean,
                  "deviation": deviation, "z": z_value, "shown": float(figure_shown),
                  "undefined": UNDEFINED_REASONS.get(int(code), "")}
                 for run, value, z_value, code, figure_shown
                 in zip(read["run"], values, z, why, shown[spec.key], strict=True)]
    return pd.DataFrame(rows)


def top_ids(evaluation: Evaluation, run: str, query_id: str, n: int) -> list[str]:
    """The ids at ranks 1..n of a run's list for the query (fewer when the list is shorter;
    a repeat kept in its slot)."""
    found = evaluation.run(run)
    q = query_row(evaluation, query_id)
    return [doc for doc in doc_ids(found, q, min(n, found.aligned.width)) if doc is not None]
