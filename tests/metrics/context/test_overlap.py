"""metrics.overlap: RBO_EXT against the paper's formulas written out here; Jaccard, RBO, the
unique relevant ids and the hybrid ceiling against a plain loop over random collections; the
intervals against a plain bootstrap over the summary's draws; the JSON keys and edge rules."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from metrics import Conventions, evaluate
from metrics.context.overlap import overlap, query_overlap, rbo_ext
from metrics.stats.bca import bootstrap_bounds
from metrics.vocabulary.overlap import (
    DEFAULT_PERSISTENCE,
    OVERLAP_BY_KEY,
    OVERLAP_KEYS,
    label,
    persistence_sentence,
    top_weight,
)
from tests.metrics.builders import make_qrels, make_run

ROW_KEYS = ["a", "b"] + [f"{key}{end}" for key in OVERLAP_KEYS for end in ("", "_low", "_high")]


# --------------------------------------------------------------------------- the paper


def paper_rbo(first: list, second: list, p: float) -> float:
    """RBO_EXT from Webber, Moffat and Zobel (2010) for lists without ties or repeats.

    X_d = |S_{:d} ∩ L_{:d}|, with S_{:d} = S past its end. Equal lengths k, equation 30:
    X_k / k · p^k + (1 - p) / p · Σ_{d=1..k} X_d / d · p^d. Uneven lengths s < l, equation 32
    read as the paper derives it: past depth s the shorter list's unseen ids are assumed to
    agree at the rate X_s / s, so the agreement at d > s is X_d / d + X_s (d - s) / (s d),
    and equation 30 is applied to those agreements up to l."""
    short, long = sorted((first, second), key=len)
    s, l = len(short), len(long)  # noqa: E741
    overlap_at = {d: len(set(short[:d]) & set(long[:d])) for d in range(1, l + 1)}
    if s == l:
        return (overlap_at[l] / l * p**l
                + (1 - p) / p * sum(overlap_at[d] / d * p**d for d in range(1, l + 1)))

    def agreement(d: int) -> float:
        extra = overlap_at[s] * (d - s) / (s * d) if d > s else 0.0
        return overlap_at[d] / d + extra

    return agreement(l) * p**l + (1 - p) / p * sum(agreement(d) * p**d for d in range(1, l + 1))


def distinct_lists(rng: np.random.Generator, lengths: tuple[int, int], pool: int) -> tuple:
    return tuple([f"d{i}" for i in rng.choice(pool, n, replace=False)] for n in lengths)


@pytest.mark.parametrize("seed", range(40))
def test_rbo_ext_matches_the_paper_on_random_lists(seed):
    rng = np.random.default_rng(seed)
    p = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    n = int(rng.integers(1, 30))
    equal = distinct_lists(rng, (n, n), 40)
    assert rbo_ext(*equal, p) == pytest.approx(paper_rbo(*equal, p), rel=1e-12, abs=1e-15)
    uneven = distinct_lists(rng, (int(rng.integers(1, 15)), int(rng.integers(15, 30))), 40)
    assert rbo_ext(*uneven, p) == pytest.approx(paper_rbo(*uneven, p), rel=1e-12, abs=1e-15)
    assert rbo_ext(*uneven[::-1], p) == rbo_ext(*uneven, p)  # symmetric


def test_rbo_known_values():
    ids = [f"d{i}" for i in range(10)]
    for p in (0.5, 0.9, 0.98):
        assert rbo_ext(ids, ids, p) == pytest.approx(1.0, abs=1e-14)
        assert rbo_ext(ids, [f"x{i}" for i in range(10)], p) == 0.0
        # a prefix of the other: the extrapolation assumes it goes on agreeing
        assert rbo_ext(ids[:3], ids, p) == pytest.approx(1.0, abs=1e-14)
    # by hand, equation 30: X = 0, 1, 2, 4, 5 at p = 0.9
    hand = (0.5 * 0.9**2 + 2 / 3 * 0.9**3 + 0.9**4 + 0.9**5) / 9 + 0.9**5
    assert rbo_ext([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], 0.9) == pytest.approx(hand, rel=1e-14)
    assert round(hand, 3) == 0.828
    assert rbo_ext([], [], 0.9) == 1.0 and rbo_ext([], ids, 0.9) == 0.0


def test_rbo_is_top_weighted():
    """The paper's monotonicity: the same disagreement (one adjacent swap) costs less the
    deeper it lies, and a smaller p makes the top weigh more."""
    ids = list(range(12))
    swapped = []
    for i in range(11):
        other = ids.copy()
        other[i], other[i + 1] = other[i + 1], other[i]
        swapped.append(rbo_ext(ids, other, 0.9))
    assert all(a < b for a, b in zip(swapped, swapped[1:], strict=False))
    top_swap = [1, 0] + ids[2:]
    assert rbo_ext(ids, top_swap, 0.5) < rbo_ext(ids, top_swap, 0.9)


def test_rbo_counts_repeats_once_and_checks_p():
    assert rbo_ext(["a", "a", "b"], ["a", "b"], 0.9) == pytest.approx(1.0, abs=1e-14)
    assert rbo_ext(["a", "b", "a", "c"], ["a", "b", "c"]) == pytest.approx(1.0, abs=1e-14)
    for bad in (0, 1, 1.5, -0.1, True, float("nan"), "0.9"):
        with pytest.raises(ValueError, match="persistence"):
            rbo_ext(["a"], ["a"], bad)


# --------------------------------------------------------------------------- the engine


def collection(seed: int, n_queries: int = 30, n_runs: int = 4, pool: int = 16,
               longest: int = 14):
    """Graded judgments (some queries without a relevant id, unjudged ids in every list) and
    runs drawn with replacement from a small pool: repeats, shared ids, lists shorter than
    K, empty and missing lists."""
    rng = np.random.default_rng(seed)
    judgments = {
        f"q{i}": {f"d{j}": int(rng.integers(0, 4))
                  for j in rng.choice(pool, rng.integers(1, 7), replace=False)}
        for i in range(n_queries)
    }
    lists = [{q: [f"d{j}" for j in rng.integers(0, pool, rng.integers(0, longest))]
              for q in judgments if rng.random() > 0.1} for _ in range(n_runs)]
    return judgments, lists


def named_runs(lists):
    return [make_run(ids, name=f"run{r}") for r, ids in enumerate(lists)]


def plain(judgments, lists, names, k, p, level, query_ids):
    """Per query, per pair, the five figures by sets and the paper's formula."""
    out = {}
    for i, j in combinations(range(len(names)), 2):
        rows = {key: [] for key in OVERLAP_KEYS}
        for q in query_ids:
            top = [list(dict.fromkeys(lists[r].get(q, [])[:k])) for r in (i, j)]
            a, b = set(top[0]), set(top[1])
            relevant = {d for d, g in judgments[q].items() if g >= level}
            r = len(relevant)
            rows["jaccard"].append(len(a & b) / len(a | b) if a | b else 1.0)
            rows["rbo"].append(1.0 if not (a or b) else 0.0 if not (a and b)
                               else paper_rbo(top[0], top[1], p))
            rows["unique_relevant_a"].append(len(relevant & a - b) / r if r else 0.0)
            rows["unique_relevant_b"].append(len(relevant & b - a) / r if r else 0.0)
            rows["hybrid_ceiling"].append(len(relevant & (a | b)) / r if r else 0.0)
        out[names[i], names[j]] = {key: np.array(v) for key, v in rows.items()}
    return out


