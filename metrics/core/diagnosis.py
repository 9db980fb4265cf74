"""Reading the figures: query classes, the k suggestion (seed 001), failure classes (seed 003),
and what a run's lists allow to be read at all: a run whose lists stop before K (every figure
past its last rank reads empty slots), and a run that scores nothing (no k advice).

Every threshold is a named constant, stated in the output beside the verdict it produced; the
sentences about the lists are in metrics/vocabulary/readings.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from metrics.core.kernel import Scores
from metrics.vocabulary import QUERY_CLASSES
from metrics.vocabulary import readings as words
from metrics.vocabulary.format import count, figure

PLATEAU_SHARE = 0.95  # seed 001: the smallest k reaching 95% of the best recall the lists allow
LOW_RECALL = 0.5  # best recall below this: the right chunks are not being retrieved at all
LOW_PRECISION = 0.5  # precision below half of what the labels allow (min(R, K) / K): noisy
LOW_HIT = 0.8  # fewer than 80% of queries with a relevant id in the top K: coverage failure
BURIED_RR = 0.5  # mean RR over queries with a hit below 0.5: the first hit sits at rank 2+
LATE_HIT_SHARE = 0.1  # a tenth of the queries or more find their first relevant id below K


def query_classes(scores: Scores, n_relevant: np.ndarray, k: int) -> np.ndarray:
    """Class of each query at K, whatever the recall denominator (counts, not ratios)."""
    hits = scores.hits[:, k - 1]
    first = scores.first_relevant_rank
    # a query without a relevant id (scored 0 under empty_queries="zero") is a miss
    return np.select(
        [(hits >= n_relevant) & (n_relevant > 0), hits > 0, first > 0],
        ["full", "partial", "late_hit"],
        default="miss",
    ).astype(object)


@dataclass(frozen=True)
class Suggestion:
    k: int  # smallest k whose mean recall reaches PLATEAU_SHARE of the best
    recall: float
    best_recall: float  # mean recall at the longest list
    longest_list: int
    precision: float
    noise_chunks: float  # mean returned ids within k that are not relevant (repeats included)
    current_k: int
    current_recall: float
    current_precision: float
    readings: tuple[str, ...]
    rule: str
    # False when the run scores nothing (no list for a scored query, or no relevant id in
    # any list): `k` is then arithmetic only, and the readings say why there is no advice
    advice: bool = True
    run_longest: int = 0  # this run's longest list over the scored queries
    short_queries: int = 0  # scored queries whose list holds fewer than K ids
    scored_queries: int = 0

    def as_dict(self) -> dict:
        return asdict(self) | {"readings": list(self.readings)}

    @property
    def cut(self) -> bool:
        """Every list of the run stops before K: the figures at K read empty slots."""
        return self.advice and self.run_longest < self.current_k

    @property
    def sentence(self) -> str:
        """The suggestion and the figures at the chosen K, in one sentence."""
        if not self.advice:
            return words.no_advice(self.readings[0])
        return (
            f"k = {self.k} reaches mean recall {figure(self.recall)} of a best "
            f"{figure(self.best_recall)} (precision {figure(self.precision)}, "
            f"{self.noise_chunks:.1f} noise chunks per query); at the chosen K = "
            f"{self.current_k}, recall {figure(self.current_recall)} and precision "
            f"{figure(self.current_precision)}."
        )


@dataclass(frozen=True, eq=False)
class KCurves:
    """What the k suggestion reads of a run, over the queries with a relevant id (those a
    filter chose): their lists' lengths, the mean at K = 1..width of recall (over every
    relevant id), precision and the noise chunks, and recall and precision at the chosen K.
    `k_curves` reads them off a run's scores at once, the Spark driver off the per-query
    figures its blocks return (`curves_of` both); the block driver adds them up a block at a
    time, row after row as numpy's mean does, so the floats are the same."""

    lengths: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    noise: np.ndarray
    recall_at_k: float
    precision_at_k: float


def k_curves(scores: Scores, n_relevant: np.ndarray, k: int,
             within: np.ndarray | None = None) -> KCurves:
    """A run's KCurves from its scores (every query of the query set); `within` (a mask
    over the queries) keeps the queries a filter chose."""
    scored = n_relevant > 0 if within is None else (n_relevant > 0) & within
    past = (None if k <= scores.width  # else past the stored columns: the closed form
            else (scores.hits[scored, k - 1], scores.values["P"][scored, k - 1]))
    return curves_of(scores.hits[scored], scores.values["P"][scored], scores.noise[scored],
                     scores.list_length[scored], n_relevant[scored], k, past)


