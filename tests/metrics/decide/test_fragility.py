"""The fragility check: each verdict under each other choice equals the verdict of a whole
comparison scored under that choice, and constructed cases flip where they must."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from metrics import Conventions, compare_evaluation, evaluate, load_qrels, load_run
from metrics.decide.fragility import alternatives, fragility
from metrics.stats import corrections
from metrics.vocabulary import fragility as words
from tests.metrics.builders import make_qrels, make_run

OPTIONS = {"n_permutations": 2_000, "n_resamples": 200}


def collection(seed: int, n_queries: int = 40):
    """Graded labels (0..3), unjudged ids, repeats; three runs of varying quality."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(60)]
    judgments = {f"q{i}": {str(d): int(rng.choice([0, 1, 1, 2, 3]))
                           for d in rng.choice(docs, 10, replace=False)}
                 for i in range(n_queries)}
    runs = []
    for r in range(3):
        lists = {}
        for q, judged in judgments.items():
            good = [d for d, g in judged.items() if g >= 1 + (r % 2)]
            pool = list(rng.choice(docs, 12, replace=False)) + good[: r + 1]
            lists[q] = [str(d) for d in rng.permutation(pool)][:15]
        runs.append(make_run(lists, name=f"r{r}"))
    return make_qrels(judgments), runs


def verdicts(comparison) -> dict[tuple[str, str], str]:
    """Every verdict read from a whole comparison, as the check words them."""
    found = {(t.candidate, t.metric): words.verdict(t.difference, t.significant)
             for t in comparison.tests}
    for metric in comparison.metrics:
        tests = [t for t in comparison.tests if t.metric == metric]
        means = {comparison.baseline: tests[0].before_mean,
                 **{t.candidate: t.after_mean for t in tests}}
        top = max(means.values())
        found[words.BEST_RUN, metric] = words.best_verdict(
            tuple(n for n, m in means.items() if m == top))
    return found


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("base", [Conventions(), Conventions(unjudged="drop", gain="exponential",
                                                                  relevance_level=2)])
def test_each_flip_is_what_a_comparison_under_that_choice_says(seed, base):
    qrels, runs = collection(seed)
    evaluation = evaluate(qrels, runs, 5, base)
    comparison = compare_evaluation(evaluation, **OPTIONS)
    found = fragility(evaluation, comparison)
    held = verdicts(comparison)
    assert found.verdicts == held
    tried, _ = alternatives(evaluation)
    assert len(tried) == 6  # recall, gain, rr, ap, level, unjudged (no TREC order here)
    expected = set()
    for field, value in tried:
        under = dataclasses.replace(base, **{field: value})
        compared = compare_evaluation(evaluate(qrels, runs, 5, under), **OPTIONS)
        # the same figures, named under that choice (RR read over the full list is MRR)
        named = dict(zip(compared.metrics, comparison.metrics, strict=True))
        other = {(c, named[m]): v for (c, m), v in verdicts(compared).items()}
        expected |= {(c, m, field, str(value), v, other[c, m])
                     for (c, m), v in held.items() if other[c, m] != v}
    for test in ("t", "wilcoxon"):
        p = corrections.adjust(np.array([getattr(t, f"p_{test}") for t in comparison.tests]),
                               comparison.correction)
        expected |= {(t.candidate, t.metric, words.TEST_FIELD, test, held[t.candidate, t.metric],
                      words.verdict(t.difference, q < comparison.alpha))
                     for t, q in zip(comparison.tests, p, strict=True)
                     if words.verdict(t.difference, q < comparison.alpha)
                     != held[t.candidate, t.metric]}
    got = {tuple(row.values()) for row in found.rows()}
    assert got == expected
    assert len(found.rows()) == len(got)  # no flip listed twice


def gain_case():
    """The baseline stacks grade-1 ids above one grade-3 id; the candidate puts the grade-3 id
    first and nothing else: worse on linear gain, better on exponential."""
    judgments, baseline, candidate = {}, {}, {}
    for i in range(30):
        q = f"q{i}"
        judgments[q] = {f"{q}a": 3, f"{q}b1": 1, f"{q}b2": 1, f"{q}b3": 1}
        baseline[q] = [f"{q}b1", f"{q}b2", f"{q}b3", f"{q}a"]
        candidate[q] = [f"{q}a", "x1", "x2", "x3"]
    return make_qrels(judgments), [make_run(baseline, "baseline"), make_run(candidate, "cand")]


