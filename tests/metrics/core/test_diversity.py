"""The diversity kernel against ndeval (pyndeval, the C program's code) on random collections
with ties, and against a small example worked by hand."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from metrics.core.diversity import (
    DIVERSITY_KEYS,
    align_subtopics,
    diversity,
    greedy_ideal,
    prepare_subtopics,
)
from metrics.core.ranking import align, prepare_query_set
from metrics.io import Qrels, load_run
from metrics.io.subtopics import IntentProbabilities, SubtopicQrels

pyndeval = pytest.importorskip("pyndeval")

# our key -> ndeval's name (read at K), and the two it reads over the whole list
AT_K = {"alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "P_IA": "P-IA",
        "StRecall": "strec"}
WHOLE = {"NRBP": "NRBP", "AP_IA": "MAP-IA"}
DEPTH = 20  # ndeval computes to rank 20 at most


def _scored(subtopic_rows, run_text: bytes, *, alpha=0.5, beta=0.5, level=1, intents=None):
    """Per-query figures through the product's path: ordinary qrels (each doc's best grade),
    the TREC run read and ordered as trec_eval orders it, aligned, then the kernel."""
    judged = SubtopicQrels.from_rows(subtopic_rows)
    best: dict[tuple[str, str], int] = {}
    for q, _, d, g in subtopic_rows:
        best[q, d] = max(best.get((q, d), g), g)
    queries = list(dict.fromkeys(q for q, *_ in subtopic_rows))
    qrels = Qrels.from_rows("qrels", queries, [q for q, _ in best], [d for _, d in best],
                            list(best.values()), list(range(1, len(best) + 1)))
    query_set = prepare_query_set(qrels)
    run, _ = load_run(run_text, file_name="run.txt")
    aligned = align(query_set, run, width=DEPTH + 1)
    subtopics = prepare_subtopics(query_set.query_ids, judged, relevance_level=level,
                                  intents=intents)
    covers = align_subtopics(subtopics, run, aligned.row, aligned.repeat)
    values, parts = diversity(subtopics, covers, alpha=alpha, beta=beta)
    order = {q: [run.doc[r] for r in aligned.row[i] if r >= 0]
             for i, q in enumerate(query_set.query_ids) if aligned.answered[i]}
    return query_set, subtopics, values, parts, order


def _collection(rng: np.random.Generator):
    """A random diversity collection: a few queries, a few subtopics each, grades 0..2, docs
    judged for several subtopics; a run whose scores tie often (ids in any order)."""
    rows, lines = [], []
    for q in range(int(rng.integers(1, 6))):
        docs = sorted({f"d{int(rng.integers(0, 30))}" for _ in range(int(rng.integers(1, 20)))})
        for s in range(int(rng.integers(1, 6))):
            rows += [(f"q{q}", f"{s}", d, int(rng.integers(0, 3)))
                     for d in docs if rng.random() < 0.5]
        if rng.random() < 0.9:
            for rank, d in enumerate(dict.fromkeys(
                    f"d{int(rng.integers(0, 35))}" for _ in range(int(rng.integers(1, 30))))):
                lines.append(f"q{q} Q0 {d} {rank + 1} {int(rng.integers(0, 4))} r")
    if not any(r[:3] == ("q0", "0", "d0") for r in rows):
        rows.append(("q0", "0", "d0", 1))  # never empty (one grade a judgment, as the reader)
    return rows, ("\n".join(lines) + "\n").encode() if lines else b"q0 Q0 d0 1 1 r\n"


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_ndeval_on_random_collections_with_ties(seed):
    rng = np.random.default_rng(seed)
    rows, run_text = _collection(rng)
    alpha = float(rng.choice([0.5, 0.5, 0.3, 0.75, 0.0, 1.0]))
    beta = float(rng.choice([0.5, 0.8]))
    level = int(rng.choice([1, 1, 2]))
    query_set, subtopics, values, _, order = _scored(rows, run_text, alpha=alpha, beta=beta,
                                                     level=level)
    measures = [f"{name}@{k}" for name in AT_K.values() for k in range(1, DEPTH + 1)]
    # the run as the product ordered it (trec_eval's order: score down, ties by doc id
    # descending), handed to ndeval as distinct scores: pyndeval breaks ties by doc id
    # ascending, ndeval -traditional as trec_eval does (see test_tie_orders below)
    run = [(q, d, -float(i)) for q, docs in order.items() for i, d in enumerate(docs)]
    reference = pyndeval.ndeval(rows, run, measures=[*measures, *WHOLE.values()],
                                alpha=alpha, beta=beta) if level == 1 else \
        _ndeval_at_level(rows, run, [*measures, *WHOLE.values()], alpha, beta, level)
    assert reference
    for query, theirs in reference.items():
        row = query_set.row(query)
        for key, name in AT_K.items():
            for k in range(1, DEPTH + 1):
                expected = theirs[f"{name}@{k}"]
                if key == "ERR_IA" and k == 1 and subtopics.actual[row]:
                    expected /= subtopics.actual[row]  # ndeval leaves ERR-IA@1 undivided
                assert values[key][row, k - 1] == pytest.approx(expected, abs=1e-12), \
                    (query, key, k)
        for key, name in WHOLE.items():
            assert values[key][row, 0] == pytest.approx(theirs[name], abs=1e-12), (query, key)


def _ndeval_at_level(rows, run, measures, alpha, beta, level):
    evaluator = pyndeval.RelevanceEvaluator(rows, measures, relevance_level=level, alpha=alpha,
                                            beta=beta)
    return evaluator.evaluate(run)


def test_ndeval_reads_err_ia_at_1_undivided():
    """The one place we part from ndeval: its ERR-IA@1 is the first rank's gain itself (its
    normalising loop starts at rank 2), so it can exceed 1; ours divides at every K."""
    rows = [("q", "a", "d1", 1), ("q", "b", "d1", 1), ("q", "c", "d2", 1)]
    reference = pyndeval.ndeval(rows, [("q", "d1", 1.0)], measures=["ERR-IA@1", "ERR-IA@2"])
    assert reference["q"]["ERR-IA@1"] == pytest.approx(2.0)
    _, _, values, _, _ = _scored(rows, b"q Q0 d1 1 1 r\n")
    assert values["ERR_IA"][0, 0] == pytest.approx(2 / 3)
    assert values["ERR_IA"][0, 1] == pytest.approx(reference["q"]["ERR-IA@2"], abs=1e-12)


def test_tie_orders():
    """Tied scores: the product orders them as trec_eval (doc id descending), which is
    ndeval -traditional's order; pyndeval sorts them by doc id ascending."""
    rows = [("q", "a", "d1", 1), ("q", "b", "d2", 1)]
    _, _, _, _, order = _scored(rows, b"q Q0 d1 1 1 r\nq Q0 d2 2 1 r\nq Q0 d3 3 1 r\n")
    assert order["q"] == ["d3", "d2", "d1"]


