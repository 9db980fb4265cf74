"""Risk-sensitive review: which queries does a candidate hurt, and is it riskier than the baseline?

From the per-query differences d_i (candidate - baseline) over n queries: URisk_α and TRisk_α
(a loss weighs 1 + α times), the harm share (d_i < -δ; a loss of exactly δ is not harm) with
its Wilson interval, the mean loss over the queries with d_i < 0, and the worst losses. The
harm gate (``compare --max-harm nDCG@10=0.10:0.05``) fails a candidate whose harm share
exceeds the limit. A comparison's figures come from one vectorised pass over a (queries x
tests) array. The formulas and words are in ``metrics.vocabulary.risk``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics.decide.budget import one_per_metric, split_limit
from metrics.stats import validate
from metrics.stats.comparison import Comparison
from metrics.stats.intervals import wilson
from metrics.stats.paired import DIFFERENCE_NOISE, check_delta
from metrics.stats.paired import harmed as beyond  # the harm rule, on checked arrays
from metrics.vocabulary.conventions import DEFAULT_CONFIDENCE, Conventions
from metrics.vocabulary.format import natural_key
from metrics.vocabulary.risk import (
    HARM_DELTA,
    HARM_PARSE_ERRORS,
    MIN_QUERIES,
    RISK_ALPHAS,
    WORST_LOSSES,
    alpha_key,
    delta_words,
    harm_gate_sentence,
    harm_sentence,
    limit_words,
    risk_sentence,
    trisk_reading,
)

__all__ = [
    "HarmLimit", "HarmVerdict", "Risk", "harm_gate", "harm_passed", "judge_harm",
    "parse_harm_limit", "parse_harm_limits", "risk", "risk_rows", "risks", "trisk", "urisk",
]

# A share within this distance of the limit counts as on it (passes): comparison differences
# are rounded to 12 decimals (metrics.stats.paired), so a smaller gap is float noise.
_TOLERANCE = DIFFERENCE_NOISE


# --------------------------------------------------------------------------- URisk and TRisk


def _as_differences(values: object, minimum: int) -> np.ndarray:
    """values as a float array of shape (queries,) or (queries, columns), at least `minimum`
    queries, every value finite."""
    return validate.check_values("differences", values, ndim=(1, 2), least=minimum)




def _check_alpha(alpha: object) -> float:
    return validate.check_number("a risk aversion α", alpha, low=0)


def _weighed(differences: np.ndarray, alpha: float) -> np.ndarray:
    """z, queries last and contiguous: a loss weighs 1 + α times, a gain or a tie as it is.
    Reducing a contiguous axis sums pairwise, as for one column alone, so a column's figures
    are the same floats whether it comes alone or with others."""
    z = np.where(differences < 0, (1 + alpha) * differences, differences)
    return np.ascontiguousarray(z.T)


def _shaped(values: np.ndarray, differences: np.ndarray) -> float | np.ndarray:
    return float(values) if differences.ndim == 1 else values  # a float for one column


def urisk(differences: object, alpha: float) -> float | np.ndarray:
    """URisk_α = mean of z over the queries: a float for differences of shape (n,), one value
    per column, shape (m,), for (n, m). Needs at least 1 query."""
    d = _as_differences(differences, 1)
    return _urisk(d, _check_alpha(alpha))


def _urisk(d: np.ndarray, alpha: float) -> float | np.ndarray:
    return _shaped(_weighed(d, alpha).mean(axis=-1), d)


def trisk(differences: object, alpha: float) -> float | np.ndarray:
    """TRisk_α = URisk_α / (s_z / √n), s_z with ddof = 1: a float for (n,), shape (m,) for
    (n, m). Needs at least 2 queries (ValueError otherwise: one query has no spread).

    When every z of a column is equal, s_z = 0 and the ratio has no finite value: TRisk is 0.0
    when every difference is 0 (nothing changed, no risk either way) and nan when every query
    changed by the same non-zero amount, as PairedTest.effect_size does; nan is undefined, not
    ±inf, so that JSON (None) and the reading (metrics.vocabulary.risk.UNDEFINED) can say so,
    and URisk's sign says which way. Equality is tested exactly, not on s_z, which float
    summation can leave at 1e-17 for equal values.
    """
    return _trisk(_as_differences(differences, MIN_QUERIES), _check_alpha(alpha))


def _trisk(d: np.ndarray, alpha: float) -> float | np.ndarray:
    z = _weighed(d, alpha)
    constant = (z == z[..., :1]).all(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = z.mean(axis=-1) / (z.std(axis=-1, ddof=1) / np.sqrt(z.shape[-1]))
    return _shaped(np.where(constant, np.where(z[..., 0] == 0, 0.0, np.nan), ratio), d)


# --------------------------------------------------------------------------- one Risk per test


@dataclass(frozen=True)
class Risk:
    """The risk of one candidate against the baseline on one metric, over n queries.

    ``urisk`` and ``trisk`` hold one value per α of ``alphas`` (trisk nan when undefined).
    ``harmed`` queries lose more than ``harm_delta``; ``harm_share`` = harmed / n with the
    Wilson interval [harm_low, harm_high] at ``confidence_level``. ``losing`` queries lose
    anything; ``mean_loss`` is the mean size (> 0) of their losses, nan when none loses.
    ``worst`` is (query id, difference) for at most the N worst losses, worst first.
    """

    candidate: str
    metric: str
    n: int
    alphas: tuple[float, ...]
    urisk: tuple[float, ...]
    trisk: tuple[float, ...]
    harm_delta: float
    harmed: int
    harm_share: float
    harm_low: float
    harm_high: float
    confidence_level: float
    losing: int
    mean_loss: float
    worst: tuple[tuple[str, float], ...]

    def _at(self, values: tuple[float, ...], alpha: float) -> float:
        keys = [alpha_key(a) for a in self.alphas]
        if alpha_key(alpha) not in keys:
            raise ValueError(f"α = {alpha!r} was not computed; computed: {', '.join(keys)}")
        return values[keys.index(alpha_key(alpha))]

    def urisk_at(self, alpha: float) -> float:
        return self._at(self.urisk, alpha)

    def trisk_at(self, alpha: float) -> float:
        return self._at(self.trisk, alpha)

    def reading(self, alpha: float) -> str:
        """TRisk_α in words: reliably safer, reliably riskier, not reliably different."""
        return trisk_reading(self.trisk_at(alpha))

    @property
    def sentence(self) -> str:
        """The harm share and the mean loss in words (metrics.vocabulary.risk.harm_sentence)."""
        return harm_sentence(candidate=self.candidate, metric=self.metric,
                             delta=self.harm_delta, harm_share=self.harm_share,
                             low=self.harm_low, high=self.harm_high, harmed=self.harmed,
                             n=self.n, losing=self.losing, mean_loss=_json_float(self.mean_loss))

    def risk_sentence(self, alpha: float) -> str:
        """URisk_α and TRisk_α with the reading."""
        return risk_sentence(alpha, _json_float(self.urisk_at(alpha)),
                             _json_float(self.trisk_at(alpha)))

    def as_dict(self) -> dict:
        """JSON-friendly: plain Python types, α as string keys ("1", "5"), None for nan."""
        keys = [alpha_key(alpha) for alpha in self.alphas]
        return {
            "urisk": {key: _json_float(v) for key, v in zip(keys, self.urisk, strict=True)},
            "trisk": {key: _json_float(v) for key, v in zip(keys, self.trisk, strict=True)},
            "reading": {key: trisk_reading(v) for key, v in zip(keys, self.trisk, strict=True)},
            "n": int(self.n),
            "harm_delta": float(self.harm_delta),
            "harmed": int(self.harmed),
            "harm_share": float(self.harm_share),
            "harm_low": float(self.harm_low),
            "harm_high": float(self.harm_high),
            "confidence_level": float(self.confidence_level),
            "losing": int(self.losing),
            "mean_loss": _json_float(self.mean_loss),
            "worst": [{"query_id": q, "difference": float(d)} for q, d in self.worst],
        }


def _json_float(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _check_alphas(alphas: object) -> tuple[float, ...]:
    if isinstance(alphas, str) or not isinstance(alphas, Sequence) or not alphas:
        raise ValueError(f"alphas must be a non-empty sequence of numbers >= 0, got {alphas!r}")
    checked = tuple(_check_alpha(alpha) for alpha in alphas)
    keys = [alpha_key(alpha) for alpha in checked]
    if len(set(keys)) != len(keys):
        raise ValueError(f"alphas must be distinct, got {', '.join(keys)}")
    return checked


def _check_worst(worst: object) -> int:
    return validate.check_integer("worst", worst)


def _worst(column: np.ndarray, ids: Sequence[str], keep: int) -> tuple[tuple[str, float], ...]:
    """The `keep` most negative differences, worst first, ties in natural query-id order (then
    plain order, so 'q01' and 'q1' keep a fixed order too). Only the candidates for the cut are
    sorted in Python: the losers at or below the keep-th worst value."""
    losers = np.flatnonzero(column < 0)
    if keep == 0 or losers.size == 0:
        return ()
    if losers.size > keep:
        cut = np.partition(column[losers], keep - 1)[keep - 1]
        losers = losers[column[losers] <= cut]
    order = sorted(losers.tolist(),
                   key=lambda i: (column[i], natural_key(ids[i]), ids[i]))[:keep]
    return tuple((ids[i], float(column[i])) for i in order)


def _risks(differences: np.ndarray, query_ids: Sequence[str], names: Sequence[tuple[str, str]],
           *, delta: object, alphas: object, confidence_level: object,
           worst: object) -> tuple[Risk, ...]:
    """One Risk per column of differences (n, m); names are (candidate, metric) per column."""
    d = _as_differences(differences, MIN_QUERIES)
    delta = check_delta(delta)
    alphas = _check_alphas(alphas)
    level = validate.check_fraction("confidence_level", confidence_level)
    keep = _check_worst(worst)
    if isinstance(query_ids, str) or not isinstance(query_ids, Sequence | np.ndarray):
        raise ValueError(f"query_ids must be a sequence of ids, got {query_ids!r}")
    if len(query_ids) != d.shape[0]:
        raise ValueError(f"need one query id per difference ({d.shape[0]}), "
                         f"got {len(query_ids)}")
    ids = [str(q) for q in query_ids]
    n = d.shape[0]
    u = np.array([_urisk(d, alpha) for alpha in alphas]).reshape(len(alphas), -1)
    t = np.array([_trisk(d, alpha) for alpha in alphas]).reshape(len(alphas), -1)
    rows = np.ascontiguousarray(d.T)  # summed pairwise, as one column alone (see _weighed)
    harmed = beyond(rows, delta).sum(axis=1)
    losses = rows < 0
    losing = losses.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_loss = -np.where(losses, rows, 0.0).sum(axis=1) / losing  # nan where none loses
    result = []
    for j, (candidate, metric) in enumerate(names):
        interval = wilson(int(harmed[j]), n, confidence_level=level)
        result.append(Risk(
            candidate=str(candidate), metric=str(metric), n=n, alphas=alphas,
            urisk=tuple(float(v) for v in u[:, j]), trisk=tuple(float(v) for v in t[:, j]),
            harm_delta=delta, harmed=int(harmed[j]), harm_share=interval.mean,
            harm_low=interval.low, harm_high=interval.high, confidence_level=level,
            losing=int(losing[j]), mean_loss=float(mean_loss[j]),
            worst=_worst(d[:, j], ids, keep),
        ))
    return tuple(result)


def risk(test: object, query_ids: Sequence[str], *, delta: float = HARM_DELTA,
         alphas: Sequence[float] = RISK_ALPHAS, confidence_level: float = DEFAULT_CONFIDENCE,
         worst: int = WORST_LOSSES) -> Risk:
    """The Risk of one paired test: anything with ``differences`` (candidate - baseline, in
    the order of query_ids, at least 2 queries), ``candidate`` and ``metric``."""
    for name in ("differences", "candidate", "metric"):
        if not hasattr(test, name):
            raise ValueError(f"risk needs a paired test with .{name}, got {type(test).__name__}")
    d = np.asarray(test.differences, dtype=float)
    if d.ndim != 1:
        raise ValueError(f"a test's differences must be 1-D, got shape {d.shape}")
    return _risks(d[:, None], query_ids, [(test.candidate, test.metric)], delta=delta,
                  alphas=alphas, confidence_level=confidence_level, worst=worst)[0]


def risks(comparison: Comparison, *, delta: float = HARM_DELTA,
          alphas: Sequence[float] = RISK_ALPHAS, confidence_level: float | None = None,
          worst: int = WORST_LOSSES) -> tuple[Risk, ...]:
    """One Risk per test of the comparison, in its order, in one pass; the Wilson interval at
    the comparison's confidence level unless another is given."""
    if not isinstance(comparison, Comparison):
        raise ValueError(f"risks needs a Comparison, got {type(comparison).__name__}")
    level = comparison.confidence_level if confidence_level is None else confidence_level
    d = np.column_stack([test.differences for test in comparison.tests])
    return _risks(d, comparison.query_ids, [(t.candidate, t.metric) for t in comparison.tests],
                  delta=delta, alphas=alphas, confidence_level=level, worst=worst)


