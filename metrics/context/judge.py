"""Labels from a model judge beside human ones: what each set covers, how far the judge
agrees with the humans on the pairs both grade, its bias on every figure, and every figure's
human-only, judge-only and prediction-powered means (PPI++, metrics.stats.ppi) with the
paired comparisons of each run against the first; and whether the human-labelled queries
look like a random sample, which the prediction-powered intervals assume.

Two evaluations of the same runs go in: one against the human labels, one against the
judge's, both scoring every query (empty_queries "zero": which queries a human would find
empty is unknown where no human labelled). The judge's queries are the population; the
human-labelled queries among them the labelled sample, the rest the unlabelled part.
The words are declared in metrics.vocabulary.judge; this module only computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.core.evaluate import Evaluation
from metrics.io.arrow import index_in
from metrics.io.rows import Qrels
from metrics.stats.agreement import Agreement, agreement
from metrics.stats.intervals import wilson
from metrics.stats.kappa import Kappa, cohens_kappa, linear_weights
from metrics.stats.ppi import MeanEstimate, clt_mean, ppi_mean
from metrics.vocabulary import format as fmt
from metrics.vocabulary.headline import BETTER, NO_DIFFERENCE, UNCORRECTED, WORSE
from metrics.vocabulary.judge import (
    HUMAN_JUDGES,
    HUMAN_ONLY_METHOD,
    NO_JUDGE_ONLY,
    NO_WIDTH,
    PPI_EVIDENCE,
    PPI_METHOD,
    SAMPLE_CHECK_ALPHA,
    SAMPLE_LOOKS_RANDOM,
    SAMPLE_NOT_RANDOM,
    TOO_FEW_LABELLED,
    rate_basis,
    rate_undefined,
    ratio,
)

__all__ = ["Coverage", "GradeAgreement", "JudgeReport", "Rate", "SampleCheck", "UnderJudge",
           "grade_agreement", "judge_report", "label_agreement", "label_coverage",
           "ppi_headlines", "ppi_regressions", "sample_checks"]


# --------------------------------------------------------------------------- the labels


@dataclass(frozen=True)
class _Pairs:
    """One integer key per (query, doc) row of each label set, equal where the two ids are.
    Each set's distinct ids are matched to the other's once: no id is written out per row (as
    fixed-width text, one 10 MB id made every row 40 MB)."""

    human: np.ndarray
    judge: np.ndarray
    judge_on_labelled: np.ndarray  # each judge row's query is one the humans labelled

    @classmethod
    def of(cls, human: Qrels, judge: Qrels) -> _Pairs:
        n_queries, n_docs = len(human.query_ids), len(human.doc_names)
        query = index_in([str(q) for q in judge.query_ids], [str(q) for q in human.query_ids])
        query = np.where(query >= 0, query, n_queries + np.arange(len(query)))
        doc = index_in(judge.doc_names, human.doc_names)
        doc = np.where(doc >= 0, doc, n_docs + np.arange(len(doc)))
        width = n_docs + len(judge.doc_names)
        judge_query = query[judge.query_code]
        return cls(human.query_code * width + human.doc_code,
                   judge_query * width + doc[judge.doc_code], judge_query < n_queries)


@dataclass(frozen=True)
class Coverage:
    human_queries: int
    judge_queries: int
    both_queries: int
    human_pairs: int
    judge_pairs: int
    both_pairs: int
    human_not_judged: tuple[str, ...]  # human-labelled queries the judge never graded

    def as_dict(self) -> dict:
        return {key: (list(value) if isinstance(value, tuple) else value)
                for key, value in self.__dict__.items()}


def label_coverage(human: Qrels, judge: Qrels) -> Coverage:
    """How many queries and (query, doc) pairs each label set grades, and both."""
    human_ids = [str(q) for q in human.query_ids]
    judged = {str(q) for q in judge.query_ids}
    pairs = _Pairs.of(human, judge)
    both = np.intersect1d(pairs.human, pairs.judge)
    return Coverage(len(human_ids), len(judged), sum(q in judged for q in human_ids),
                    len(human.grade), len(judge.grade), len(both),
                    tuple(q for q in human_ids if q not in judged))


@dataclass(frozen=True)
class Rate:
    """One of the judge's error rates: `part` of the `whole` pairs both label sets grade that
    the humans judge one way, with its Wilson interval; undefined (nan, and why) when no such
    pair exists, never 0."""

    part: int
    whole: int  # the denominator: the pairs the rate is a share of
    mean: float
    low: float
    high: float
    basis: str  # what it counts, of what: '110 of the 534 pairs both label sets grade ...'
    undefined: str  # why it has no value; "" when it has one

    def as_dict(self) -> dict:
        """The rate for JSON: null where it has no value, beside the reason."""
        shown = (None, None, None) if self.undefined else (self.mean, self.low, self.high)
        return {**dict(zip(("rate", "low", "high"), shown, strict=True)), "count": self.part,
                "of": self.whole, "basis": self.basis, "undefined": self.undefined or None}


def _rate(part: int, whole: int, human_judge: str, level: float) -> Rate:
    basis = rate_basis(part, whole, human_judge)
    if whole == 0:
        nan = float("nan")
        return Rate(0, 0, nan, nan, nan, basis, rate_undefined(human_judge))
    found = wilson(part, whole, confidence_level=level)
    return Rate(part, whole, found.mean, found.low, found.high, basis, "")


def _kappa_dict(k: Kappa | None) -> dict | None:
    """A kappa for JSON: null where it has no value, beside the reason."""
    if k is None:
        return None
    names = ("kappa", "se", "low", "high")
    values = (None,) * 4 if k.undefined else (k.kappa, k.se, k.low, k.high)
    return {**dict(zip(names, values, strict=True)), "undefined": k.undefined or None}


@dataclass(frozen=True)
class GradeAgreement:
    """The judge against the humans on the pairs both grade."""

    grades: tuple[int, ...]  # the categories, ascending: rows (human) and columns (judge)
    confusion: np.ndarray  # (len(grades), len(grades)) counts
    kappa: Kappa  # unweighted, on the grades
    weighted_kappa: Kappa | None  # linear weights on the grades; None for two grades or fewer
    binary_kappa: Kappa  # on relevant / not relevant at the relevance level
    false_relevant: Rate  # share of human non-relevant pairs the judge calls relevant
    false_nonrelevant: Rate  # share of human relevant pairs the judge calls not relevant
    relevance_level: int
    # (query, doc) pairs on human-labelled queries that the judge calls relevant and no human
    # graded: the judge's error no rate can see, as neither rate's denominator holds them
    relevant_ungraded: int = 0

    @property
    def pairs(self) -> int:
        return int(self.confusion.sum())

    def as_dict(self) -> dict:
        return {"grades": list(self.grades), "confusion": self.confusion.tolist(),
                "pairs": self.pairs, "kappa": _kappa_dict(self.kappa),
                "weighted_kappa": _kappa_dict(self.weighted_kappa),
                "binary_kappa": _kappa_dict(self.binary_kappa),
                "false_relevant": self.false_relevant.as_dict(),
                "false_nonrelevant": self.false_nonrelevant.as_dict(),
                "relevant_ungraded": self.relevant_ungraded,
                "relevance_level": self.relevance_level}


def grade_agreement(human: Qrels, judge: Qrels, *, relevance_level: int,
                    confidence_level: float) -> GradeAgreement:
    """The confusion matrix of grades, kappa (weighted too for graded labels) and the
    judge's false relevant and false non-relevant rates over the pairs both label; and the
    pairs of the human-labelled queries the judge calls relevant that no human graded."""
    pairs = _Pairs.of(human, judge)
    _, h_rows, j_rows = np.intersect1d(pairs.human, pairs.judge, return_indices=True)
    h, j = human.grade[h_rows], judge.grade[j_rows]
    ungraded = (pairs.judge_on_labelled & (judge.grade >= relevance_level)
                & ~np.isin(pairs.judge, pairs.human))
    grades = np.union1d(h, j).astype(np.int64)
    size = len(grades)
    confusion = np.zeros((size, size), dtype=np.int64)
    np.add.at(confusion, (np.searchsorted(grades, h), np.searchsorted(grades, j)), 1)
    h_relevant, j_relevant = h >= relevance_level, j >= relevance_level
    binary = np.array([[np.sum(~h_relevant & ~j_relevant), np.sum(~h_relevant & j_relevant)],
                       [np.sum(h_relevant & ~j_relevant), np.sum(h_relevant & j_relevant)]])
    level = confidence_level
    named = {"confidence_level": level, "raters": ("the humans", "the judge"), "item": "pair"}
    return GradeAgreement(
        tuple(int(g) for g in grades), confusion,
        cohens_kappa(confusion, **named),
        cohens_kappa(confusion, weights=linear_weights(grades), **named) if size > 2 else None,
        cohens_kappa(binary, **named),
        _rate(int(binary[0, 1]), int(binary[0].sum()), HUMAN_JUDGES["false_relevant"], level),
        _rate(int(binary[1, 0]), int(binary[1].sum()), HUMAN_JUDGES["false_nonrelevant"],
              level),
        relevance_level, int(ungraded.sum()))


# --------------------------------------------------------------------------- the figures


@dataclass(frozen=True)
class UnderJudge:
    """One figure of one run (or one run's difference from the baseline) three ways, and
    the judge's bias on it."""

    run: str
    baseline: str | None  # None for a run's own figure; the first run for a difference
    key: str  # the measure key
    label: str  # 'nDCG@10'
    human: MeanEstimate  # over the human-labelled queries
    judge: MeanEstimate  # over every judged query, judge labels
    ppi: MeanEstimate  # prediction-powered (the human-only one when no query is judge-only)
    bias: MeanEstimate  # judge minus human over the queries both label

    @property
    def lambda_undefined(self) -> str:
        """Why the weight on the judge has no value ("" when it has one): every query is
        human-labelled, so the prediction-powered figure is the human-only one."""
        return NO_JUDGE_ONLY if self.ppi.lam is None else ""

    @property
    def width_ratio(self) -> float:
        """The prediction-powered interval's width over the human-only one's (nan when the
        human-only interval has no width: see `width_undefined`)."""
        return self.ppi.width / self.human.width if self.human.width > 0 else float("nan")

    @property
    def width_undefined(self) -> str:
        return "" if self.human.width > 0 else NO_WIDTH

    @property
    def undefined(self) -> dict[str, str]:
        """The figures without a value, each with why."""
        return {name: why for name, why in (("lambda", self.lambda_undefined),
                                            ("width_ratio", self.width_undefined)) if why}

    def as_dict(self) -> dict:
        def estimate(e: MeanEstimate) -> dict:
            return {"mean": e.mean, "low": e.low, "high": e.high, "se": e.se, "lambda": e.lam,
                    "n_labelled": e.n_labelled, "n_unlabelled": e.n_unlabelled}

        return {"run": self.run, "baseline": self.baseline, "metric": self.key,
                "label": self.label, "human": estimate(self.human),
                "judge": estimate(self.judge), "ppi": estimate(self.ppi),
                "bias": estimate(self.bias),
                "width_ratio": None if self.width_undefined else self.width_ratio,
                "undefined": self.undefined}


@dataclass(frozen=True)
class SampleCheck:
    """One run's figure under the judge's labels, human-labelled queries against the rest."""

    run: str
    label: str
    labelled_mean: float
    unlabelled_mean: float
    pvalue: float  # Mann-Whitney U, two-sided, Bonferroni-corrected over the runs
    flagged: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class JudgeReport:
    k: int
    coverage: Coverage
    grades: GradeAgreement
    figures: tuple[UnderJudge, ...]  # every run x summary figure
    comparisons: tuple[UnderJudge, ...]  # every run but the first x figure, against the first
    agreements: tuple[Agreement, ...]  # per compared figure, human against judge orderings
    sample_checks: tuple[SampleCheck, ...]  # per run, on the primary figure
    lam: float | None  # the weight asked for; None: PPI++'s tuned weight per figure
    n_labelled: int
    n_unlabelled: int
    confidence_level: float

    @property
    def sample_flagged(self) -> tuple[SampleCheck, ...]:
        return tuple(c for c in self.sample_checks if c.flagged)

    @property
    def sample_sentence(self) -> str:
        """The sample check in words: the warning naming the runs that tell the labelled
        queries from the rest, or that they look like a random sample ("" when nothing
        could be checked)."""
        flagged = self.sample_flagged
        if not self.sample_checks:
            return ""
        if not flagged:
            return SAMPLE_LOOKS_RANDOM.format(alpha=SAMPLE_CHECK_ALPHA)
        details = "; ".join(f"{c.run} {fmt.figure(c.labelled_mean)} labelled against "
                            f"{fmt.figure(c.unlabelled_mean)} the rest, p adj "
                            f"{fmt.p_value(c.pvalue)}" for c in flagged)
        return SAMPLE_NOT_RANDOM.format(runs=", ".join(c.run for c in flagged),
                                        figure=flagged[0].label, details=details)

    def figure(self, run: str, key: str) -> UnderJudge:
        for found in self.figures:
            if found.run == run and found.key == key:
                return found
        raise ValueError(f"no figure {key!r} for run {run!r}")

    def as_dict(self) -> dict:
        return {"k": self.k, "coverage": self.coverage.as_dict(),
                "grades": self.grades.as_dict(),
                "lambda": "tuned" if self.lam is None else self.lam,
                "n_labelled": self.n_labelled, "n_unlabelled": self.n_unlabelled,
                "confidence_level": self.confidence_level,
                "figures": [f.as_dict() for f in self.figures],
                "comparisons": [c.as_dict() for c in self.comparisons],
                "agreements": [a.as_dict() for a in self.agreements],
                "sample_checks": [c.as_dict() for c in self.sample_checks]}


def _three_ways(gold: np.ndarray, predicted: np.ndarray, unlabelled: np.ndarray, *,
                lam: float | None, level: float, low: float) -> tuple[MeanEstimate, ...]:
    """Human only, judge only, prediction-powered, and the bias, of one per-query figure
    in [low, 1] (0 for a figure, -1 for a difference): each interval cut to that range, the
    bias's to [-1, 1]."""
    human = clt_mean(gold, confidence_level=level)
    judge = clt_mean(np.concatenate([predicted, unlabelled]), confidence_level=level)
    ppi = (ppi_mean(gold, predicted, unlabelled, lam=lam, confidence_level=level)
           if len(unlabelled) else human)
    bias = clt_mean(predicted - gold, confidence_level=level)
    return (*(e.clipped(low, 1.0) for e in (human, judge, ppi)), bias.clipped(-1.0, 1.0))


def _check_evaluations(human: Evaluation, judge: Evaluation) -> None:
    for name, evaluation in (("human", human), ("judge", judge)):
        if evaluation.conventions.empty_queries != "zero":
            raise ValueError(f"the {name} evaluation must score every query (empty_queries "
                             "'zero'): the unlabelled queries' human labels are unknown")
        if evaluation.within is not None:
            raise ValueError(f"the {name} evaluation is restricted: give the whole one")
    if human.run_names != judge.run_names or human.k != judge.k:
        raise ValueError(f"the two evaluations must hold the same runs at the same K, got "
                         f"{human.run_names} at {human.k} and {judge.run_names} at {judge.k}")


def judge_report(human: Evaluation, judge: Evaluation, *, lam: float | None = None,
                 primary: str = "nDCG") -> JudgeReport:
    """Everything about the judge: `human` and `judge` score the same runs at the same K
    against the human and the judge's labels; `lam` None for PPI++'s tuned weight (per
    figure), else a fixed one in [0, 1]; `primary` the figure the sample check reads."""
    _check_evaluations(human, judge)
    level = judge.conventions.confidence_level
    coverage = label_coverage(human.qrels, judge.qrels)
    judged_row = {q: i for i, q in enumerate(judge.scored_ids)}
    labelled_h = np.array([i for i, q in enumerate(human.scored_ids) if q in judged_row],
                          dtype=np.int64)
    labelled_j = np.array([judged_row[human.scored_ids[i]] for i in labelled_h],
                          dtype=np.int64)
    if len(labelled_h) < 2:
        shared = fmt.count(len(labelled_h), "query") if len(labelled_h) else "no query"
        raise ValueError(TOO_FEW_LABELLED.format(human=human.qrels.source,
                                                 judge=judge.qrels.source, shared=shared))
    unlabelled = np.ones(len(judged_row), dtype=bool)
    unlabelled[labelled_j] = False

    # the compared figures (Judged@K reads the labels' coverage, not the runs)
    specs = [s for s in human.summary_specs if s.measure.compared]
    values_h = {r: human.per_query_scores(r) for r in human.run_names}
    values_j = {r: judge.per_query_scores(r) for r in judge.run_names}

    def parts(run: str, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        y = values_h[run][key][labelled_h]
        f = values_j[run][key]
        return y, f[labelled_j], f[unlabelled]

    figures, comparisons = [], []
    baseline = human.run_names[0]
    for run in human.run_names:
        for spec in specs:
            y, f, u = parts(run, spec.key)
            label = human.label(spec.key)
            figures.append(UnderJudge(run, None, spec.key, label,
                                      *_three_ways(y, f, u, lam=lam, level=level, low=0.0)))
            if run != baseline:
                y0, f0, u0 = parts(baseline, spec.key)
                comparisons.append(UnderJudge(
                    run, baseline, spec.key, label,
                    *_three_ways(y - y0, f - f0, u - u0, lam=lam, level=level, low=-1.0)))

    mask = np.zeros(len(judged_row), dtype=bool)
    mask[labelled_j] = True
    judge_on_labelled = judge.restricted(mask, "the human-labelled queries")
    agreements = tuple(label_agreement(human, judge_on_labelled, s.key,
                                       names=("human", "judge"))
                       for s in specs) if len(human.runs) > 1 else ()
    checks = sample_checks(judge, mask, primary)
    return JudgeReport(judge.k, coverage,
                       grade_agreement(human.qrels, judge.qrels,
                                       relevance_level=judge.conventions.relevance_level,
                                       confidence_level=level),
                       tuple(figures), tuple(comparisons), agreements, checks, lam,
                       int(mask.sum()), int((~mask).sum()), level)


def sample_checks(judge: Evaluation, labelled: np.ndarray, key: str,
                  *, alpha: float = SAMPLE_CHECK_ALPHA) -> tuple[SampleCheck, ...]:
    """Each run's figure `key` under the judge's labels, on the labelled queries (a mask over
    the judge's scored queries) against the rest: Mann-Whitney U, two-sided, Bonferroni over
    the runs; flagged below `alpha`. Nothing to check when either side is empty."""
    from scipy.stats import mannwhitneyu

    if labelled.all() or not labelled.any():
        return ()
    label = judge.label(key)
    found = []
    for run in judge.run_names:
        values = judge.per_query_scores(run)[key]
        a, b = values[labelled], values[~labelled]
        if np.ptp(np.concatenate([a, b])) == 0:
            p = 1.0  # one value everywhere: nothing tells the two apart
        else:
            p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
        p = min(1.0, p * len(judge.run_names))
        found.append(SampleCheck(run, label, float(a.mean()), float(b.mean()), p, p < alpha))
    return tuple(found)



# --------------------------------------------------------------------------- decisions


def _verdict(found: UnderJudge) -> int:
    """+1 when the prediction-powered interval of the difference lies above 0, -1 below,
    0 when it holds 0."""
    return 1 if found.ppi.low > 0 else -1 if found.ppi.high < 0 else 0


def ppi_headlines(report: JudgeReport, key: str) -> list[str]:
    """Each candidate's headline on one figure (a measure key), read from its
    prediction-powered interval of the difference from the baseline (the human-only one, and
    said so, when every query is human-labelled)."""
    found = [c for c in report.comparisons if c.key == key]
    if not found:
        raise ValueError(f"no prediction-powered comparison of {key!r}")
    n = len(found)
    level = fmt.confidence(report.confidence_level)
    sentences = []
    for c in found:
        opening = {1: BETTER, -1: WORSE, 0: NO_DIFFERENCE}[_verdict(c)]
        if c.lambda_undefined:  # no query is judge-only: the interval is the human-only one
            method = HUMAN_ONLY_METHOD.format(level=level, labelled=f"{report.n_labelled:,}")
        else:
            lam = ratio(c.ppi.lam) + (" (PPI++)" if report.lam is None else "")
            method = PPI_METHOD.format(level=level, lam=lam, labelled=f"{report.n_labelled:,}",
                                       others=f"{report.n_unlabelled:,}")
        evidence = PPI_EVIDENCE.format(method=method,
                                       correction="" if n == 1 else UNCORRECTED.format(n=n))
        difference = fmt.difference(c.ppi.mean, c.ppi.low, c.ppi.high)
        sentences.append(opening.format(candidate=c.run, baseline=c.baseline, metric=c.label,
                                        difference=difference) + f" {evidence}.")
    return sentences


def ppi_regressions(report: JudgeReport, key: str) -> list[str]:
    """The candidates whose prediction-powered interval of the difference on `key` lies
    below 0."""
    return [c.run for c in report.comparisons if c.key == key and _verdict(c) < 0]


def label_agreement(first: Evaluation, second: Evaluation, metric: str, *,
                    names: tuple[str, str]) -> Agreement:
    """One figure's orderings of the same runs under two label sets (two evaluations of the
    same runs: human and judge labels, two assessors), `names` naming each label set."""
    first, second = first.with_measures([metric]), second.with_measures([metric])
    key_first, key_second = first.resolve(metric).key, second.resolve(metric).key
    label = first.label(key_first)
    return agreement(f"{label} ({names[0]})", f"{label} ({names[1]})",
                     {run.name: run.summary[key_first].mean for run in first.runs},
                     {run.name: run.summary[key_second].mean for run in second.runs})
