"""The plain-text writers of the command line: the score table and the paired comparison.

Every number goes through `metrics.format`, the one formatter the dashboard and the report
use too, so a figure reads the same wherever it is printed.
"""

from __future__ import annotations

from collections.abc import Sequence

from metrics.context.cost import Cost
from metrics.core.blocks import BlockEvaluation
from metrics.core.evaluate import Evaluation, RunEvaluation
from metrics.decide.best import BestMarks
from metrics.decide.compare import CORRECTIONS, Comparison, PairedTest
from metrics.explain.slices import Slice
from metrics.spark.evaluate import SparkEvaluation
from metrics.vocabulary import FACET_RULES, QUERY_CLASSES, SLICE_MIN_QUERIES
from metrics.vocabulary import format as fmt
from metrics.vocabulary.comparisons import WIN_TIE_LOSS
from metrics.vocabulary.names import Spec
from metrics.vocabulary.spark import WHAT_IT_HOLDS

COMPARISON_HEADER = [
    "metric",
    "before",
    "after",
    "difference [interval]",
    WIN_TIE_LOSS,
    "p",
    "p adj",
    "p t",
    "p wilcoxon",
    "effect",
]


def format_difference(test: PairedTest) -> str:
    """A paired difference with its interval, signed: '+0.135 [-0.060, +0.384]'."""
    return fmt.difference(test.difference, test.low, test.high)


def format_table(evaluation: Evaluation, marks: BestMarks | None = None,
                 specs: Sequence[Spec] | None = None) -> str:
    """Readable summary: metrics down (`specs`, default the summary's), runs across (with
    `marks`, each metric's best run and those not significantly worse marked), then
    conventions, what each figure's own parameters say, counts and readings."""
    specs = evaluation.summary_specs if specs is None else specs
    scored = bool(evaluation.scored.any())
    lines = summary_lines(evaluation, marks, specs)
    for run in evaluation.runs:
        lines += ["", _run_notes(run, scored=scored)]
    return "\n".join(lines) + "\n"


def format_block_table(evaluation: BlockEvaluation) -> str:
    """The block-by-block driver's summary, as ``format_table`` writes it, each run's counts,
    then the sweep: each run's means and intervals at every K."""
    lines = summary_lines(evaluation, None, evaluation.summary_specs) + _run_counts(evaluation)
    lo, hi = evaluation.sweep_range
    names = [s.measure.summary_key for s in evaluation.summary_specs]
    for run in evaluation.runs:
        bands = {(k, name): (low, high) for k, name, low, high in run.sweep_intervals}
        rows = [[str(k)] + [fmt.interval(run.sweep_means[name][i], *bands[k, name])
                            for name in names]
                for i, k in enumerate(range(lo, hi + 1))]
        lines += ["", f"{run.name}: the sweep, K = {lo} to {hi} (mean [low, high])",
                  *table(["K", *names], rows)]
    return "\n".join(lines) + "\n"


def format_spark_table(evaluation: SparkEvaluation, specs: Sequence[Spec] | None = None) -> str:
    """The summary of a Spark evaluation as `format_table` writes an in-memory one (the same
    lines, down to the conventions), then each run's counts and what the result holds."""
    lines = summary_lines(evaluation, None, evaluation.summary_specs if specs is None else specs)
    return "\n".join([*lines, *_run_counts(evaluation), "", WHAT_IT_HOLDS]) + "\n"


def _run_counts(evaluation: BlockEvaluation | SparkEvaluation) -> list[str]:
    """Each run's repeats and queries without a list, a line each after a blank one."""
    lines = []
    for run in evaluation.runs:
        lines += ["", f"{run.name}: {fmt.count(run.repeats, 'repeated id')}; "
                  f"{fmt.count(len(run.missing_queries), 'query', 'queries')} without a list"]
    return lines


def summary_lines(evaluation: Evaluation | BlockEvaluation | SparkEvaluation,
                  marks: BestMarks | None, specs: Sequence[Spec]) -> list[str]:
    """The summary's lines: what the means run over, the table of figures, the conventions
    and what each figure's own parameters say (any driver's result)."""
    k, c = evaluation.k, evaluation.conventions
    scored = bool(evaluation.scored.any())
    header = ["metric", *evaluation.run_names, "interval"]
    rows = [
        [s.label(k, c)]
        + [
            (fmt.interval(r.summary[s.key].mean, r.summary[s.key].low, r.summary[s.key].high)
             + (f" {marks.mark(s.label(k, c), r.name)}"
                if marks and marks.mark(s.label(k, c), r.name) else "")) if scored else fmt.MISSING
            for r in evaluation.runs
        ]
        + [s.measure.interval]
        for s in specs
    ]
    excluded = fmt.listing(evaluation.excluded_ids) or "none"
    lines = [
        f"Scores at K = {k} over {fmt.count(len(evaluation.scored_ids), 'scored query')} "
        f"({len(evaluation.excluded_ids):,} excluded: {excluded})",
        f"mean [low, high] at {fmt.confidence(evaluation.conventions.confidence_level)} "
        "confidence; every query weighs the same"
        if scored else
        f"no scored query: no query has a relevant id at grade "
        f"{evaluation.conventions.relevance_level} or above, so no mean exists ({fmt.MISSING})",
        "",
    ]
    lines += table(header, rows)
    if marks is not None:
        lines.append(marks.sentence)
    lines += ["", "Conventions:"]
    lines += [f"  - {sentence}" for sentence in evaluation.conventions.sentences().values()]
    notes = evaluation.notes(specs)
    lines += [f"  - {s.label(k, c)}: {notes[s.key]}." for s in specs if s.key in notes]
    return lines