@pytest.mark.parametrize("seed", range(12))
def test_every_pair_matches_a_plain_loop(seed):
    judgments, lists = collection(seed)
    names = [f"run{r}" for r in range(len(lists))]
    rng = np.random.default_rng(1000 + seed)
    k, p = int(rng.choice([1, 3, 5, 10, 20])), float(rng.choice([0.5, 0.9, 0.97]))
    level = int(rng.choice([1, 2]))
    empty = "zero" if seed % 3 == 0 else "exclude"
    ev = evaluate(make_qrels(judgments), named_runs(lists), 10,
                  Conventions(relevance_level=level, empty_queries=empty, n_resamples=50))
    result = overlap(ev, k=k, p=p)
    assert result.query_ids == tuple(ev.scored_ids)
    if empty == "exclude":
        assert set(result.query_ids) == {q for q, docs in judgments.items()
                                         if any(g >= level for g in docs.values())}
    expected = plain(judgments, lists, names, k, p, level, result.query_ids)
    assert [(x.a, x.b) for x in result.by_pair] == list(expected)
    for pair in result.by_pair:
        for key in OVERLAP_KEYS:
            np.testing.assert_allclose(pair.values[key], expected[pair.a, pair.b][key],
                                       rtol=1e-12, atol=1e-15, err_msg=key)
            assert pair.intervals[key].mean == pytest.approx(
                expected[pair.a, pair.b][key].mean(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_one_query_alone_gives_that_query_s_figures_of_every_pair(seed):
    """query_overlap scores one query's lists only; its rows are the full overlap's for that
    query, under every convention the loop above tries (repeats, short lists, levels)."""
    judgments, lists = collection(seed)
    rng = np.random.default_rng(2000 + seed)
    k, p = int(rng.choice([1, 3, 5, 10, 20])), float(rng.choice([0.5, 0.9, 0.97]))
    conventions = Conventions(relevance_level=int(rng.choice([1, 2])), n_resamples=20,
                              unjudged="drop" if seed % 2 else "nonrelevant")
    ev = evaluate(make_qrels(judgments), named_runs(lists), 10, conventions)
    full = overlap(ev, k=k, p=p)
    for query in full.query_ids:
        alone = query_overlap(ev, query, k=k, p=p)
        assert [(r["a"], r["b"]) for r in alone] == [(x.a, x.b) for x in full.by_pair]
        for mine, theirs in zip(alone, full.for_query(query), strict=True):
            for key in OVERLAP_KEYS:
                assert mine[key] == pytest.approx(theirs[key], rel=1e-12, abs=1e-15), key
    for unscored in sorted(set(judgments) - set(full.query_ids))[:1]:
        with pytest.raises(ValueError, match="is not among the .* scored queries"):
            query_overlap(ev, unscored, k=k, p=p)
    with pytest.raises(ValueError, match="'never-seen' is not in the qrels"):
        query_overlap(ev, "never-seen", k=k, p=p)


def test_judged_only_lists_are_the_ones_compared():
    """Under --unjudged drop the figures read the condensed lists the evaluation scored."""
    judgments, lists = collection(5)
    judged = [{q: [d for d in ids if d in judgments[q]] for q, ids in x.items()}
              for x in lists]
    names = [f"run{r}" for r in range(len(lists))]
    ev = evaluate(make_qrels(judgments), named_runs(lists), 5,
                  Conventions(unjudged="drop", n_resamples=20))
    result = overlap(ev)
    expected = plain(judgments, judged, names, 5, DEFAULT_PERSISTENCE, 1, result.query_ids)
    raw = plain(judgments, lists, names, 5, DEFAULT_PERSISTENCE, 1, result.query_ids)
    pair = result.by_pair[0]
    np.testing.assert_allclose(pair.values["rbo"], expected[pair.a, pair.b]["rbo"], rtol=1e-12)
    assert not np.allclose(pair.values["rbo"], raw[pair.a, pair.b]["rbo"])


def small(lists: dict[str, dict[str, list[str]]], k: int = 3, **conventions):
    judgments = {"q1": {"x": 1, "y": 1, "z": 1, "w": 0}, "q2": {"x": 1}}
    runs = [make_run(ids, name=name) for name, ids in lists.items()]
    return overlap(evaluate(make_qrels(judgments), runs, k,
                            Conventions(n_resamples=20, **conventions)))


def test_repeats_count_once():
    result = small({"a": {"q1": ["x", "x", "y"]}, "b": {"q1": ["x", "y"]}})
    q1 = result.for_query("q1")[0]
    assert q1["jaccard"] == 1.0 and q1["rbo"] == pytest.approx(1.0, abs=1e-14)
    assert q1["unique_relevant_a"] == 0.0 and q1["hybrid_ceiling"] == pytest.approx(2 / 3)
    # the repeat keeps its slot: y falls out of a's top 2, so a's top 2 is [x] alone
    result = small({"a": {"q1": ["x", "x", "y"]}, "b": {"q1": ["x", "y"]}}, k=2)
    q1 = result.for_query("q1")[0]
    assert q1["jaccard"] == 0.5 and q1["unique_relevant_b"] == pytest.approx(1 / 3)
    assert q1["rbo"] == pytest.approx(rbo_ext(["x"], ["x", "y"]))


def test_short_and_empty_lists():
    result = small({"a": {"q1": ["x", "y"]}, "b": {"q1": ["y", "z", "w", "x"], "q2": ["x"]}},
                   k=10)
    q1, q2 = result.for_query("q1")[0], result.for_query("q2")[0]
    assert q1["jaccard"] == 0.5
    assert q1["rbo"] == pytest.approx(paper_rbo(["x", "y"], ["y", "z", "w", "x"], 0.9))
    assert q1["hybrid_ceiling"] == 1.0 and q1["unique_relevant_b"] == pytest.approx(1 / 3)
    assert (q2["jaccard"], q2["rbo"], q2["unique_relevant_b"]) == (0.0, 0.0, 1.0)
    both_empty = small({"a": {"q1": ["x"]}, "b": {"q1": ["y"]}}).for_query("q2")[0]
    assert (both_empty["jaccard"], both_empty["rbo"], both_empty["hybrid_ceiling"]) == (1, 1, 0)


def test_intervals_are_a_plain_bootstrap_over_the_summary_draws():
    judgments, lists = collection(3, n_queries=60)
    conventions = Conventions(n_resamples=300, seed=7, confidence_level=0.9)
    ev = evaluate(make_qrels(judgments), named_runs(lists), 5, conventions)
    result = overlap(ev)
    n = len(result.query_ids)
    draws = np.random.default_rng(7).integers(0, n, size=(300, n))  # one resample a row
    for pair in result.by_pair:
        for key in OVERLAP_KEYS:
            means = pair.values[key][draws].mean(axis=1)
            low, high = np.quantile(means, [0.05, 0.95])
            assert pair.intervals[key].low == pytest.approx(low, rel=1e-12, abs=1e-15)
            assert pair.intervals[key].high == pytest.approx(high, rel=1e-12, abs=1e-15)
            assert pair.intervals[key].confidence_level == 0.9
    # the same draws as the summary: they give its recall interval too
    recall = ev.per_query_scores("run0")["R"][draws].mean(axis=1)
    assert ev.run("run0").summary["R"].low == pytest.approx(np.quantile(recall, 0.05))
    assert (result.seed, result.n_resamples, result.interval_method) == (7, 300, "percentile")


def test_bca_follows_the_interval_convention():
    judgments, lists = collection(4, n_queries=50)
    runs = named_runs(lists)
    result = overlap(evaluate(make_qrels(judgments), runs, 5,
                              Conventions(n_resamples=200, interval_method="bca")))
    n = len(result.query_ids)
    draws = np.random.default_rng(Conventions().seed).integers(0, n, size=(200, n))
    values = np.column_stack([result.by_pair[0].values[key] for key in OVERLAP_KEYS])
    low, high = bootstrap_bounds(values, values[draws].mean(axis=1), confidence_level=0.95,
                                 method="bca")
    got = [result.by_pair[0].intervals[key] for key in OVERLAP_KEYS]
    np.testing.assert_allclose([g.low for g in got], low, rtol=1e-10)
    np.testing.assert_allclose([g.high for g in got], high, rtol=1e-10)


def test_json_rows_and_accessors():
    judgments, lists = collection(8, n_runs=3)
    runs = named_runs(lists)
    ev = evaluate(make_qrels(judgments), runs, 5, Conventions(n_resamples=30))
    result = overlap(ev, p=0.8)
    data = json.loads(json.dumps(result.as_dict()))
    assert list(data) == ["k", "p", "pairs"] and (data["k"], data["p"]) == (5, 0.8)
    assert [(r["a"], r["b"]) for r in data["pairs"]] == [("run0", "run1"), ("run0", "run2"),
                                                        ("run1", "run2")]
    for row, pair in zip(data["pairs"], result.by_pair, strict=True):
        assert list(row) == ROW_KEYS
        for key in OVERLAP_KEYS:
            assert row[f"{key}_low"] <= row[key] <= row[f"{key}_high"]
            assert row[key] == pytest.approx(float(pair.values[key].mean()))
    q = result.query_ids[3]
    assert result.for_query(q)[1] == {"a": "run0", "b": "run2", **{
        key: float(result.pair("run0", "run2").values[key][3]) for key in OVERLAP_KEYS}}
    back = result.pair("run2", "run0")
    assert (back.a, back.b) == ("run2", "run0")
    assert back.intervals["unique_relevant_a"] == result.by_pair[1].intervals["unique_relevant_b"]
    with pytest.raises(ValueError, match="not among"):
        result.for_query("no such query")
    with pytest.raises(ValueError, match="no pair"):
        result.pair("run0", "run0")


def test_runs_filter_and_restriction():
    judgments, lists = collection(9, n_runs=3)
    runs = named_runs(lists)
    ev = evaluate(make_qrels(judgments), runs, 5, Conventions(n_resamples=30))
    picked = overlap(ev, runs=["run2", "run0"])
    assert picked.runs == ("run2", "run0") and len(picked.by_pair) == 1
    full = overlap(ev).pair("run2", "run0")
    for key in OVERLAP_KEYS:
        np.testing.assert_array_equal(picked.by_pair[0].values[key], full.values[key])
    mask = np.arange(len(ev.scored)) % 2 == 0
    half = overlap(ev.restricted(mask, "even rows"))
    assert half.query_ids == tuple(ev.restricted(mask, "even rows").scored_ids)
    assert len(half.query_ids) < len(picked.query_ids)


@pytest.mark.parametrize("options, message", [
    ({"k": 0}, "k must be"), ({"k": True}, "k must be"), ({"k": 2.5}, "k must be"),
    ({"p": 1.0}, "persistence"), ({"p": 0}, "persistence"),
    ({"runs": ["run0"]}, "at least two"), ({"runs": ["run0", "run0"]}, "distinct"),
    ({"runs": ["run0", "nope"]}, "no run named"),
])
def test_bad_options_are_refused(options, message):
    judgments, lists = collection(2, n_runs=2)
    runs = named_runs(lists)
    ev = evaluate(make_qrels(judgments), runs, 5, Conventions(n_resamples=10))
    with pytest.raises(ValueError, match=message):
        overlap(ev, **options)


def test_vocabulary():
    assert OVERLAP_KEYS == ("jaccard", "rbo", "unique_relevant_a", "unique_relevant_b",
                            "hybrid_ceiling")
    assert all(m.meaning.endswith(".") for m in OVERLAP_BY_KEY.values())
    assert DEFAULT_PERSISTENCE == 0.9
    # the paper: at p = 0.9 the first 10 ranks carry 86% of the weight
    assert top_weight(10, 0.9) == pytest.approx(0.8556, abs=1e-4)
    assert top_weight(1, 0.5) == pytest.approx(np.log(2))  # (1 - p) / p · ln(1 / (1 - p))
    assert persistence_sentence(0.9, 10) == "At p = 0.9 the first 10 ranks carry 86% of " \
        "RBO's weight."
    assert label("unique_relevant_b", 10, "bm25", "dense") == "Relevant only in dense@10"
    assert label("rbo", 5) == "RBO@5"
