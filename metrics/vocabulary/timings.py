"""What a query costs, declared once: the per-query columns a run may carry (``latency_ms``,
``cost``, ``tokens``) and the timings side file's header (``--timings FILE``), the figures
read from them (mean, p50, p95, p99), the method their intervals are made by, the latency
gate's flag and words (``compare --max-latency p95=+20%``), and the headline's piece.

The readers (metrics/io/timings.py), the figures (metrics/decide/latency.py), the command
line, the dashboard and the report read these names. Pure: no numpy.
"""

from __future__ import annotations

from metrics.vocabulary.budget import CANNOT_TELL, WITHIN, WORSE
from metrics.vocabulary.format import confidence

# --------------------------------------------------------------------------- the columns

LATENCY = "latency_ms"
COST = "cost"
TOKENS = "tokens"
# column -> (what it holds, its unit as figures are written)
TIMING_COLUMNS: dict[str, tuple[str, str]] = {
    LATENCY: ("The query's response time in milliseconds, from the call to the ranked list.",
              "ms"),
    COST: ("What the query cost, in any currency (one currency per file).", ""),
    TOKENS: ("Tokens the query used (a model's prompt and answer, a reranker's input).", ""),
}
TIMING_NAMES = tuple(TIMING_COLUMNS)
# the side file (--timings FILE): a header naming these columns, then one row per (query,
# run); the query column takes the run files' names for it
TIMINGS_QUERY = ("query_id", "qid")
TIMINGS_RUN = "run"
TIMINGS_REQUIRED = (TIMINGS_QUERY[0], TIMINGS_RUN, LATENCY)
TIMINGS_HEADER = "query_id,run,latency_ms[,cost][,tokens]"

TIMINGS_FLAG = "--timings"
TIMINGS_HELP = (
    f"a CSV/TSV file with the header {TIMINGS_HEADER}: each query's latency (and cost, "
    "tokens) under each run, named as --run names it. A CSV/TSV/Parquet run may carry the "
    "same columns itself (one value per query, repeated on its rows)."
)

# how a value is refused, said after 'FILE, line N: <column> '
VALUE_PROBLEMS = {
    "number": "must be a number, got {got}",
    "finite": "must be finite, got {got}",
    "negative": "must be 0 or more, got {got}",
}

# --------------------------------------------------------------------------- the figures

MEAN = "mean"
# the quantiles read, by name -> the share of queries at or below it
QUANTILES: dict[str, float] = {"p50": 0.50, "p95": 0.95, "p99": 0.99}
STATISTICS = (MEAN, *QUANTILES)
# numpy's quantile method the point and every resampled quantile are read with (Hyndman and
# Fan's type 7, numpy's default: linear between the two order statistics around (n-1)q)
QUANTILE_METHOD = "linear"

QUANTILE_INTERVAL = (
    "A quantile's interval is a percentile bootstrap of the quantile: the queries are "
    "resampled (the conventions' seed and resamples, the draws every interval reads), the "
    "quantile (numpy's linear method, type 7) is read on each resample, and the interval is "
    "the {level} central range of those quantiles. Not a mean's interval: no normal "
    "approximation and no BCa (its acceleration assumes a smooth statistic); a quantile of "
    "few queries moves in steps, so its interval is coarse at p99 below a few hundred queries."
)
MEAN_INTERVAL = "the mean's percentile bootstrap over the same resampled queries"
PAIRED = (
    "Paired over the queries timed in both runs: the mean difference is the mean of the "
    "per-query differences (candidate − baseline); the p95 difference and the ratio of p95s "
    "read both runs' p95 on the same resampled queries, each resample's difference or ratio "
    "giving the interval."
)
QUERIES_READ = (
    "Timings are read over the scored queries (those the effectiveness figures average), so "
    "that the trade-off chart's two axes describe the same queries; a scored query without a "
    "timing is counted as missing and left out of that run's figures."
)


# the trade-off chart's Pareto front: read on the point figures, then held against the
# intervals (metrics.decide.latency.pareto_standing)
FRONT = "Pareto front"
FRONT_UNSURE = "front, not certain"
DOMINATED = "dominated"
DOMINATED_UNSURE = "dominated, not certain"
STANDINGS = (FRONT, FRONT_UNSURE, DOMINATED, DOMINATED_UNSURE)
FRONT_RULE = (
    "The front is read on the point figures: a run is on it when no other run is as fast "
    "(or cheap) and as good, better in one. Then the intervals: a run on the front is "
    "certain when no other run could dominate it (no other run's cost interval reaches down "
    "to its cost interval's top while that run's score interval reaches up to its score "
    "interval's bottom); a dominated run is certain when another run's two intervals lie "
    "wholly on the better side of its own (cheaper and better, no overlap). Otherwise the "
    "intervals overlap and its place is not certain (a reading of each run's own intervals, "
    "not a paired test)."
)


def figure_sentence(statistic: str, column: str, *, n: int, level: float) -> str:
    """What one figure is, e.g. 'p95 of latency_ms over 1,500 queries; 95% percentile
    bootstrap of the quantile'."""
    method = (MEAN_INTERVAL if statistic == MEAN
              else f"{confidence(level)} percentile bootstrap of the quantile (numpy's "
              f"{QUANTILE_METHOD} method) over the resampled queries")
    return f"{statistic} of {column} over {n:,} queries; {method}"


def amount(value: float | None, column: str = LATENCY) -> str:
    """A figure in its unit: '35 ms', '0.0012'; undefined as written by format."""
    if value is None or value != value:
        return "undefined"
    unit = TIMING_COLUMNS[column][1]
    if unit == "ms":
        return f"{value:,.0f} ms" if abs(value) >= 100 else f"{value:,.1f} ms"
    return f"{value:,.4g}"