def format_slices(evaluation: Evaluation, slices: Sequence[Slice],
                  specs: Sequence[Spec] | None = None) -> str:
    """Every summary figure (or `specs`) per slice of one facet: slices down (each with its
    scored queries, marked when too small to read), runs across."""
    k, c = evaluation.k, evaluation.conventions
    specs = evaluation.summary_specs if specs is None else specs
    header = ["slice", "queries", "metric", *evaluation.run_names]
    rows = [
        [piece.value if i == 0 else "",
         (fmt.count(piece.queries, "query") + (" (too few)" if piece.too_small else ""))
         if i == 0 else "",
         spec.label(k, c)]
        + [fmt.interval(s.mean, s.low, s.high)
           for s in (piece.summary[name][spec.key] for name in evaluation.run_names)]
        for piece in slices
        for i, spec in enumerate(specs)
    ]
    facet = slices[0].facet if slices else "?"
    lines = [f"By {facet}: each slice evaluated alone (mean [low, high])", *table(header, rows),
             *(f"  - {FACET_RULES[key]}" for key in ("small", "figures"))]
    return "\n".join(lines) + "\n"


def _run_notes(run: RunEvaluation, *, scored: bool = True) -> str:
    """A run's query classes and counts, its k suggestion and readings, and its diagnosis
    (these two only over scored queries)."""
    classes = {c: int((run.classes == c).sum()) for c in QUERY_CLASSES}
    s = run.suggestion
    lines = [
        f"{run.name}: "
        + ", ".join(f"{n:,} {c}" for c, n in classes.items())
        + f"; {fmt.count(run.repeats, 'repeated id')}; "
        f"{fmt.count(len(run.missing_queries), 'query', 'queries')} without a list",
    ]
    if not scored:
        return "\n".join([*lines, "  no scored query: no k suggestion and no diagnosis"])
    if s.advice:
        lines.append(
            f"  k suggestion: k = {s.k} reaches recall {fmt.figure(s.recall)} of a best "
            f"{fmt.figure(s.best_recall)} (precision {fmt.figure(s.precision)}, "
            f"{fmt.figure(s.noise_chunks)} noise chunks per query)")
    else:
        lines.append("  k suggestion: none")
    lines += [f"  reading: {reading}" for reading in s.readings]
    lines += [
        f"  {'FLAGGED' if f.flagged else 'ok':7} {f.failure}: {f.sentence}" for f in run.diagnosis
    ]
    return "\n".join(lines)


def format_comparison(evaluation: Evaluation, comparison: Comparison) -> str:
    """Each candidate against the baseline: a table of tests, then each test's verdict."""
    lines = [
        f"Paired comparison at K = {evaluation.k} over "
        f"{fmt.count(len(evaluation.scored_ids), 'scored query')}; "
        f"baseline: {comparison.baseline}",
        f"Randomization test ({fmt.count(comparison.n_permutations, 'sign flip')}, "
        f"seed {comparison.seed}); {CORRECTIONS[comparison.correction]} correction over "
        f"{fmt.count(comparison.n_comparisons, 'comparison')}; alpha {comparison.alpha}",
    ]
    for candidate in comparison.candidates:
        tests = [t for t in comparison.tests if t.candidate == candidate]
        rows = [
            [
                t.metric,
                fmt.figure(t.before_mean),
                fmt.figure(t.after_mean),
                format_difference(t),
                fmt.win_tie_loss(t.wins, t.ties, t.losses),
                fmt.p_value(t.p_randomization),
                fmt.p_value(t.p_adjusted),
                fmt.p_value(t.p_t),
                fmt.p_value(t.p_wilcoxon),
                fmt.effect(t.effect_size),
            ]
            for t in tests
        ]
        lines += ["", f"{candidate} vs {comparison.baseline}:", *table(COMPARISON_HEADER, rows)]
        lines += [f"  {t.metric}: {comparison.verdict(t)}" for t in tests]
    return "\n".join(lines) + "\n"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned columns two spaces apart, a rule of dashes under the header; every cell
    with its control characters escaped (`format.terminal`), since ids come from files."""
    header = [fmt.terminal(str(cell)) for cell in header]
    rows = [[fmt.terminal(str(cell)) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [header, ["-" * w for w in widths]] + rows
    ]


def format_slice_comparison(facet: str, pieces: Sequence[tuple[str, Comparison]]) -> str:
    """compare --by: each slice's paired differences, p adjusted over every (candidate,
    metric, slice) shown."""
    if not pieces:
        return f"By {facet}: no slice holds two scored queries, nothing to compare\n"
    first = pieces[0][1]
    header = ["slice", "queries", "candidate", "metric", "difference [interval]", WIN_TIE_LOSS,
              "p adj", "verdict"]
    rows = [[label, f"{int(t.n):,}" + (" (too few)" if t.n < SLICE_MIN_QUERIES else ""),
             t.candidate, t.metric, format_difference(t),
             fmt.win_tie_loss(t.wins, t.ties, t.losses), fmt.p_value(t.p_adjusted),
             "significant" if t.significant else "not significant"]
            for label, comparison in pieces for t in comparison.tests]
    lines = [f"By {facet}: {first.baseline} -> each candidate over each slice alone; "
             f"{CORRECTIONS[first.correction]} correction over "
             f"{fmt.count(first.n_comparisons, 'comparison')} (every candidate, metric and "
             f"slice); alpha {first.alpha}", *table(header, rows),
             *(f"  - {FACET_RULES[key]}" for key in ("small", "figures"))]
    return "\n".join(lines) + "\n"


def format_costs(costs: Sequence[Cost]) -> str:
    """What each run's context costs at K and at the suggested k, one sentence a run."""
    lines = [f"Context cost ({costs[0].tokens.sentence})"]
    lines += [f"  {cost.run}: {cost.sentence}" for cost in costs]
    return "\n".join(lines) + "\n"