def test_hand_worked_example():
    """Subtopics A and B; d1 covers A, d2 both, d3 B; the run ranks d1, d3, d2. alpha = 0.5:
    gains 1, 1, 0.5 + 0.5; the greedy ideal d2 (2), then d3 and d1 tied at 0.5 (the greater
    id, d3, first), then d1: gains 2, 0.5, 0.5."""
    rows = [("q", "A", "d1", 1), ("q", "A", "d2", 1), ("q", "B", "d2", 1), ("q", "B", "d3", 1)]
    _, subtopics, values, parts, _ = _scored(rows, b"q Q0 d1 1 3 r\nq Q0 d3 2 2 r\n"
                                                   b"q Q0 d2 3 1 r\n")
    np.testing.assert_allclose(parts["gain"][0, :3], [1, 1, 1])
    np.testing.assert_allclose(parts["ideal_gain"][0, :3], [2, 0.5, 0.5])
    log2 = np.log2
    dcg = [1, 1 + 1 / log2(3), 1 + 1 / log2(3) + 1 / 2]
    idcg = [2, 2 + 0.5 / log2(3), 2 + 0.5 / log2(3) + 0.5 / 2]
    np.testing.assert_allclose(values["alpha_nDCG"][0, :3], np.divide(dcg, idcg))
    # ERR-IA: (1 + 1/2 + 1/3) over S (1 + 0.5/2 + 0.25/3), S = 2
    err = [F(1), F(3, 2), F(11, 6)]
    ideal_ideal = [2 * F(1), 2 * (1 + F(1, 4)), 2 * (1 + F(1, 4) + F(1, 12))]
    np.testing.assert_allclose(values["ERR_IA"][0, :3],
                               [float(e / i) for e, i in zip(err, ideal_ideal, strict=True)])
    ideal_err = [F(2), F(2) + F(1, 4), F(2) + F(1, 4) + F(1, 6)]
    np.testing.assert_allclose(values["nERR_IA"][0, :3],
                               [float(e / i) for e, i in zip(err, ideal_err, strict=True)])
    np.testing.assert_allclose(values["StRecall"][0, :3], [0.5, 1, 1])
    np.testing.assert_allclose(values["P_IA"][0, :3], [1 / 2, 2 / 4, 4 / 6])
    # AP-IA: A (1/1 + 2/3) / 2, B (1/2 + 2/3) / 2, averaged
    assert values["AP_IA"][0, 5] == pytest.approx(float((F(5, 3) / 2 + F(7, 6) / 2) / 2))
    # NRBP: (1 + 0.5 + 0.25) (1 - 0.5 * 0.5) / 2
    assert values["NRBP"][0, 5] == pytest.approx(1.75 * 0.75 / 2)
    assert subtopics.actual[0] == 2


