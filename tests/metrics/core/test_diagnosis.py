"""Query classes, the k suggestion and the failure classes, at and around their thresholds."""

from __future__ import annotations

import pytest

from metrics.core import diagnosis as d
from metrics.core.evaluate import evaluate
from metrics.core.sample import load_sample
from tests.metrics.builders import make_qrels, make_run


def flagged(run):
    return {f.failure for f in run.diagnosis if f.flagged}


def test_sample_baseline_reading_and_suggestion():
    run = load_sample().run("baseline")
    s = run.suggestion
    # mean recall by every relevant id first reaches 95% of its value at k = 10 at k = 9
    assert (s.k, s.longest_list) == (9, 10)
    # at k = 10: five full queries, q04 and q03 complete, q09 finds 3 of 6, q06 none
    assert s.best_recall == pytest.approx((5 + 1 + 1 + 0.5 + 0) / 9)
    assert s.recall >= d.PLATEAU_SHARE * s.best_recall
    assert s.readings[0].startswith("Recall still climbing at k = 5")
    assert flagged(run) == {"coverage", "buried"}  # q06 misses, q03 is a late hit


def test_noise_chunks_count_repeats_but_not_empty_slots():
    qrels = make_qrels({"q": {"a": 1}})
    run = evaluate(qrels, [make_run({"q": ["a", "a", "x"]})], 5).run("run")
    assert run.scores.noise[0, 4] == 2  # the repeat and x; slots 4 and 5 are empty
    assert run.suggestion.k == 1 and run.suggestion.noise_chunks == 0


def test_low_recall_at_every_k_is_read_as_retrieval_failure():
    judgments = {f"q{i}": {"a": 1, "b": 1, "c": 1} for i in range(4)}
    lists = {f"q{i}": ["a", "x", "y"] for i in range(4)}
    run = evaluate(make_qrels(judgments), [make_run(lists)], 3).run("run")
    assert run.suggestion.best_recall == pytest.approx(1 / 3)
    assert any(r.startswith("Recall low at every k") for r in run.suggestion.readings)


def test_flat_recall_and_low_precision_suggests_a_lower_k():
    judgments = {f"q{i}": {"a": 1} for i in range(4)}
    lists = {f"q{i}": ["a"] + [f"n{j}" for j in range(9)] for i in range(4)}
    run = evaluate(make_qrels(judgments), [make_run(lists)], 10).run("run")
    assert run.suggestion.k == 1
    # P@10 = 0.1 equals the ceiling min(R, 10) / 10: not noisy for what the labels allow
    assert "noisy window" not in flagged(run)
    assert run.suggestion.readings[0].startswith("Recall has reached its plateau")


def test_noisy_window_flag_at_its_threshold():
    judgments = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    # ceiling at K = 4 is 1.0; 1 of 4 relevant -> 0.25 < 0.5 -> flagged; 2 of 4 -> not
    noisy = evaluate(make_qrels(judgments), [make_run({"q": ["a", "x", "y", "z"]})], 4)
    clean = evaluate(make_qrels(judgments), [make_run({"q": ["a", "b", "y", "z"]})], 4)
    assert "noisy window" in flagged(noisy.run("run"))
    assert "noisy window" not in flagged(clean.run("run"))


def test_buried_when_first_hits_sit_low():
    judgments = {f"q{i}": {"a": 1} for i in range(5)}
    low = evaluate(
        make_qrels(judgments), [make_run({f"q{i}": ["x", "y", "a"] for i in range(5)})], 3
    )
    # lists of K ids: a list of one id read at K = 3 would be flagged as cut short
    top = evaluate(make_qrels(judgments),
                   [make_run({f"q{i}": ["a", "x", "y"] for i in range(5)})], 3)
    assert flagged(low.run("run")) == {"buried"}
    assert flagged(top.run("run")) == set()


def test_classes_use_counts_whatever_the_denominator():
    judgments = {"q": {f"r{i}": 1 for i in range(6)}}
    lists = {"q": ["r0", "r1", "r2", "r3", "r4", "r5"]}
    from metrics.vocabulary.conventions import Conventions

    run = evaluate(
        make_qrels(judgments), [make_run(lists)], 5, Conventions(recall_denominator="min")
    ).run("run")
    assert run.classes[0] == "partial"  # R@5 is 1.0 under min(R, K), yet one id lies below 5


# --------------------------------------------------------------------------- what the lists allow


def cut_and_full(k: int = 20):
    """30 queries of 3 relevant ids each; 'full' returns 40 ids, 'cut' its first 10 only."""
    judgments = {f"q{i:02d}": {f"r{i}a": 1, f"r{i}b": 2, f"r{i}c": 1} for i in range(30)}
    full = {q: [f"n{j}" for j in range(3)] + list(j) + [f"m{j}" for j in range(34)]
            for q, j in judgments.items()}
    cut = {q: ids[:10] for q, ids in full.items()}
    return evaluate(make_qrels(judgments), [make_run(full, "full"), make_run(cut, "cut")], k)