def signed_amount(value: float | None, column: str = LATENCY) -> str:
    """A difference in its unit with its sign, as format.signed writes one: '+35 ms',
    '-2.1 ms'."""
    if value is None or value != value:
        return "undefined"
    text = amount(abs(value), column)
    return ("+" if value >= 0 else "-") + text


def signed_percent(ratio: float | None) -> str:
    """A ratio as a change: 1.42 -> '+42%'."""
    if ratio is None or ratio != ratio:
        return "undefined"
    change = (ratio - 1) * 100
    return ("+" if change >= 0 else "-") + f"{abs(change):.0f}%"


def ratio_interval(value: float, low: float, high: float) -> str:
    """A ratio of quantiles with its interval and as a change: '1.42x [1.30, 1.55] (+42%)',
    in the text output and the dashboard's tables alike."""
    return f"{value:.2f}x [{low:.2f}, {high:.2f}] ({signed_percent(value)})"


# the headline's piece: 'p95 latency +35 ms [+28, +43] (+42%)'
HEADLINE = "{statistic} latency {difference} [{low}, {high}] ({change})"
HEADLINE_UNDEFINED = "{statistic} latency: {reason}"


def headline_piece(statistic: str, difference: float, low: float, high: float,
                   ratio: float | None) -> str:
    """The latency piece of a headline, e.g. 'p95 latency +35 ms [+28, +43] (+42%)'."""
    def bare(value: float) -> str:
        return signed_amount(value).replace(" ms", "")
    return HEADLINE.format(statistic=statistic, difference=signed_amount(difference),
                           low=bare(low), high=bare(high), change=signed_percent(ratio))


# --------------------------------------------------------------------------- the gate

MAX_LATENCY_FLAG = "--max-latency"
MAX_LATENCY_HELP = (
    "STAT=LIMIT: how slow a candidate may be, STAT one of mean, p50, p95, p99 of latency_ms: "
    "p95=+20% (at most 20% above the baseline's, read on the ratio's interval), p95=+30ms "
    "(at most 30 ms above the baseline's, on the paired difference's interval) or p95=150ms "
    "(at most 150 ms, on the candidate's own interval). Repeatable, one per STAT. A candidate "
    "passes only when the whole interval, at --confidence-level, lies at or under the limit. "
    "Needs --timings or runs that carry latency_ms."
)
LIMIT_KINDS = {
    "relative": "a share above the baseline's, read on the interval of the ratio "
    "candidate / baseline",
    "increase": "milliseconds above the baseline's, read on the paired difference's interval",
    "absolute": "a ceiling in milliseconds, read on the candidate's own interval",
}
LATENCY_PARSE_ERRORS = {
    "form": "a latency limit is STAT=LIMIT, e.g. p95=+20%, p95=+30ms or p95=150ms",
    "statistic": "STAT must be one of " + ", ".join(STATISTICS),
    "amount": "the limit must be a finite number >= 0 followed by ms, or +N% / +Nms",
}
LATENCY_METHOD = (
    "Latency limit: the candidate passes when the upper end of the interval (of the ratio to "
    "the baseline for +N%, of the paired difference for +Nms, of its own figure for Nms) is "
    "at or under the limit; it is over the limit when the lower end is above it; otherwise "
    "the queries cannot tell yet and the gate fails."
)
# the verdicts are the budgets' words: within budget passes, the others fail
LATENCY_VERDICTS = (WITHIN, WORSE, CANNOT_TELL)
LATENCY_TEMPLATES = {
    WITHIN: "within budget: the {interval} [{low}, {high}] lies at or under {limit} "
    "({statistic} latency limit {written})",
    WORSE: "worse beyond budget: the {interval} [{low}, {high}] lies above {limit} "
    "({statistic} latency limit {written})",
    CANNOT_TELL: "cannot tell yet: the {interval} [{low}, {high}] straddles {limit} "
    "({statistic} latency limit {written})",
}
INTERVAL_OF = {
    "relative": "interval of the {statistic} ratio to the baseline",
    "increase": "interval of the {statistic} difference from the baseline",
    "absolute": "interval of the {statistic}",
}


def latency_sentence(verdict: str, *, kind: str, statistic: str, written: str, limit: str,
                     low: str, high: str, confidence_level: float | None) -> str:
    """One latency limit's verdict in words, e.g. 'within budget: the 95% interval of the
    p95 ratio to the baseline [1.11, 1.18] lies at or under 1.20 (p95 latency limit
    +20%)'."""
    if verdict not in LATENCY_TEMPLATES:
        raise ValueError(f"verdict must be one of {', '.join(LATENCY_TEMPLATES)}, "
                         f"got {verdict!r}")
    level = "" if confidence_level is None else f"{confidence(confidence_level)} "
    return LATENCY_TEMPLATES[verdict].format(
        interval=level + INTERVAL_OF[kind].format(statistic=statistic), low=low, high=high,
        limit=limit, statistic=statistic, written=written)


def latency_failure(candidate: str, statistic: str, baseline: str, sentence: str) -> str:
    """The line a failed latency gate prints on standard error."""
    return f"latency: {candidate} {statistic} against {baseline}: {sentence}"


LATENCY_GATE = ("--max-latency STAT=LIMIT: a candidate passes only when the interval of its "
                "latency figure (its ratio or difference to the baseline's, or its own) lies "
                "at or under the limit; over it and cannot tell yet fail.")
