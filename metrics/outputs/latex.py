"""`--format latex` (and the dashboard's LaTeX download): the summary table a paper prints.

Runs down, figures across; each cell the mean over its interval in small type; the best run
of each column in bold (every run at the best mean, when they tie; not for a count, a residual
or Judged@K, where higher is not better); against the baseline (the first run), a dagger
marks a candidate significantly better and a double dagger one significantly worse, by the
comparison's own test and correction (`metrics.baseline_comparison`, the one compare prints),
which the caption names with K, the query set, the interval and every figure's own
parameters. Every run name and label is escaped, so a name cannot inject LaTeX.

It fits the page as a paper author pastes it: ten figures of mean-over-interval cells do not
fit one column of a two-column paper, so it is a `table*` (the page's width there, an
ordinary float in a one-column paper), set in small type with narrower gaps, and shrunk to the
line's width only when it is still wider (a table that fits keeps its natural size: a few
figures are never blown up). Runs stay down and figures across, as results tables in the
field read; a long run name widens its column and the table shrinks with it. Needs booktabs
and graphicx; tests/metrics/outputs/test_latex.py compiles it with pdflatex and refuses any
overfull box.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from metrics.core.evaluate import Evaluation
from metrics.decide.leaderboard import AllPairs
from metrics.stats.comparison import CORRECTIONS, Comparison
from metrics.stats.intervals import Interval
from metrics.vocabulary import format as fmt
from metrics.vocabulary.conventions import interval_methods
from metrics.vocabulary.measures import geometric_summary
from metrics.vocabulary.names import Spec

BETTER, WORSE = r"$^{\dagger}$", r"$^{\ddagger}$"
COLUMN_GAP = "4pt"  # half the gap between two columns (LaTeX's default is 6pt)
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}",
            # the vocabulary's typography, which LaTeX's default input does not all set
            "\u2212": "-", "\u2013": "--", "\u00f7": "/", "\u00d7": r"$\times$",
            "\u2265": r"$\geq$", "\u2264": r"$\leq$"}


def escape(text: str) -> str:
    """Text as LaTeX prints it: every character no output writes as it is first written as
    its escape (`format.terminal`), then every special character escaped."""
    return "".join(_SPECIAL.get(c, c) for c in fmt.terminal(str(text)))


def _cell(mean: float, low: float, high: float, *, best: bool, mark: str) -> str:
    """The mean (bold when best, its dagger after it) over its interval in small type: two
    lines, so that a column is as narrow as its widest figure."""
    figure = fmt.figure(mean)
    figure = rf"\textbf{{{figure}}}" if best else figure
    return (rf"\shortstack[r]{{{figure}{mark}\\"
            rf"{{\scriptsize[{fmt.figure(low)}, {fmt.figure(high)}]}}}}")


def _marks(comparison: Comparison | None) -> dict[tuple[str, str], str]:
    """(candidate, label) -> its dagger, for each significant test against the baseline."""
    if comparison is None:
        return {}
    return {(t.candidate, t.metric): BETTER if t.difference > 0 else WORSE
            for t in comparison.tests if t.significant}


def _caption(evaluation: Evaluation, specs: Sequence[Spec],
             comparison: Comparison | None, pairs: AllPairs | None = None,
             summaries: Mapping[str, Mapping[str, Interval]] | None = None) -> str:
    k, c = evaluation.k, evaluation.conventions
    # the interval the means carry (a standardised Hit@K's is a bootstrap one)
    figures = [(spec.label(k, c), evaluation.runs[0].summary[spec.key].method
                if evaluation.runs else spec.measure.interval) for spec in specs]
    standardised = getattr(evaluation, "standardised", "")
    parts = [f"Mean over {len(evaluation.scored_ids):,} scored queries at $K = {k}$, with its "
             f"{escape(fmt.confidence(c.confidence_level))} interval in brackets "
             f"({escape(interval_methods(figures, c.interval_method))}); "
             f"{escape('; '.join(c.in_words()))}."]
    if standardised:
        parts.append(escape(standardised))
    notes = evaluation.notes(specs)
    parts += [f"{escape(spec.label(k, c))}: {escape(notes[spec.key])}." for spec in specs
              if spec.key in notes]
    for key in summaries or {}:  # gm_map: not a mean, its own rule and interval
        summary = geometric_summary(key)
        parts.append(f"{escape(key)}: {escape(summary.rule)} Its interval: "
                     f"{escape(summary.interval)}.")
    parts.append("Bold: the best run per column (of a figure where higher is better).")
    if comparison is not None:
        parts.append(
            f"{BETTER} ({WORSE}): significantly better (worse) than "
            f"{escape(comparison.baseline)}, paired randomization test "
            f"({comparison.n_permutations:,} sign flips), "
            f"{escape(CORRECTIONS[comparison.correction])} correction over the "
            f"{comparison.n_comparisons:,} comparisons, $\\alpha = {comparison.alpha:g}$.")
        untested = [spec.label(k, c) for spec in specs
                    if spec.label(k, c) not in comparison.metrics] + list(summaries or {})
        if untested:
            parts.append(f"Not tested: {escape(', '.join(untested))}.")
    if pairs is not None:  # the figures read, named when others go without letters
        unread = [spec for spec in specs if spec.label(k, c) not in pairs.metrics]
        on = f" (on {', '.join(pairs.metrics)} only)" if unread else ""
        parts.append(f"Superscript letters{escape(on)}: {escape(pairs.sentence())}")
    return " ".join(parts)


def latex_table(evaluation: Evaluation, comparison: Comparison | None = None,
                specs: Sequence[Spec] | None = None, *, label: str = "tab:retrieval",
                pairs: AllPairs | None = None,
                summaries: Mapping[str, Mapping[str, Interval]] | None = None) -> str:
    """The summary of `specs` (default every summary figure) as a booktabs table; with
    `comparison` (its baseline the first run), the daggers of its significant tests; with
    `pairs` (every pair tested: paired tests or the Tukey HSD), each run's significance
    letters in superscript on the figures they were read on; `summaries` (gm_map -> run -> its
    value and interval) add a column each after the figures."""
    specs = evaluation.summary_specs if specs is None else tuple(specs)
    summaries = dict(summaries or {})
    k, c = evaluation.k, evaluation.conventions
    marks = _marks(comparison)
    letters = {} if pairs is None else {metric: pairs.letters(metric) for metric in pairs.metrics}
    # higher is better for the figures a comparison tests; a count, a residual or Judged@K
    # says how much there is, not how good: no best run there
    best = {spec.key: max(run.summary[spec.key].mean for run in evaluation.runs)
            if spec.measure.compared else None for spec in specs}
    lines = [r"% needs \usepackage{booktabs} and \usepackage{graphicx}; table* spans both "
             "columns of a two-column paper (write table for a narrow one)",
             r"\begin{table*}[t]", r"\centering",
             rf"\caption{{{_caption(evaluation, specs, comparison, pairs, summaries)}}}",
             rf"\label{{{escape(label)}}}",
             r"\small", rf"\setlength{{\tabcolsep}}{{{COLUMN_GAP}}}",
             # its natural width, or the line's when that is narrower: never past the margin
             r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
             r"\begin{tabular}{l" + "r" * (len(specs) + len(summaries)) + "}", r"\toprule",
             " & ".join(["Run", *(escape(spec.label(k, c)) for spec in specs),
                         *map(escape, summaries)]) + r" \\",
             r"\midrule"]
    for run in evaluation.runs:
        cells = [escape(run.name)]
        for spec in specs:
            interval = run.summary[spec.key]
            grouped = letters.get(spec.label(k, c), {}).get(run.name)
            mark = marks.get((run.name, spec.label(k, c)), "") + (
                rf"\textsuperscript{{{escape(grouped)}}}" if grouped else "")
            cells.append(_cell(interval.mean, interval.low, interval.high,
                               best=interval.mean == best[spec.key], mark=mark))
        for runs in summaries.values():
            interval = runs[run.name]
            cells.append(_cell(interval.mean, interval.low, interval.high,
                               best=interval.mean == max(i.mean for i in runs.values()),
                               mark=""))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}}", r"\end{table*}"]
    return "\n".join(lines) + "\n"