def risk_rows(comparison: Comparison, *, delta: float = HARM_DELTA,
              alphas: Sequence[float] = RISK_ALPHAS, confidence_level: float | None = None,
              worst: int = WORST_LOSSES) -> list[dict]:
    """Risk.as_dict() per test of the comparison, in its order (options as for risks)."""
    return [item.as_dict() for item in risks(comparison, delta=delta, alphas=alphas,
                                             confidence_level=confidence_level, worst=worst)]


# --------------------------------------------------------------------------- the harm gate


@dataclass(frozen=True)
class HarmLimit:
    """The largest share of queries (0 to 1) a candidate may harm on one metric, a query being
    harmed when it loses more than ``delta`` (the metric's units)."""

    metric_label: str
    share: float
    delta: float = HARM_DELTA

    def __post_init__(self) -> None:
        if not isinstance(self.metric_label, str) or not self.metric_label:
            raise ValueError(f"a harm limit's metric must be a label, got {self.metric_label!r}")
        share = self.share
        if not validate.is_number(share) or not 0 <= share <= 1:
            raise ValueError(f"harm limit on {self.metric_label}: {HARM_PARSE_ERRORS['share']}, "
                             f"got {share!r}")
        try:
            delta = check_delta(self.delta)
        except ValueError:
            raise ValueError(f"harm limit on {self.metric_label}: {HARM_PARSE_ERRORS['delta']}, "
                             f"got {self.delta!r}") from None
        object.__setattr__(self, "share", float(share))
        object.__setattr__(self, "delta", delta)

    def __str__(self) -> str:
        """As written on the command line: 'nDCG@10=10%:0.05'."""
        return f"{self.metric_label}={limit_words(self.share)}:{delta_words(self.delta)}"