def curves_of(hits: np.ndarray, precision: np.ndarray, noise: np.ndarray,
              lengths: np.ndarray, relevant: np.ndarray, k: int,
              past: tuple[np.ndarray, np.ndarray] | None = None) -> KCurves:
    """KCurves from the queries' hits, precision and noise at K = 1..width ((queries,
    width) each), their lists' lengths and relevant counts; `past` holds their hits and
    precision at K when K lies past the width."""
    relevant = relevant[:, None].astype(float)
    recall_curve = _mean(hits / relevant)
    precision_curve = _mean(precision)
    if past is None:
        current_recall, current_precision = recall_curve[k - 1], precision_curve[k - 1]
    else:
        current_recall, current_precision = _mean(past[0] / relevant[:, 0]), _mean(past[1])
    return KCurves(lengths, recall_curve, precision_curve, _mean(noise), float(current_recall),
                   float(current_precision))


def suggest_k(scores: Scores, n_relevant: np.ndarray, *, k: int, longest_list: int,
              within: np.ndarray | None = None) -> Suggestion:
    """Recall here divides by every relevant id, so the curve never falls as k grows.
    `within` (a mask over the queries) keeps the queries a filter chose."""
    return suggestion(k_curves(scores, n_relevant, k, within), n_relevant, k=k,
                      longest_list=longest_list, within=within)


def suggestion(curves: KCurves, n_relevant: np.ndarray, *, k: int, longest_list: int,
               within: np.ndarray | None = None) -> Suggestion:
    """The k suggestion and its readings from a run's KCurves (any driver's)."""
    recall_curve, precision_curve = curves.recall, curves.precision
    longest = max(1, min(longest_list, len(recall_curve)))
    best = float(recall_curve[longest - 1])
    lengths = curves.lengths
    run_longest = int(lengths.max(initial=0))
    short = int((lengths < k).sum())
    reaching = np.flatnonzero(recall_curve[:longest] >= PLATEAU_SHARE * best - 1e-12)
    suggested = int(reaching[0]) + 1 if len(reaching) else longest
    current_recall, current_precision = curves.recall_at_k, curves.precision_at_k
    advice = best > 0
    if not (lengths > 0).any():
        readings = (words.no_list_sentence(len(lengths)),)
        advice = False
    elif not advice:
        readings = (words.no_relevant_sentence(),)
    else:
        readings = _readings(
            best=best,
            suggested=suggested,
            current_k=k,
            recall_at_k=current_recall,
            precision_at_k=current_precision,
            ceiling_at_k=precision_ceiling(n_relevant if within is None else n_relevant[within],
                                           k),
            run_longest=run_longest,
            short=short,
            scored=len(lengths),
        )
    return Suggestion(
        k=suggested,
        recall=float(recall_curve[suggested - 1]),
        best_recall=best,
        longest_list=longest,
        precision=float(precision_curve[suggested - 1]),
        noise_chunks=float(curves.noise[suggested - 1]),
        current_k=k,
        current_recall=current_recall,
        current_precision=current_precision,
        readings=readings,
        rule=f"smallest k whose mean Recall@k (over every relevant id) reaches "
        f"{PLATEAU_SHARE:.0%} of the recall at the longest list ({longest})",
        advice=advice,
        run_longest=run_longest,
        short_queries=short,
        scored_queries=len(lengths),
    )


def _readings(*, best, suggested, current_k, recall_at_k, precision_at_k, ceiling_at_k,
              run_longest, short, scored):
    readings = []
    if best < LOW_RECALL:
        readings.append(
            f"Recall low at every k (best {figure(best)} < {LOW_RECALL}): the right chunks are not "
            "being retrieved at all. Look at chunking, the embedding model and query rewriting "
            "before tuning k."
        )
    if run_longest < current_k:  # every list stops before K: K cannot be judged on this run
        return (*readings, words.cut_reading(current_k, run_longest))
    if short:
        readings.append(words.partly_short_reading(current_k, short, scored))
    advice = []
    if suggested > current_k:
        advice.append(
            f"Recall still climbing at k = {current_k} ({figure(recall_at_k)}; "
            f"{PLATEAU_SHARE:.0%} of "
            f"the best is first reached at k = {suggested}): raise k, or improve the ranking so "
            "relevant chunks come sooner."
        )
    elif precision_at_k < LOW_PRECISION * ceiling_at_k:
        advice.append(
            f"Recall flat but precision low at k = {current_k} (P {figure(precision_at_k)}, under "
            f"{LOW_PRECISION:.0%} of the {figure(ceiling_at_k)} the labels allow): lower k to "
            f"{suggested} and save tokens."
        )
    if best >= LOW_RECALL and not advice:
        advice.append(
            f"Recall has reached its plateau by k = {current_k} and precision is within reach of "
            "what the labels allow: k looks well chosen."
        )
    return (*readings, *advice)


