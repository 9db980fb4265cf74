"""`--format trec_eval`: the figures in trec_eval's three columns, so that scripts written for
trec_eval's output read this tool's.

Each line is ``measure<TAB>query<TAB>value``, the measure left-aligned in 22 characters, a
value written ``%6.4f`` (a count as an integer), as trec_eval 10.0 prints them. With ``-q``
every scored query comes first, in trec_eval's order (query ids as strings, byte order), then
the ``all`` lines: ``runid``, ``num_q`` (the queries averaged) and each figure's mean over
the scored queries (a count's sum, as trec_eval's all line sums num_ret, num_rel and
num_rel_ret). Within a query the figures follow trec_eval's table of measures, each cutoff in
increasing order; a figure trec_eval does not compute (F1, CP, ERR, RBP, a measure with its
own relevance level...) follows under this tool's label. Several runs print one block each,
in order.

A geometric summary (gm_map, `metrics.core.geometric`), given as `summaries`, has an ``all``
line alone (trec_eval -q prints none per query), in trec_eval's place: after map.

The query set is this tool's: by default the queries with a relevant id. Under
``--empty-queries zero`` every qrels query is scored (those the run never answered, and
those without a relevant id, at 0), which is trec_eval's ``-q -c``.

A line cannot be forged: query ids and run names are written as `format.terminal` writes
them with every white space character escaped too (readers split these lines at tabs or at
any white space; a TREC file's ids hold none, so no id trec_eval reads changes), so an id
holding a line break or a tab adds no line and no column. A query named ``all`` is refused
under ``-q``: its lines would read as the summary's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.stats.intervals import Interval
from metrics.vocabulary.format import terminal
from metrics.vocabulary.measures import TREC_EVAL_ORDER
from metrics.vocabulary.names import Spec, trec_eval_name

NAME_WIDTH = 22  # trec_eval's %-22s
SUMMARY_QUERY = "all"  # the query column of trec_eval's summary lines
MISSING_ZSCORE = -1000000.0  # trec_eval's MISSING_ZSCORE_VALUE: a -Z figure with no standard
_NUMBERED = re.compile(r"^(?P<base>.+?)_(?P<at>\d+(?:\.\d+)?)$")


def _line(name: str, query: str, value: float, *, count: bool, prefix: str = "") -> str:
    """One line; `prefix` (-Z's Z) stands before the padded name, as trec_eval prints it."""
    written = f"{int(round(value))}" if count else f"{value:6.4f}"
    return f"{prefix}{name:<{NAME_WIDTH}}\t{_column(query)}\t{written}"


def _column(text: str) -> str:
    """A query id or a run's name as one column: nothing in it ends a line or a column."""
    return terminal(text, spaces=True)


def _order(named: list[tuple[str, Spec | None]]) -> list[tuple[str, Spec | None]]:
    """trec_eval's measures in its table's order, each cutoff ascending; the others after,
    in the order shown."""
    def key(item: tuple[int, tuple[str, Spec]]) -> tuple:
        position, (name, _) = item
        found = _NUMBERED.match(name)
        base, at = (found["base"], float(found["at"])) if found else (name, 0.0)
        if base in TREC_EVAL_ORDER:
            return (0, TREC_EVAL_ORDER.index(base), at, position)
        return (1, 0, 0.0, position)

    return [item for _, item in sorted(enumerate(named), key=key)]


def _names(evaluation: Evaluation, specs: Sequence[Spec]) -> list[tuple[str, Spec]]:
    """Each figure under trec_eval's name (its label where trec_eval has none), once."""
    k, conventions = evaluation.k, evaluation.conventions
    named: dict[str, Spec] = {}
    for spec in specs:
        named.setdefault(trec_eval_name(spec, k, conventions)
                         or spec.label(k, conventions, summary=False), spec)
    return _order(list(named.items()))


def _run_lines(evaluation: Evaluation, run: RunEvaluation,
               named: list[tuple[str, Spec | None]], per_query: bool,
               summaries: Mapping[str, Mapping[str, Interval]]) -> list[str]:
    values = evaluation.per_query_scores(run.name)
    ids = evaluation.scored_ids
    rows = sorted(range(len(ids)), key=lambda i: ids[i].encode())  # trec_eval's query order
    # standardised figures are written as trec_eval -Z writes them: each name after a Z,
    # every value (the counts and num_q too) as %6.4f, an undefined one as its
    # MISSING_ZSCORE_VALUE, which its all line adds in like any other
    z = bool(evaluation.standardised)
    prefix = "Z" if z else ""

    def figures(spec: Spec) -> np.ndarray:
        found = np.asarray(values[spec.key], dtype=float)
        return np.where(np.isnan(found), MISSING_ZSCORE, found) if z else found

    lines = []
    if per_query:
        for row in rows:
            lines += [_line(name, ids[row], float(figures(spec)[row]),
                            count=spec.measure.total and not z, prefix=prefix)
                      for name, spec in named if spec is not None]
    lines.append(f"{'runid':<{NAME_WIDTH}}\t{SUMMARY_QUERY}\t{_column(run.name)}")
    lines.append(_line("num_q", SUMMARY_QUERY, len(ids), count=not z, prefix=prefix))
    for name, spec in named:
        if spec is None:  # a geometric summary: its all line alone
            if rows:
                lines.append(_line(name, SUMMARY_QUERY, summaries[name][run.name].mean,
                                   count=False))
            continue
        # added query by query in trec_eval's order, as trec_eval adds: a mean that falls on
        # a rounding edge of %6.4f then rounds as its does
        total = 0.0
        for value in figures(spec)[rows].tolist():
            total += value
        if spec.measure.total:
            lines.append(_line(name, SUMMARY_QUERY, total, count=not z, prefix=prefix))
        elif rows:
            lines.append(_line(name, SUMMARY_QUERY, total / len(rows), count=False,
                               prefix=prefix))
    return lines


def trec_eval_text(evaluation: Evaluation, specs: Sequence[Spec] | None = None, *,
                   per_query: bool = False,
                   summaries: Mapping[str, Mapping[str, Interval]] | None = None) -> str:
    """The figures (default the summary's) of every run in trec_eval's format; per query
    too with `per_query` (trec_eval -q); `summaries` (gm_map -> run -> its value) add their
    all lines."""
    if per_query and SUMMARY_QUERY in evaluation.scored_ids:
        source = getattr(evaluation.qrels_report, "source", None) or "the qrels"
        raise ValueError(f"a query is named {SUMMARY_QUERY!r} ({source}), which trec_eval -q "
                         "writes as the summary's query: its lines would read as the summary; "
                         "leave out -q or rename the query")
    summaries = dict(summaries or {})
    named = _order([*_names(evaluation, evaluation.summary_specs if specs is None else specs),
                    *((name, None) for name in summaries)])
    lines = []
    for run in evaluation.runs:
        lines += _run_lines(evaluation, run, named, per_query, summaries)
    return "\n".join(lines) + "\n"
