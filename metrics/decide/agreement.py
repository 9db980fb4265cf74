"""Do two measures, two K or two label sets rank the runs the same? Each ordering is the
runs by their mean (best first); between two orderings, Kendall's tau and tau_AP
(metrics.stats.agreement) and the pairs of runs that swap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.stats.agreement import discordant_pairs, kendall_tau, order, tau_ap
from metrics.vocabulary.agreement import TAU_ALL_TIED, UNDEFINED, agreement_sentence

__all__ = ["Agreement", "agreement", "label_agreement", "measure_agreements"]


@dataclass(frozen=True)
class Agreement:
    """Two orderings of the same runs and how far they agree."""

    first: str  # what orders the runs first: a label, "nDCG@10 (qrels a.txt)"
    second: str
    means_first: tuple[float, ...]  # per run, in the runs' order
    means_second: tuple[float, ...]
    runs: tuple[str, ...]
    tau: float
    tau_ap: float  # the second ordering against the first
    swapped: tuple[tuple[str, str], ...]  # (a, b): the first puts a above b, the second below

    @property
    def order_first(self) -> tuple[str, ...]:
        return tuple(self.runs[i] for i in order(self.means_first))

    @property
    def order_second(self) -> tuple[str, ...]:
        return tuple(self.runs[i] for i in order(self.means_second))

    @property
    def tau_undefined(self) -> str:
        """Why tau has no value ("" when it has one): fewer than two runs, or an ordering
        that ties every run."""
        if len(self.runs) < 2:
            return UNDEFINED
        tied = [name for name, means in ((self.first, self.means_first),
                                         (self.second, self.means_second))
                if len(set(means)) == 1]
        return TAU_ALL_TIED.format(ordering=tied[0]) if tied else ""

    @property
    def tau_ap_undefined(self) -> str:
        """Why tau_AP has no value: fewer than two runs (it orders ties as given)."""
        return UNDEFINED if len(self.runs) < 2 else ""

    @property
    def undefined(self) -> dict[str, str]:
        """The figures without a value, each with why."""
        return {name: why for name, why in (("tau", self.tau_undefined),
                                            ("tau_ap", self.tau_ap_undefined)) if why}

    @property
    def sentence(self) -> str:
        n = len(self.runs)
        return agreement_sentence(self.first, self.second, self.tau, self.tau_ap,
                                  len(self.swapped), n * (n - 1) // 2,
                                  tau_why=self.tau_undefined)

    def as_dict(self) -> dict:
        return {"first": self.first, "second": self.second,
                "order_first": list(self.order_first), "order_second": list(self.order_second),
                "tau": None if self.tau_undefined else self.tau,
                "tau_ap": None if self.tau_ap_undefined else self.tau_ap,
                "swapped": [list(pair) for pair in self.swapped], "sentence": self.sentence,
                "undefined": self.undefined}


def agreement(first: str, second: str, means_first: Mapping[str, float],
              means_second: Mapping[str, float]) -> Agreement:
    """Two orderings of the runs both mappings hold (run -> mean), in the first's order."""
    runs = tuple(means_first)
    if set(runs) != set(means_second):
        raise ValueError(f"the two orderings must hold the same runs, got {sorted(runs)} and "
                         f"{sorted(means_second)}")
    a = np.array([means_first[r] for r in runs], dtype=float)
    b = np.array([means_second[r] for r in runs], dtype=float)
    swapped = []
    for i, j in discordant_pairs(a, b):
        swapped.append((runs[i], runs[j]) if a[i] > a[j] else (runs[j], runs[i]))
    return Agreement(first, second, tuple(a.tolist()), tuple(b.tolist()), runs,
                     kendall_tau(a, b), tau_ap(a, b), tuple(swapped))


def _means(evaluation: Evaluation, key: str) -> dict[str, float]:
    return {run.name: run.summary[key].mean for run in evaluation.runs}


def measure_agreements(evaluation: Evaluation, metrics: Sequence[str], *,
                       against: str | None = None) -> list[Agreement]:
    """The orderings of the runs under figures of one evaluation (any names: 'nDCG@10',
    'MRR@10', 'nDCG@100', 'Rprec'), each against `against` when given, else every pair."""
    named = [*metrics, *([against] if against is not None else [])]
    evaluation = evaluation.with_measures(named)
    keys = list(dict.fromkeys(evaluation.resolve(m).key for m in metrics))
    if against is not None:
        reference = evaluation.resolve(against).key
        pairs = [(reference, key) for key in keys if key != reference]
    else:
        pairs = list(combinations(keys, 2))
    return [agreement(evaluation.label(a), evaluation.label(b), _means(evaluation, a),
                      _means(evaluation, b)) for a, b in pairs]


def label_agreement(first: Evaluation, second: Evaluation, metric: str, *,
                    names: tuple[str, str]) -> Agreement:
    """One figure's orderings of the same runs under two label sets (two evaluations of the
    same runs: human and judge labels, two assessors), `names` naming each label set."""
    first, second = first.with_measures([metric]), second.with_measures([metric])
    key_first, key_second = first.resolve(metric).key, second.resolve(metric).key
    label = first.label(key_first)
    return agreement(f"{label} ({names[0]})", f"{label} ({names[1]})",
                     _means(first, key_first), _means(second, key_second))