def test_past_the_width_in_closed_form():
    """Read past the stored columns, each figure goes on as its list has ended."""
    rows = [("q", "A", "d1", 1), ("q", "B", "d2", 1), ("q", "B", "d3", 1)]
    _, _, values, _, _ = _scored(rows, b"q Q0 d1 1 3 r\nq Q0 d2 2 2 r\n")
    width = values["P_IA"].shape[1]
    k = width + 10
    assert values["P_IA"][0, k - 1] == pytest.approx(2 / 2 / k)
    assert values["StRecall"][0, k - 1] == 1.0
    # ideal gains 1, 1, 0.5: alpha-DCG's list ended at 1 + 1/log2(3)
    ideal = 1 + 1 / np.log2(3) + 0.5 / 2
    assert values["alpha_nDCG"][0, k - 1] == pytest.approx((1 + 1 / np.log2(3)) / ideal)
    base = sum(0.5 ** (r - 1) / r for r in range(1, k + 1))
    assert values["ERR_IA"][0, k - 1] == pytest.approx((1 + 1 / 2) / 2 / base)


def test_query_without_subtopics_scores_zero_and_unknown_queries_are_named():
    rows = [("q", "A", "d1", 1), ("other", "A", "d1", 1)]
    judged = SubtopicQrels.from_rows(rows)
    subtopics = prepare_subtopics(np.array(["q", "empty"], dtype=object), judged)
    assert subtopics.ignored_queries == ("other",)
    assert list(subtopics.actual) == [1, 0]
    covers = np.zeros((2, 3, subtopics.n_subtopics), dtype=bool)
    covers[0, 0, 0] = True
    values, _ = diversity(subtopics, covers)
    for key in DIVERSITY_KEYS:
        assert values[key][1, 2] == 0.0
        assert values[key][0, 0] > 0


def test_uniform_probabilities_change_nothing_and_weights_move_the_figures():
    rows = [("q", "A", "d1", 1), ("q", "B", "d2", 1), ("q", "C", "d3", 0)]
    run = b"q Q0 d1 1 2 r\nq Q0 d2 2 1 r\n"
    _, _, plain, _, _ = _scored(rows, run)
    uniform = IntentProbabilities.from_rows([("q", "A", 0.5), ("q", "B", 0.5), ("q", "C", 0.1)])
    _, _, same, _, _ = _scored(rows, run, intents=uniform)
    for key in DIVERSITY_KEYS:
        np.testing.assert_allclose(same[key][:, :5], plain[key][:, :5], atol=1e-15)
    skewed = IntentProbabilities.from_rows([("q", "A", 0.9), ("q", "B", 0.1)])
    _, _, weighted, _, _ = _scored(rows, run, intents=skewed)
    # P-IA@1 = the weight of A: 0.9 (S p_A / sum p = 1.8 over S = 2)
    assert weighted["P_IA"][0, 0] == pytest.approx(0.9)
    assert weighted["StRecall"][0, 0] == pytest.approx(0.5)  # unweighted


