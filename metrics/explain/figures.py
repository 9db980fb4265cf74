"""The figures asked for beyond the defaults, written out for one query: R-precision, Bpref,
infAP, the interpolated precisions, Success, ERR, RBP and its residual, the counts, and the
diversity measures (which subtopics each rank covers, the novelty discount, the ideal).

Each explanation reads the engine's own parts (`Scores.parts`: each rank's term, the counts
it read, what it divided by) and its figure; nothing is recomputed here, and a test checks
that the stated terms over the stated denominator give the engine's figure. A figure scored
under a reading of its own (its name sets a relevance level, a gain, judged-only lists) is
stated with that reading; its terms belong to other lists than the ones the drill-down shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.core.asked import diversity_reading, reading, value_key
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.core.kernel import Scores
from metrics.explain.query import query_row
from metrics.vocabulary.format import figure
from metrics.vocabulary.names import Spec


@dataclass(frozen=True, eq=False)
class FigureExplanation:
    """One figure of one query written out: its label, the engine's value, the terms it
    sums (at the ranks `ranks`), what the sum is divided by, and the sentence."""

    label: str
    value: float
    sentence: str
    terms: np.ndarray  # the engine's terms, one per rank of `ranks`
    ranks: np.ndarray  # 1-based
    denominator: float  # the sum of the terms over this is the figure (1 when it is not a ratio)


def _terms(values: np.ndarray) -> str:
    return " + ".join(figure(v) for v in values) or "0"


def _sum(values: np.ndarray, total: float) -> str:
    """'a + b = total', or the total alone when it is one term or none."""
    return f"{_terms(values)} = {figure(total)}" if len(values) > 1 else figure(total)


def _ranks(ranks: np.ndarray) -> str:
    if not len(ranks):
        return "no rank"
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(str(int(r)) for r in ranks)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def explain_figures(evaluation: Evaluation, run: RunEvaluation,
                    query_id: str) -> list[FigureExplanation]:
    """Every figure the evaluation was asked for, written out for one query and one run."""
    q = query_row(evaluation, query_id)
    found = []
    for spec in evaluation.asked:
        value = float(run.curves(spec.key)[q, spec.k(evaluation.k) - 1])
        label = spec.label(evaluation.k, evaluation.conventions)
        said = "; ".join(spec.words(evaluation.conventions))
        if spec.measure.subtopics:
            parts = run.readings[diversity_reading(spec, evaluation.conventions)]
            found.append(_DIVERSITY[spec.measure.key](parts, spec.k(evaluation.k), q, value,
                                                      label))
            continue
        scores = _scores_of(evaluation, run, spec)
        default = spec.measure.key not in _WRITERS  # a measure shown by default
        if scores is None or (default and scores is not run.scores):
            sentence = (f"{label} = {figure(value)}, scored under its own reading ({said}), "
                        "which the ranks shown here do not follow.")
        elif default:  # at another K
            sentence = (f"{label} = {figure(value)}: the sums written out above for "
                        f"{evaluation.label(spec.measure.key, summary=False)}, read at rank "
                        f"{spec.k(evaluation.k)}.")
        else:
            found.append(_WRITERS[spec.measure.key](evaluation, scores, run.aligned, spec, q,
                                                    value, label))
            continue
        found.append(FigureExplanation(label, value, sentence, np.array([value]),
                                       np.array([0]), 1.0))
    return found


def _scores_of(evaluation: Evaluation, run: RunEvaluation, spec: Spec) -> Scores | None:
    """The scores that hold the spec's figure, when they read the lists the drill-down shows
    (the conventions in force, or another gain, persistence or AP and RR reading); None for a
    figure read on other lists (another relevance level, judged-only lists)."""
    read = reading(spec, evaluation.conventions)
    lists = ("relevance_level", "unjudged")
    if any(getattr(read.conventions, f) != getattr(evaluation.conventions, f) for f in lists):
        return None
    return run.readings.get(read, run.scores)


def _rprec(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["Rprec"]
    r, hits = int(parts["denominator"][q]), int(parts["hits_at_r"][q])
    length = int(scores.list_length[q])
    short = (f" (the list holds {length} id{_s(length)}: the {r - length} slots past it are "
             "misses)") if length < r else ""
    return FigureExplanation(
        label, value, f"{label} = {hits} relevant id{_s(hits)} in the top R = {r} / {r} = "
        f"{figure(value)}{short}.", np.array([hits], dtype=float), np.array([r]), float(r))


def _bpref(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["Bpref"]
    ranks = np.flatnonzero(aligned.relevant[q]) + 1
    terms = parts["terms"][q, ranks - 1]
    above = parts["nonrelevant_above"][q, ranks - 1]
    r, cap = int(parts["denominator"][q]), int(parts["cap"][q])
    n = int(evaluation.query_set.n_nonrelevant[q])
    steps = ", ".join(f"rank {int(k)}: 1 - min({int(a)}, {r}) / {cap} = {figure(t)}"
                      if cap else f"rank {int(k)}: 1" for k, a, t in zip(ranks, above, terms,
                                                                          strict=True))
    return FigureExplanation(
        label, value, f"{label} = ({_terms(terms)}) / R = {figure(terms.sum())} / {r} = "
        f"{figure(value)}: each relevant id adds 1 - min(n, R) / min(N, R), n the judged "
        f"non-relevant ids above it, N = {n} judged non-relevant for the query, so min(N, R) "
        f"= {cap} ({steps or 'no relevant id returned'}); unjudged ids are skipped.",
        terms, ranks, float(r))


def _infap(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["infAP"]
    ranks = np.flatnonzero(aligned.relevant[q]) + 1
    terms = parts["terms"][q, ranks - 1]
    pooled = parts["pooled_above"][q, ranks - 1]
    r = int(parts["denominator"][q])
    steps = ", ".join(f"rank {int(k)} ({int(d)} of the {int(k) - 1} above in the pool): "
                      f"{figure(t)}" for k, d, t in zip(ranks, pooled, terms, strict=True))
    return FigureExplanation(
        label, value, f"{label} = ({_terms(terms)}) / R = {figure(terms.sum())} / {r} = "
        f"{figure(value)}: at each relevant rank k, 1 / k plus ((k - 1) / k) times the share "
        f"of the ids above it in the pool times the judged rate of relevance among them "
        f"({steps or 'no relevant id returned'}); ids outside the qrels count as non-relevant, "
        "ids graded below 0 as pooled but unjudged.", terms, ranks, float(r))


def _iprec(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["IPrec"]
    key = value_key(spec)
    needed, rank = int(parts[f"needed {key}"][q]), int(parts[f"rank {key}"][q])
    r = int(evaluation.query_set.n_relevant[q])
    level = spec.given["recall"]
    found = int(scores.hits[q, -1])
    if needed > found:
        said = (f"round({level:g} × R = {r}) = {needed} relevant ids needed, and the list "
                f"returns {found}: {figure(0.0)}")
    elif needed == 0:
        said = (f"round({level:g} × R = {r}) = 0 relevant ids needed: the best precision at "
                f"any rank, {figure(value)}")
    else:
        said = (f"round({level:g} × R = {r}) = {needed} relevant id{_s(needed)} needed, "
                f"reached at rank {rank}; the best precision at rank {rank} or below is "
                f"{figure(value)}")
    return FigureExplanation(label, value, f"{label}: {said}.", np.array([value]),
                             np.array([rank]), 1.0)


def _success(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    k = spec.k(evaluation.k)
    first = int(scores.first_relevant_rank[q])
    said = (f"a relevant id at rank {first}, within the top {k}" if value
            else f"no relevant id in the top {k}")
    return FigureExplanation(label, value, f"{label} = {figure(value)}: {said} (the same "
                             f"number as Hit@{k}).", np.array([value]), np.array([first]), 1.0)


def _err(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["ERR"]
    k = spec.k(evaluation.k)
    width = min(k, parts["terms"].shape[1])
    ranks = np.flatnonzero(parts["stop"][q, :width] > 0) + 1
    terms = parts["terms"][q, ranks - 1]
    top = int(parts["max_grade"][q])
    steps = ", ".join(f"rank {int(i)}: {figure(parts['stop'][q, i - 1])} × "
                      f"{figure(parts['reached'][q, i - 1])} / {int(i)} = {figure(t)}"
                      for i, t in zip(ranks, terms, strict=True))
    return FigureExplanation(
        label, value, f"{label} = {_sum(terms, value)}: at each rank up to {k}, "
        f"the chance to stop there, (2^grade - 1) / 2^{top} ({top} the highest grade in the "
        f"qrels), times the chance to have read that far, over the rank "
        f"({steps or 'no graded id in the top ' + str(k)}).", terms, ranks, 1.0)


def _rbp(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["RBP"]
    k = spec.k(evaluation.k)
    p = float(parts["persistence"])
    ranks = np.flatnonzero(aligned.relevant[q, :k]) + 1
    terms = parts["terms"][q, ranks - 1]
    return FigureExplanation(
        label, value, f"{label} = (1 - p) × (the sum of p^(rank - 1) over the relevant ranks up "
        f"to {k}: {_ranks(ranks)}) = {_sum(terms, value)}, p = {p:g}.", terms, ranks, 1.0)


def _rbp_residual(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["RBPresid"]
    k = spec.k(evaluation.k)
    p = float(parts["persistence"])
    width = min(k, parts["unknown"].shape[1])
    ranks = np.flatnonzero(parts["unknown"][q, :width]) + 1
    terms = parts["terms"][q, ranks - 1]
    length = int(scores.list_length[q])
    past = value - float(terms.sum())
    tail = (f", plus p^{length} - p^{k} = {figure(past)} for the {k - length} slots past the "
            f"list's end" if length < k else "")
    return FigureExplanation(
        label, value, f"{label} = {figure(value)}: what RBP could still gain were the ids "
        f"nobody graded relevant ({_ranks(ranks)}: {_terms(terms)}){tail}, p = {p:g}.",
        np.append(terms, past) if length < k else terms,
        np.append(ranks, 0) if length < k else ranks, 1.0)


def _count(words: str):
    def write(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
        return FigureExplanation(label, value, f"{label} = {int(value)}: {words}.",
                                 np.array([value]), np.array([0]), 1.0)

    return write


def _q(evaluation, scores, aligned, spec, q, value, label) -> FigureExplanation:
    parts = scores.parts["Q"]
    k = spec.k(evaluation.k)
    width = min(k, parts["terms"].shape[1])
    ranks = np.flatnonzero(aligned.relevant[q, :width]) + 1
    terms = parts["terms"][q, ranks - 1]
    beta = float(parts["beta"])
    denominator = float(parts["denominator"][q, min(k, parts["denominator"].shape[1]) - 1])
    steps = ", ".join(
        f"rank {int(i)}: ({int(scores.hits[q, i - 1])} + {beta:g} × "
        f"{parts['gain'][q, i - 1]:g}) / ({int(i)} + {beta:g} × "
        f"{parts['ideal_gain'][q, i - 1]:g}) = {figure(t)}"
        for i, t in zip(ranks, terms, strict=True))
    return FigureExplanation(
        label, value, f"{label} = ({_sum(terms, float(terms.sum()))}) / {denominator:g} = "
        f"{figure(value)}: at each relevant rank up to {k}, (relevant ids so far + beta × their "
        f"grades) / (rank + beta × the ideal order's grades so far) "
        f"({steps or 'no relevant id in the top ' + str(k)}).", terms, ranks, denominator)


_WRITERS = {
    "Rprec": _rprec, "Bpref": _bpref, "infAP": _infap, "IPrec": _iprec, "Success": _success,
    "ERR": _err, "RBP": _rbp, "RBPresid": _rbp_residual, "Q": _q,
    "NumRet": _count("the ids the list returned, repeats included"),
    "NumRel": _count("the query's relevant ids, retrieved or not"),
    "NumRelRet": _count("the relevant ids the list returned, anywhere in it"),
}



# --------------------------------------------------------------------------- diversity


def _covered(parts: dict, q: int, k: int) -> tuple[np.ndarray, str]:
    """The ranks up to K whose id covers a subtopic, and each written out: the subtopics it
    covers, each with its novelty discount (1 - alpha)^c, and the rank's gain."""
    covers, names = parts["covers"][q], parts["names"][q]
    weight, alpha = parts["weight"][q], float(parts["alpha"])
    width = min(k, covers.shape[0])
    ranks = np.flatnonzero(covers[:width].any(axis=1)) + 1
    seen = np.cumsum(covers, axis=0) - covers  # ids above covering each subtopic
    steps = []
    for i in ranks:
        subs = np.flatnonzero(covers[i - 1])
        each = ", ".join(
            f"{names[s]}" + (f" (seen {int(seen[i - 1, s])}×: "
                             f"{figure((1 - alpha) ** seen[i - 1, s])})" if seen[i - 1, s] else "")
            + (f" weight {figure(weight[s])}" if weight[s] != 1 else "")
            for s in subs)
        steps.append(f"rank {int(i)} covers {each}: gain {figure(parts['gain'][q, i - 1])}")
    return ranks, "; ".join(steps) or f"no id in the top {k} covers a subtopic"