@dataclass(frozen=True)
class HarmVerdict:
    """One candidate's harm share on one metric held to a limit: passed when the share (the
    point estimate) is at most the limit; [low, high] is its Wilson interval."""

    candidate: str
    metric: str
    limit: HarmLimit
    harmed: int
    n: int
    harm_share: float
    low: float
    high: float
    confidence_level: float
    passed: bool

    @property
    def delta(self) -> float:
        return self.limit.delta

    def as_dict(self) -> dict:
        """What a gate row carries: plain Python types."""
        return {"candidate": self.candidate, "metric": self.metric,
                "share": self.harm_share, "low": self.low, "high": self.high,
                "limit": self.limit.share, "delta": self.delta, "harmed": self.harmed,
                "n": self.n, "passed": self.passed}

    @property
    def sentence(self) -> str:
        """e.g. 'harms too many queries: 12.0% of queries [9.4%, 15.1%] (60 of 500) lose more
        than 0.05 nDCG@10; the limit is 10% (95% Wilson interval)'."""
        return harm_gate_sentence(passed=self.passed, metric=self.metric, delta=self.delta,
                                  harm_share=self.harm_share, low=self.low, high=self.high,
                                  harmed=self.harmed, n=self.n, limit=self.limit.share,
                                  confidence_level=self.confidence_level)