def _mean(values: np.ndarray) -> np.ndarray:
    return values.mean(axis=0) if len(values) else np.zeros(values.shape[1:])


def precision_ceiling(n_relevant: np.ndarray, k: int) -> float:
    """The best mean Precision@k the labels allow: min(R, k) / k over scored queries."""
    scored = n_relevant[n_relevant > 0]
    return float(np.mean(np.minimum(scored, k) / k)) if len(scored) else 0.0


def run_readings(at_k: dict[str, np.ndarray], means: dict[str, float], classes: np.ndarray,
                 curves: KCurves, n_relevant: np.ndarray, *, k: int, longest_list: int,
                 answered: int, within: np.ndarray | None = None
                 ) -> tuple[Suggestion, tuple[Finding, ...]]:
    """What every driver reads of a run beside its summary: the k suggestion and the
    diagnosis, from its scored queries' figures at K (`at_k`), its means at K, its query
    classes, its KCurves, the query set's relevant counts (those `within` a filter) and how
    many scored queries it answered."""
    hit_rows = at_k["Hit"] > 0
    rr_given_hit = float(at_k["RR"][hit_rows].mean()) if hit_rows.any() else 0.0
    advice = suggestion(curves, n_relevant, k=k, longest_list=longest_list, within=within)
    return advice, diagnose(
        means, classes, k=k,
        precision_ceiling=precision_ceiling(n_relevant if within is None
                                            else n_relevant[within], k),
        rr_given_hit=rr_given_hit, run_longest=advice.run_longest, answered=answered)


@dataclass(frozen=True)
class Finding:
    failure: str  # "coverage", "noisy window", "buried"
    flagged: bool
    figure: float
    threshold: str
    sentence: str


def _queries(n: int) -> str:
    return count(n, "query")


def diagnose(
    means: dict[str, float],
    classes: np.ndarray,
    *,
    k: int,
    precision_ceiling: float,
    rr_given_hit: float,
    run_longest: int | None = None,
    answered: int | None = None,
) -> tuple[Finding, ...]:
    """Seed 003's failure classes for one run, from its means at K and its query classes;
    with `run_longest` (its longest list) the short-lists finding; with `answered` (the
    scored queries it has a list for) a run that answers none gets one finding, no list."""
    counts = {c: int((classes == c).sum()) for c in QUERY_CLASSES}
    n = len(classes)
    if answered == 0 and n:
        return (Finding(words.NO_LIST, True, 0.0, "no list for any scored query",
                        words.no_list_sentence(n)),)
    hit, precision = means["Hit"], means["P"]
    late_share = counts["late_hit"] / n if n else 0.0
    found_in_k = rr_given_hit > 0
    buried = (found_in_k and rr_given_hit < BURIED_RR) or late_share >= LATE_HIT_SHARE
    # each part of the rule with its verdict: the sentence says which one raised the flag
    buried_sentence = words.buried_sentence(k, rr_given_hit, counts["late_hit"], n,
                                            rr_below=BURIED_RR, late_share=LATE_HIT_SHARE)
    short = () if run_longest is None else (Finding(
        words.SHORT_LISTS,
        run_longest < k,
        float(run_longest),
        f"longest list < K = {k}",
        (f"Its lists stop at rank {run_longest:,}, before K = {k:,}: "
         f"{words.empty_slots_sentence(k, run_longest)}." if run_longest < k else
         f"Its longest list holds {run_longest:,} ids, at least K = {k:,}."),
    ),)
    return (
        Finding(
            "coverage",
            hit < LOW_HIT,
            hit,
            f"Hit@{k} < {LOW_HIT}",
            f"{counts['miss'] + counts['late_hit']:,} of {_queries(n)} have no relevant id in the "
            f"top {k} ({counts['miss']:,} with none anywhere in the list, {counts['late_hit']:,} "
            f"with one only below rank {k}): the evidence never reaches the window. Check the "
            "index, the query matching and k.",
        ),
        Finding(
            "noisy window",
            precision < LOW_PRECISION * precision_ceiling,
            precision,
            f"P@{k} < {LOW_PRECISION:.0%} of the {figure(precision_ceiling)} the labels allow",
            f"Precision@{k} is {figure(precision)} where the labels allow "
            f"{figure(precision_ceiling)}: "
            f"{1 - precision:.0%} of the slots the generator reads are irrelevant or empty.",
        ),
        Finding(
            "buried",
            buried,
            rr_given_hit,
            f"mean RR over queries with a hit < {BURIED_RR}, or late hits in at least "
            f"{LATE_HIT_SHARE:.0%} of queries",
            buried_sentence,
        ),
        *short,
    )