def _subtopics(parts: dict, q: int) -> int:
    return int(parts["subtopics"][q])


def _alpha_ndcg(parts, k, q, value, label) -> FigureExplanation:
    ranks, steps = _covered(parts, q, k)
    gain = parts["gain"][q]
    terms = gain[ranks - 1] / np.log2(ranks + 1)
    idcg = parts["alpha_IDCG"][q]
    ideal = float(idcg[min(k, len(idcg)) - 1])
    shown = parts["ideal_gain"][q, :min(k, parts["ideal_gain"].shape[1])]
    alpha = float(parts["alpha"])
    return FigureExplanation(
        label, value, f"{label} = alpha-DCG@{k} / the greedy ideal's = "
        f"{_terms(terms)} over {figure(ideal)} = {figure(value)}. Each subtopic an id covers "
        f"gains (1 - alpha)^c, c the ids above it covering it (alpha = {alpha:g}), and a rank's "
        f"gain is divided by log2(rank + 1): {steps}. The ideal order (ndeval's greedy one) "
        f"gains {_terms(shown[shown > 0])} at ranks 1, 2, ... .", terms, ranks, ideal)


def _err_ia(parts, k, q, value, label) -> FigureExplanation:
    ranks, steps = _covered(parts, q, k)
    terms = parts["gain"][q, ranks - 1] / ranks
    base = parts["ideal_ideal"]
    s = _subtopics(parts, q)
    denominator = s * float(base[min(k, len(base)) - 1])
    return FigureExplanation(
        label, value, f"{label} = (the sum of gain / rank up to {k}: {_terms(terms)}) over "
        f"S × (the sum of 0.5^(r - 1) / r for r up to {k}) = {s} × "
        f"{figure(base[min(k, len(base)) - 1])}: {figure(value)}, S = {s} subtopics with a "
        f"relevant id; {steps}.", terms, ranks, denominator)