def test_missing_probability_is_refused():
    rows = [("q", "A", "d1", 1), ("q", "B", "d2", 1)]
    with pytest.raises(ValueError, match="no probability for its subtopic 'B'"):
        _scored(rows, b"q Q0 d1 1 2 r\n",
                intents=IntentProbabilities.from_rows([("q", "A", 1.0)]))


def test_greedy_ideal_breaks_ties_by_pool_order():
    pool = np.array([[[True, False], [False, True], [True, True]]])
    ideal = greedy_ideal(pool, np.ones((1, 2)), 0.5)
    assert ideal[0].tolist() == [[True, True], [True, False], [False, True]]


def test_parameters_are_checked():
    rows = [("q", "A", "d1", 1)]
    subtopics = prepare_subtopics(np.array(["q"], dtype=object), SubtopicQrels.from_rows(rows))
    covers = np.zeros((1, 2, 1), dtype=bool)
    with pytest.raises(ValueError, match="alpha"):
        diversity(subtopics, covers, alpha=1.5)
    with pytest.raises(ValueError, match="beta"):
        diversity(subtopics, covers, beta=1.5)
    with pytest.raises(ValueError, match="no diversity measure"):
        diversity(subtopics, covers, ["nope"])


IR_MEASURES_NAMES = ("alpha_nDCG@10", "alpha_nDCG(alpha=0.3)@5", "ERR_IA@10", "nERR_IA@20",
                     "P_IA@5", "StRecall@10", "NRBP", "NRBP(alpha=0.75,beta=0.8)", "AP_IA")


@pytest.mark.parametrize("seed", range(8))
def test_evaluate_by_ir_measures_names_equals_ir_measures_pyndeval(seed):
    """The public path: evaluate() asked by ir_measures' names, against ir_measures' pyndeval
    provider on the same judgments (its iteration column the subtopic), run by run."""
    ir_measures = pytest.importorskip("ir_measures")
    from metrics.core.diversity import Subtopics
    from metrics.core.evaluate import evaluate

    rng = np.random.default_rng(1000 + seed)
    rows, run_text = _collection(rng)
    query_set, _, _, _, order = _scored(rows, run_text)
    best: dict[tuple[str, str], int] = {}
    for q, _, d, g in rows:
        best[q, d] = max(best.get((q, d), g), g)
    queries = list(dict.fromkeys(q for q, *_ in rows))
    qrels = Qrels.from_rows("qrels", queries, [q for q, _ in best], [d for _, d in best],
                            list(best.values()), list(range(1, len(best) + 1)))
    run, _ = load_run(run_text, file_name="run.txt")
    evaluation = evaluate(qrels, [run], 10, measures=IR_MEASURES_NAMES,
                          subtopics=Subtopics(SubtopicQrels.from_rows(rows)))
    ours = evaluation.per_query_scores(run.name)
    scored = list(evaluation.scored_ids)
    generic = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in rows]  # iteration: subtopic
    scored_docs = [ir_measures.ScoredDoc(q, d, -float(i)) for q, docs in order.items()
                   for i, d in enumerate(docs)]
    parsed = [ir_measures.parse_measure(name) for name in IR_MEASURES_NAMES]
    # one call a measure: ir_measures 0.4.3's pyndeval provider reads the run once, so of
    # measures asked together under different (rel, alpha, beta) all but the first read 0
    theirs = {(m.query_id, str(m.measure)): m.value for measure in parsed
              for m in ir_measures.pyndeval.iter_calc([measure], generic, scored_docs)}
    compared = 0
    for spec_key, name, measure in zip(
            [s.key for s in evaluation.asked], IR_MEASURES_NAMES, parsed, strict=True):
        for i, query in enumerate(scored):
            if (query, str(measure)) not in theirs:
                continue  # ndeval skips a query the run has no list for; we score it 0
            assert ours[spec_key][i] == pytest.approx(theirs[query, str(measure)], abs=1e-12), \
                (query, name)
            compared += 1
    assert compared