def _parse_number(written: str, text: str, part: str) -> float:
    try:
        value = float(written)
    except ValueError:
        raise ValueError(f"harm limit {text!r}: {part.upper()} {written!r} is not a number; "
                         f"{HARM_PARSE_ERRORS[part]}") from None
    if not validate.is_number(value):
        raise ValueError(f"harm limit {text!r}: {part.upper()} {written!r}: "
                         f"{HARM_PARSE_ERRORS[part]}")
    return value


def parse_harm_limit(text: str, k: int, conventions: Conventions) -> HarmLimit:
    """'nDCG@10=0.10:0.05', 'nDCG@10=10%:0.05' or 'MRR=0.1' (K implied, δ = HARM_DELTA) -> a
    HarmLimit on the label the comparison at K uses under the conventions. ValueError naming
    the bad part."""
    label, written = split_limit(text, k, conventions, kind="harm limit",
                                 example="nDCG@10=0.10:0.05", value="the share",
                                 form=HARM_PARSE_ERRORS["form"])
    share_text, colon, delta_text = (part.strip() for part in written.partition(":"))
    if not share_text or (colon and not delta_text):
        missing = "the share" if not share_text else "DELTA after ':'"
        raise ValueError(f"harm limit {text!r} lacks {missing}: {HARM_PARSE_ERRORS['form']}")
    if share_text.endswith("%"):
        share = _parse_number(share_text[:-1].strip(), text, "share") / 100
    else:
        share = _parse_number(share_text, text, "share")
    if not 0 <= share <= 1:
        hint = ""
        if 1 < share <= 100 and not share_text.endswith("%"):
            hint = f" (did you mean {share_text}%?)"
        raise ValueError(f"harm limit {text!r}: SHARE {share_text!r}: "
                         f"{HARM_PARSE_ERRORS['share']}{hint}")
    delta = HARM_DELTA
    if colon:
        if delta_text.endswith("%"):
            raise ValueError(f"harm limit {text!r}: DELTA {delta_text!r}: "
                             f"{HARM_PARSE_ERRORS['delta']}")
        delta = _parse_number(delta_text, text, "delta")
        if not 0 <= delta <= 1:
            raise ValueError(f"harm limit {text!r}: DELTA {delta_text!r}: "
                             f"{HARM_PARSE_ERRORS['delta']}")
    return HarmLimit(label, share, delta)


