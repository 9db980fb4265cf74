"""An Evaluation as the JSON contract for scripts, and as a plain-text table for people."""

from __future__ import annotations

from metrics.compare import CORRECTIONS, Comparison, PairedTest
from metrics.diagnose import CLASS_MEANING
from metrics.evaluate import Evaluation, RunEvaluation
from metrics.measures import MEASURES, SUMMARY_MEASURES


def to_dict(evaluation: Evaluation) -> dict:
    """The JSON contract documented in README: metric names carry the chosen K."""
    k = evaluation.k
    return {
        "k": k,
        "conventions": evaluation.conventions.as_dict()
        | {"sentences": evaluation.conventions.sentences()},
        "query_set": {
            "queries": len(evaluation.query_set.query_ids),
            "scored": len(evaluation.scored_ids),
            "excluded": evaluation.excluded_ids,
        },
        "runs": [_run_dict(evaluation, run) for run in evaluation.runs],
    }


def _run_dict(evaluation: Evaluation, run: RunEvaluation) -> dict:
    k = evaluation.k
    per_query = evaluation.per_query_scores(run.name)
    # columns via tolist() (C-speed conversion to Python numbers), then one dict per query
    columns = {
        "query_id": evaluation.scored_ids,
        "class": run.classes.tolist(),
        "repeats": run.aligned.repeats[evaluation.scored].tolist(),
    } | {m.label(k, summary=False): per_query[m.key].tolist() for m in MEASURES}
    sweep = evaluation.sweep_means(run.name)
    sweep_columns = {key: values.tolist() for key, values in sweep.items()}
    return {
        "name": run.name,
        "repeats": run.repeats,
        "missing_queries": list(run.missing_queries),
        "ignored_queries": list(run.aligned.ignored_queries),
        "summary": {
            m.label(k): {
                "mean": interval.mean,
                "low": interval.low,
                "high": interval.high,
                "interval": interval.method,
            }
            for m in SUMMARY_MEASURES
            for interval in [run.summary[m.key]]
        },
        "queries": _records(columns),
        "suggestion": run.suggestion.as_dict(),
        "diagnosis": [
            {
                "failure": f.failure,
                "flagged": bool(f.flagged),
                "figure": f.figure,
                "threshold": f.threshold,
                "sentence": f.sentence,
            }
            for f in run.diagnosis
        ],
        "sweep": _records(sweep_columns),
    }


def _records(columns: dict[str, list]) -> list[dict]:
    keys = list(columns)
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def format_interval(mean: float, low: float, high: float) -> str:
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def format_difference(test: PairedTest) -> str:
    """A paired difference with its interval, signed: '+0.135 [-0.060, +0.384]'."""
    return f"{test.difference:+.3f} [{test.low:+.3f}, {test.high:+.3f}]"


def format_table(evaluation: Evaluation) -> str:
    """Readable summary: metrics down, runs across, then conventions, counts and readings."""
    k = evaluation.k
    names = evaluation.run_names
    header = ["metric"] + names + ["interval"]
    rows = [
        [m.label(k)]
        + [
            format_interval(r.summary[m.key].mean, r.summary[m.key].low, r.summary[m.key].high)
            for r in evaluation.runs
        ]
        + [m.interval]
        for m in SUMMARY_MEASURES
    ]
    excluded = ", ".join(evaluation.excluded_ids) or "none"
    lines = [
        f"Scores at K = {k} over {len(evaluation.scored_ids)} scored queries "
        f"({len(evaluation.excluded_ids)} excluded: {excluded})",
        "mean [low, high] at "
        f"{evaluation.conventions.confidence_level:.0%} confidence; every query weighs the same",
        "",
    ]
    lines += _table(header, rows)
    lines += ["", "Conventions:"]
    lines += [f"  - {sentence}" for sentence in evaluation.conventions.sentences().values()]
    for run in evaluation.runs:
        lines += ["", _run_notes(evaluation, run)]
    return "\n".join(lines) + "\n"


def _run_notes(evaluation: Evaluation, run: RunEvaluation) -> str:
    classes = {c: int((run.classes == c).sum()) for c in CLASS_MEANING if c != "excluded"}
    s = run.suggestion
    lines = [
        f"{run.name}: "
        + ", ".join(f"{n} {c}" for c, n in classes.items())
        + f"; {run.repeats} repeated ids; {len(run.missing_queries)} queries without a list",
        f"  k suggestion: k = {s.k} reaches recall {s.recall:.3f} of a best {s.best_recall:.3f} "
        f"(precision {s.precision:.3f}, {s.noise_chunks:.1f} noise chunks per query)",
    ]
    lines += [f"  reading: {reading}" for reading in s.readings]
    lines += [
        f"  {'FLAGGED' if f.flagged else 'ok':7} {f.failure}: {f.sentence}" for f in run.diagnosis
    ]
    return "\n".join(lines)


def comparison_dict(evaluation: Evaluation, comparison: Comparison) -> dict:
    """A pure function of the inputs (no timestamp): identical calls print identical bytes."""
    return {
        "k": evaluation.k,
        "conventions": evaluation.conventions.as_dict(),
        "query_set": {"scored": len(evaluation.scored_ids), "excluded": evaluation.excluded_ids},
        "baseline": comparison.baseline,
        "candidates": list(comparison.candidates),
        "metrics": list(comparison.metrics),
        "test": "paired randomization (sign flip), two-sided",
        "correction": comparison.correction,
        "n_comparisons": comparison.n_comparisons,
        "alpha": comparison.alpha,
        "n_permutations": comparison.n_permutations,
        "n_resamples": comparison.n_resamples,
        "seed": comparison.seed,
        "comparisons": comparison.rows(),
    }


def format_comparison(evaluation: Evaluation, comparison: Comparison) -> str:
    header = [
        "metric",
        "before",
        "after",
        "difference [interval]",
        "W/T/L",
        "p",
        "p adj",
        "p t",
        "p wilcoxon",
        "effect",
    ]
    lines = [
        f"Paired comparison at K = {evaluation.k} over {len(evaluation.scored_ids)} scored "
        f"queries; baseline: {comparison.baseline}",
        f"Randomization test ({comparison.n_permutations:,} sign flips, seed {comparison.seed}); "
        f"{CORRECTIONS[comparison.correction]} correction over "
        f"{comparison.n_comparisons} comparisons; "
        f"alpha {comparison.alpha}",
    ]
    for candidate in comparison.candidates:
        tests = [t for t in comparison.tests if t.candidate == candidate]
        rows = [
            [
                t.metric,
                f"{t.before_mean:.3f}",
                f"{t.after_mean:.3f}",
                format_difference(t),
                f"{t.wins}/{t.ties}/{t.losses}",
                f"{t.p_randomization:.4f}",
                f"{t.p_adjusted:.4f}",
                f"{t.p_t:.4f}",
                f"{t.p_wilcoxon:.4f}",
                f"{t.effect_size:.3f}",
            ]
            for t in tests
        ]
        lines += ["", f"{candidate} vs {comparison.baseline}:", *_table(header, rows)]
        lines += [f"  {t.metric}: {comparison.verdict(t)}" for t in tests]
    return "\n".join(lines) + "\n"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [header, ["-" * w for w in widths]] + rows
    ]
