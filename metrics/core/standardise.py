"""A scored evaluation -> the same evaluation with every figure at K standardised: each
query's figure as a z-score against a population of runs (trec_eval -Z), or that z-score
mapped into [0, 1] by the standard normal CDF (Webber, Moffat and Zobel 2008).

The population is a file of standards (`metrics.io.standards`: trec_eval -Z's mean file, each
figure looked up by its trec_eval name at K, else by this tool's label) or the runs loaded
(per query and figure, the mean and sample standard deviation over them). Each run's
per-query figures at K are replaced by the standardised ones (the same at every K: a
standardised evaluation is read at its K, and another K is standardised again), and its
means and intervals are computed again from them on the same resampled queries, so every
comparison made from it reads the standardised figures; `Evaluation.standardised` holds the
sentence every front end prints once and `standardised_words` the words beside each figure.
The query classes, the k suggestion and the diagnosis keep reading the raw figures. A
standardised figure that is undefined (no standard for it; a deviation of 0 with a figure off
the mean; one run alone) is NaN, and `Standardised.undefined` says why, per run, figure and
query.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from metrics.core.asked import value_key
from metrics.core.evaluate import Evaluation, _read_runs
from metrics.core.kernel import Curves
from metrics.io.standards import Standards
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.standardise import (
    UNDEFINED_REASONS,
    Population,
    population,
    unit_scores,
    z_scores,
)
from metrics.vocabulary.conventions import (
    STANDARDISE_SCALES,
    STANDARDISE_SENTENCES,
    STANDARDISE_SOURCES,
    STANDARDISE_WORDS,
)
from metrics.vocabulary.names import Spec, trec_eval_name

__all__ = ["Standardised", "standard_name", "standardise"]


@dataclass(frozen=True, eq=False)
class Standardised:
    evaluation: Evaluation  # its figures at K standardised, its means and intervals of them
    scale: str  # "z" or "cdf"
    source: str  # the words naming the population
    # run name -> figure key -> (n_queries,) why each query's figure is undefined (a code of
    # UNDEFINED_REASONS, 0 when defined)
    undefined: dict[str, dict[str, np.ndarray]]

    def reasons(self, run: str, key: str) -> dict[str, str]:
        """The queries whose standardised figure is undefined -> why."""
        codes = self.undefined[run][key]
        ids = self.evaluation.query_set.query_ids
        return {str(ids[q]): UNDEFINED_REASONS[int(codes[q])] for q in np.flatnonzero(codes)}


def standard_name(spec: Spec, evaluation: Evaluation) -> str:
    """The name a figure has in a file of standards: trec_eval's at K (``P_10``,
    ``ndcg_cut_10``, ``map``), else this tool's per-query label (``INST(T=1)``)."""
    return (trec_eval_name(spec, evaluation.k, evaluation.conventions)
            or spec.label(evaluation.k, evaluation.conventions, summary=False))


def standardise(evaluation: Evaluation, standards: Standards | None = None, *,
                scale: str = "z") -> Standardised:
    """Every figure of `evaluation` at its K standardised against `standards` (a trec_eval
    -Z file, read by `metrics.io.standards.load_standards`) or, when None, against the runs
    it holds. `scale` "z" keeps the z-score, "cdf" maps it into [0, 1]."""
    if scale not in STANDARDISE_SCALES:
        raise ValueError(f"scale must be one of {', '.join(STANDARDISE_SCALES)}, got {scale!r}")
    if evaluation.standardised:
        raise ValueError("the evaluation is standardised already")
    specs = evaluation.query_specs
    ids = [str(q) for q in evaluation.query_set.query_ids]
    k = evaluation.k
    runs = evaluation.runs
    if standards is None:
        if len(runs) < 2:
            raise ValueError("standardising against the runs loaded needs two runs or more")
        source = STANDARDISE_SOURCES["runs"].format(n=len(runs))
    else:
        source = STANDARDISE_SOURCES["file"].format(name=standards.source)
    new_values = [dict(run.scores.values) for run in runs]
    new_asked = [dict(run.asked) for run in runs]
    undefined: list[dict[str, np.ndarray]] = [{} for _ in runs]
    moments: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for spec in specs:
        asked = spec in evaluation.asked
        key = spec.key if asked else value_key(spec)
        column = spec.k(k) - 1
        raw = np.stack([run.curves(spec.key if asked else key)[:, column].astype(float)
                        for run in runs])
        if standards is None:
            mean, deviation = population(raw)
        else:
            name = standard_name(spec, evaluation)
            found = [standards.get(q, name) for q in ids]
            mean = np.array([f[0] if f else np.nan for f in found])
            deviation = np.array([f[1] if f else np.nan for f in found])
        z, why = z_scores(raw, mean, deviation)
        moments[spec.key] = (mean, deviation)
        figures = unit_scores(z) if scale == "cdf" else z
        for i, run in enumerate(runs):
            width = run.scores.width
            flat = Curves(np.broadcast_to(figures[i][:, None], (len(ids), width)))
            (new_asked if asked else new_values)[i][key] = flat
            undefined[i][spec.key] = why[i]
    scored_runs = [(run.run, run.aligned, dataclasses.replace(run.scores, values=values),
                    run.report) for run, values in zip(runs, new_values, strict=True)]
    c = evaluation.conventions
    resamples = resampled_queries(int(evaluation.scored.sum()), seed=c.seed,
                                  n_resamples=c.n_resamples)
    longest = max(int(run.scores.list_length.max(initial=0)) for run in runs)
    within = evaluation.within.mask if evaluation.within is not None else None
    read = _read_runs(scored_runs, evaluation.query_set, evaluation.scored, c, k, resamples,
                      longest, within,
                      (evaluation.asked, [(curves, run.readings)
                                          for curves, run in zip(new_asked, runs, strict=True)]),
                      bootstrap_only=True)
    # the query classes, the k suggestion and the diagnosis read the raw figures (where the
    # relevant ids sit, how much of the window is noise): kept as they were
    read = tuple(dataclasses.replace(new, classes=old.classes, suggestion=old.suggestion,
                                     diagnosis=old.diagnosis)
                 for new, old in zip(read, runs, strict=True))
    sentence = STANDARDISE_SENTENCES[scale].format(source=source)
    words = STANDARDISE_WORDS[scale].format(source=source)
    standardised = dataclasses.replace(evaluation, runs=read, standardised=sentence,
                                       standardised_words=words,
                                       population=Population(scale, moments))
    return Standardised(standardised, scale, source,
                        {run.name: found for run, found in zip(runs, undefined, strict=True)})