def test_a_run_cut_before_k_is_read_as_cut():
    from metrics.explain.lists import short_lists

    evaluation = cut_and_full(20)
    cut, full = evaluation.run("cut"), evaluation.run("full")
    assert cut.suggestion.cut and cut.suggestion.run_longest == 10
    assert not full.suggestion.cut and full.suggestion.run_longest == 40
    readings = " ".join(cut.suggestion.readings)
    assert "Its lists stop at rank 10, before K = 20" in readings
    assert "well chosen" not in readings and "lower k" not in readings
    assert "short lists" in flagged(cut) and "short lists" not in flagged(full)
    finding = next(f for f in cut.diagnosis if f.failure == "short lists")
    assert finding.figure == 10 and "Precision@20 divides by 20" in finding.sentence
    found = short_lists(evaluation)
    assert [(s.run, s.longest, s.k) for s in found] == [("cut", 10, 20)]
    assert found[0].sentence.startswith("cut's lists stop at rank 10 (its longest list), before "
                                        "K = 20: Precision@20 divides by 20, so the 10 empty")
    # at K = 10 the same run is whole
    assert not short_lists(cut_and_full(10))


def test_some_lists_shorter_than_k_are_counted():
    judgments = {f"q{i}": {"a": 1} for i in range(4)}
    lists = {f"q{i}": ["a"] + [f"n{j}" for j in range(9 if i else 2)] for i in range(4)}
    run = evaluate(make_qrels(judgments), [make_run(lists)], 10).run("run")
    assert not run.suggestion.cut and run.suggestion.short_queries == 1
    assert run.suggestion.readings[0] == ("1 scored query of 4 has fewer than 10 ids in this "
                                          "run's list: Precision@10 counts their empty slots "
                                          "as wrong ids.")


def test_a_run_that_meets_no_query_gets_no_k_advice():
    judgments = {f"q{i}": {"a": 1} for i in range(5)}
    prefixed = make_run({f"query_q{i}": ["a", "b"] for i in range(5)}, "prefixed")
    evaluation = evaluate(make_qrels(judgments), [prefixed], 5)
    run = evaluation.run("prefixed")
    s = run.suggestion
    assert not s.advice and not s.cut
    assert s.sentence.startswith("No k to suggest. This run has no list for any of the 5 scored")
    words = " ".join([s.sentence, *s.readings, *(f.sentence for f in run.diagnosis)])
    assert "Suggested K" not in words and "lower k" not in words and "rank none" not in words
    assert [f.failure for f in run.diagnosis] == ["no list"]


def test_a_run_without_a_relevant_id_gets_no_k_advice_and_no_rank_none():
    judgments = {f"q{i}": {"a": 1} for i in range(5)}
    run = evaluate(make_qrels(judgments), [make_run({f"q{i}": ["x", "y"] for i in range(5)})],
                   2).run("run")
    assert not run.suggestion.advice
    assert run.suggestion.readings == ("No list of this run holds a relevant id anywhere: every "
                                       "figure is 0, and no k can be suggested from it.",)
    buried = next(f for f in run.diagnosis if f.failure == "buried")
    assert not buried.flagged and "none is buried" in buried.sentence
    assert "rank none" not in buried.sentence


def _buried(lists: dict[str, list[str]], k: int):
    judgments = {q: {"a": 1} for q in lists}
    run = evaluate(make_qrels(judgments), [make_run(lists)], k).run("run")
    return next(f for f in run.diagnosis if f.failure == "buried")


def test_the_buried_sentence_says_which_part_of_its_rule_raised_the_flag():
    """The sample's baseline was flagged 'buried' beside 'the first relevant id sits at rank
    1.2 on average': the flag came from its late hits (1 of 9 queries finds its first
    relevant id only below K, at least 10%), which the sentence did not say. Each part of the
    rule is read with its verdict."""
    top = ["a", "x", "y"]
    late = ["x", "y", "z", "a"]  # the relevant id below K = 3: a late hit
    low = ["x", "y", "a"]  # at rank 3: RR 1/3 < 0.5
    by_late = _buried({**{f"q{i}": top for i in range(8)}, "q8": late}, 3)
    assert by_late.flagged
    assert "sits at rank 1.0 on average" in by_late.sentence
    assert "near the top; but 1 of 9 queries (11%) finds its first relevant id only below " \
           "rank 3 (a late hit), at least 10%: buried below the window." in by_late.sentence
    by_rank = _buried({f"q{i}": low for i in range(9)}, 3)
    assert by_rank.flagged
    assert "rank 3.0 on average" in by_rank.sentence
    assert "below 0.500): buried in the window" in by_rank.sentence
    assert "0 of 9 queries (0%) find their first relevant id only below rank 3 (late hits), " \
           "under 10%." in by_rank.sentence
    fine = _buried({f"q{i}": top for i in range(9)}, 3)
    assert not fine.flagged and "buried" not in fine.sentence
    assert "reranker" not in fine.sentence and "near the top" in fine.sentence