def test_a_verdict_flips_under_exponential_gain():
    qrels, runs = gain_case()
    evaluation = evaluate(qrels, runs, 4)
    comparison = compare_evaluation(evaluation, metrics=["nDCG"], **OPTIONS)
    assert comparison.tests[0].significant and comparison.tests[0].difference < 0
    flips = fragility(evaluation, comparison).flips
    gain = [f for f in flips if f.convention == "gain"]
    assert [(f.candidate, f.verdict, f.verdict_under_choice) for f in gain if
            f.candidate == "cand"] == [("cand", words.WORSE, words.BETTER)]
    assert "under DCG gain = exponential (2^grade − 1)" in gain[0].sentence
    assert ("best run", "nDCG@4", "gain", "exponential", "baseline best",
            "cand best") in {tuple(f.as_dict().values()) for f in flips}


def test_a_verdict_flips_under_the_relevance_level():
    judgments, baseline, candidate = {}, {}, {}
    for i in range(30):
        q = f"q{i}"
        judgments[q] = {f"{q}a": 2, f"{q}b1": 1, f"{q}b2": 1}
        baseline[q] = [f"{q}b1", f"{q}b2", "x"]
        candidate[q] = [f"{q}a", "x", "y"]
    qrels = make_qrels(judgments)
    runs = [make_run(baseline, "baseline"), make_run(candidate, "cand")]
    evaluation = evaluate(qrels, runs, 3)
    comparison = compare_evaluation(evaluation, metrics=["P"], **OPTIONS)
    found = fragility(evaluation, comparison)
    level = [f for f in found.flips if f.convention == "relevance_level"]
    assert [(f.candidate, f.choice, f.verdict, f.verdict_under_choice) for f in level] == [
        ("cand", "2", words.WORSE, words.BETTER),
        (words.BEST_RUN, "2", "baseline best", "cand best")]
    assert not found.robust("cand", "P@3")
    assert "Fragile: 2 of 2 verdicts" in found.summary


def test_a_clear_win_is_robust_and_binary_labels_skip_the_level():
    judgments = {f"q{i}": {f"q{i}a": 1, f"q{i}b": 1} for i in range(25)}
    baseline = {q: ["x", "y", "z", "w"] for q in judgments}
    candidate = {q: [f"{q}a", f"{q}b", "x", "y"] for q in judgments}
    evaluation = evaluate(make_qrels(judgments), [make_run(baseline, "baseline"),
                                                  make_run(candidate, "cand")], 4)
    found = fragility(evaluation, compare_evaluation(evaluation, **OPTIONS))
    assert found.flips == ()
    assert found.summary.startswith("Robust: all 16 verdicts hold")
    assert dict(found.skipped)["relevance_level"] == words.NOT_APPLICABLE["relevance_level"]


def test_the_other_trec_order_is_read_again(tmp_path):
    """Tied scores whose rank column disagrees with trec_eval's doc-id tie break."""
    qrels_lines, base_lines, cand_lines = [], [], []
    for i in range(25):
        q = f"q{i}"
        qrels_lines.append(f"{q} 0 {q}a 1")
        base_lines += [f"{q} Q0 {q}z 1 5 base", f"{q} Q0 {q}a 2 4 base"]
        # tied scores: trec_eval puts {q}z (doc id descending) first, the rank column {q}a
        cand_lines += [f"{q} Q0 {q}a 1 5 cand", f"{q} Q0 {q}z 2 5 cand"]
    (tmp_path / "qrels").write_text("\n".join(qrels_lines) + "\n")
    (tmp_path / "base.run").write_text("\n".join(base_lines) + "\n")
    (tmp_path / "cand.run").write_text("\n".join(cand_lines) + "\n")
    qrels, _ = load_qrels(tmp_path / "qrels")
    runs = [load_run(tmp_path / name)[0] for name in ("base.run", "cand.run")]
    evaluation = evaluate(qrels, runs, 1)
    comparison = compare_evaluation(evaluation, metrics=["P"], **OPTIONS)
    assert comparison.tests[0].difference == 0

    def reread(order):
        return [load_run(tmp_path / name, order=order)[0] for name in ("base.run", "cand.run")]

    flips = fragility(evaluation, comparison, reread=reread).flips
    assert ("cand", "P@1", "order", "rank", words.UNCLEAR, words.BETTER) in {
        tuple(f.as_dict().values()) for f in flips}
    assert "under Order TREC runs by = rank column" in flips[0].sentence