def _nerr_ia(parts, k, q, value, label) -> FigureExplanation:
    ranks, steps = _covered(parts, q, k)
    terms = parts["gain"][q, ranks - 1] / ranks
    ideal = parts["ideal_gain"][q]
    ierr = np.cumsum(ideal / np.arange(1, len(ideal) + 1))
    denominator = float(ierr[min(k, len(ierr)) - 1])
    return FigureExplanation(
        label, value, f"{label} = (the sum of gain / rank up to {k}: {_terms(terms)}) over the "
        f"same sum for the greedy ideal order ({figure(denominator)}) = {figure(value)}; "
        f"{steps}.", terms, ranks, denominator)


def _nrbp(parts, k, q, value, label) -> FigureExplanation:
    covers = parts["covers"][q]
    ranks = np.flatnonzero(covers.any(axis=1)) + 1
    alpha, beta = float(parts["alpha"]), float(parts["beta"])
    terms = parts["gain"][q, ranks - 1] * beta ** (ranks - 1.0) * (1 - (1 - alpha) * beta)
    s = _subtopics(parts, q)
    _, steps = _covered(parts, q, covers.shape[0])
    return FigureExplanation(
        label, value, f"{label} = (1 - (1 - alpha) beta) / S × the sum over the whole list of "
        f"gain × beta^(rank - 1) = ({_terms(terms)}) / {s} = {figure(value)}, alpha = "
        f"{alpha:g}, beta = {beta:g}, S = {s}; {steps}.", terms, ranks, float(max(s, 1)))