def parse_harm_limits(texts: Sequence[str], k: int, conventions: Conventions
                      ) -> tuple[HarmLimit, ...]:
    """Every --max-harm of one call, in order; a metric may have one harm limit only."""
    if isinstance(texts, str):
        texts = [texts]
    return one_per_metric(tuple(parse_harm_limit(text, k, conventions) for text in texts),
                          "harm limits")


def judge_harm(test: object, limit: HarmLimit, *,
               confidence_level: float = DEFAULT_CONFIDENCE) -> HarmVerdict:
    """Hold one paired test's harm share (differences below -δ over n) to a limit; passed when
    the share is at most the limit (exactly on it passes)."""
    confidence_level = validate.check_fraction("confidence_level", confidence_level)
    if not isinstance(limit, HarmLimit):
        raise ValueError(f"judge_harm needs a HarmLimit, got {type(limit).__name__}")
    if getattr(test, "metric", None) != limit.metric_label:
        raise ValueError(f"the harm limit is on {limit.metric_label}, the test on "
                         f"{getattr(test, 'metric', None)}")
    d = _as_differences(getattr(test, "differences", None), 1)
    if d.ndim != 1:
        raise ValueError(f"a test's differences must be 1-D, got shape {d.shape}")
    harmed = int(beyond(d, limit.delta).sum())
    interval = wilson(harmed, d.size, confidence_level=confidence_level)
    return HarmVerdict(
        candidate=str(test.candidate), metric=limit.metric_label, limit=limit, harmed=harmed,
        n=int(d.size), harm_share=interval.mean, low=interval.low, high=interval.high,
        confidence_level=confidence_level,
        passed=bool(interval.mean <= limit.share + _TOLERANCE),
    )


def harm_gate(comparison: Comparison, limits: Sequence[HarmLimit]) -> tuple[HarmVerdict, ...]:
    """One verdict per test of the comparison whose metric has a harm limit, in the
    comparison's order (candidates outer). Every limit must name a compared metric, one each."""
    if not isinstance(comparison, Comparison):
        raise ValueError(f"harm_gate needs a Comparison, got {type(comparison).__name__}")
    if isinstance(limits, HarmLimit | str):
        limits = [limits]
    by_metric: dict[str, HarmLimit] = {}
    for limit in limits:
        if not isinstance(limit, HarmLimit):
            raise ValueError(f"harm limits must be HarmLimit objects (parse_harm_limit reads "
                             f"text), got {type(limit).__name__}")
        if limit.metric_label not in comparison.metrics:
            raise ValueError(f"harm limit on {limit.metric_label}, which is not compared; "
                             f"compared: {', '.join(comparison.metrics)}")
        if limit.metric_label in by_metric:
            raise ValueError(f"two harm limits on {limit.metric_label}; give one")
        by_metric[limit.metric_label] = limit
    return tuple(
        judge_harm(test, by_metric[test.metric], confidence_level=comparison.confidence_level)
        for test in comparison.tests if test.metric in by_metric
    )


def harm_passed(verdicts: Sequence[HarmVerdict]) -> bool:
    """Whether the harm gate passes: every candidate within its limit (True when none is held)."""
    return all(verdict.passed for verdict in verdicts)