def _p_ia(parts, k, q, value, label) -> FigureExplanation:
    covers, weight = parts["covers"][q], parts["weight"][q]
    width = min(k, covers.shape[0])
    ranks = np.flatnonzero(covers[:width].any(axis=1)) + 1
    terms = (covers[ranks - 1] * weight).sum(axis=1).astype(float)
    s = _subtopics(parts, q)
    _, steps = _covered(parts, q, k)
    return FigureExplanation(
        label, value, f"{label} = the (subtopic, rank) pairs up to {k} where the id is relevant "
        f"to the subtopic ({_terms(terms)}) over K × S = {k} × {s}: {figure(value)}; {steps}.",
        terms, ranks, float(k * max(s, 1)))


def _strecall(parts, k, q, value, label) -> FigureExplanation:
    covers, names = parts["covers"][q], parts["names"][q]
    width = min(k, covers.shape[0])
    first = covers[:width] & (np.cumsum(covers[:width], axis=0) == 1)  # first to cover each
    ranks = np.flatnonzero(first.any(axis=1)) + 1
    terms = first[ranks - 1].sum(axis=1).astype(float)
    s = _subtopics(parts, q)
    said = "; ".join(f"rank {int(i)} first covers "
                     + ", ".join(str(names[j]) for j in np.flatnonzero(first[i - 1]))
                     for i in ranks) or f"no subtopic covered in the top {k}"
    return FigureExplanation(
        label, value, f"{label} = the subtopics covered in the top {k} over S = "
        f"{int(terms.sum())} / {s} = {figure(value)} ({said}).", terms, ranks,
        float(max(s, 1)))


def _ap_ia(parts, k, q, value, label) -> FigureExplanation:
    per, names = parts["ap_per_subtopic"][q], parts["names"][q]
    weight = parts["weight"][q]
    held = np.flatnonzero(parts["n_relevant"][q] > 0)
    terms = per[held] * weight[held]
    s = _subtopics(parts, q)
    said = ", ".join(f"{names[j]}: {figure(per[j])}" for j in held) or "no subtopic"
    return FigureExplanation(
        label, value, f"{label} = the mean of each subtopic's AP over the whole list "
        f"({said}) = ({_terms(terms)}) / {s} = {figure(value)}.", terms,
        np.zeros(len(terms), dtype=np.int64), float(max(s, 1)))


_DIVERSITY = {"alpha_nDCG": _alpha_ndcg, "ERR_IA": _err_ia, "nERR_IA": _nerr_ia,
              "NRBP": _nrbp, "P_IA": _p_ia, "StRecall": _strecall, "AP_IA": _ap_ia}
