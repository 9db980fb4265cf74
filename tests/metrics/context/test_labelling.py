"""What to label next: the unjudged ids in the top K of any run, checked against a plain
Python loop on random collections, and the CSV and TREC writers against the csv module and
the project's own qrels loader."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest

from metrics import Conventions, evaluate, load_qrels
from metrics.context.labelling import (
    summary,
    to_csv,
    to_label,
    to_qrels_template,
    trec_unwritable,
)
from metrics.io.spreadsheet import FORMULA_STARTS, csv_cell
from metrics.vocabulary.labelling import COLUMNS, RANKED_BY_JOIN
from tests.metrics.builders import make_qrels, make_run

# ids that sort differently by case, accents and length, so the doc-id tie-break is exercised
POOL = ["a", "aa", "B", "b", "d1", "d10", "d2", "é", "Z", "z9", "Ω", "x,y", 'q"t', "=f", "-1"]


def reference(judgments, lists, k, queries=None, relevance_level=1):
    """The list, written as the rules say it: (query, doc, runs, best, mean, ranked_by, ranks)
    in labelling order. `lists` is {run name: {query: ids}}."""
    order = {query: i for i, query in enumerate(judgments)}
    if queries is None:  # the scored queries: those with a relevant id
        queries = [q for q, docs in judgments.items()
                   if any(g >= relevance_level for g in docs.values())]
    found: dict[tuple[str, str], dict[str, int]] = {}
    for name, by_query in lists.items():
        for query in queries:
            seen = set()
            for place, doc in enumerate(by_query.get(query, [])):
                if doc in seen:
                    continue  # a repeat: counted once, at its first rank
                seen.add(doc)
                if place < k and doc not in judgments[query]:
                    found.setdefault((query, doc), {})[name] = place + 1
    rows = []
    for (query, doc), ranks in found.items():
        values = list(ranks.values())
        rows.append((query, doc, len(values), min(values), sum(values) / len(values),
                     RANKED_BY_JOIN.join(n for n in lists if n in ranks),
                     tuple(ranks.get(n, 0) for n in lists)))
    rows.sort(key=lambda r: (-r[2], r[3], r[4], order[r[0]], r[1]))
    return rows


def listed(result):
    return [(q, d, int(n), int(b), float(m), by, tuple(int(r) for r in ranks))
            for q, d, n, b, m, by, ranks in zip(result.query_id, result.doc_id, result.runs,
                                                 result.best_rank, result.mean_rank,
                                                 result.ranked_by, result.ranks, strict=True)]


def collection(seed: int, n_runs: int = 3):
    """Random judgments (grades -1..2, some queries with none >= 1) and runs drawn with
    replacement from a small pool: overlaps, repeats, judged and unjudged ids, missing lists,
    and a run query the qrels lack."""
    rng = np.random.default_rng(seed)
    judgments = {}
    for i in range(int(rng.integers(5, 15))):
        docs = rng.choice(POOL, int(rng.integers(1, 6)), replace=False)
        judgments[f"q{i}"] = {str(d): int(rng.integers(-1, 3)) for d in docs}
    lists = {}
    for r in range(n_runs):
        by_query = {q: [str(d) for d in rng.choice(POOL, int(rng.integers(0, 14)))]
                    for q in judgments if rng.random() < 0.9}
        by_query["unjudged-query"] = ["a", "b"]
        lists[f"run{r}"] = by_query
    return judgments, lists


def evaluation_of(judgments, lists, k=5, conventions=None):
    runs = [make_run(by_query, name=name) for name, by_query in lists.items()]
    return evaluate(make_qrels(judgments), runs, k, conventions)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [1, 3, 10, 40])
def test_the_list_is_the_plain_loop_s_list_in_the_same_order(seed, k):
    judgments, lists = collection(seed)
    result = to_label(evaluation_of(judgments, lists), k=k)
    expected = reference(judgments, lists, k)
    assert listed(result) == expected
    assert result.k == k and result.run_names == tuple(lists)
    assert np.array_equal(result.query_index, [list(judgments).index(r[0]) for r in expected])


def test_the_collections_hold_what_the_rules_are_about():
    """The random collections above are not trivially empty: ties, repeats, shared ids."""
    rows = [row for seed in range(12) for row in reference(*collection(seed), 10)]
    assert len(rows) > 300
    assert {row[2] for row in rows} == {1, 2, 3}
    keys = [(r[2], r[3], r[4]) for r in rows]
    assert len(set(keys)) < len(keys) / 10  # most rows are ordered by query and doc id
    repeats = sum(len(ids) - len(set(ids)) for seed in range(12)
                  for by_query in collection(seed)[1].values() for ids in by_query.values())
    assert repeats > 100


def test_the_default_k_is_the_evaluation_s_and_a_subset_of_runs_keeps_the_order_given():
    judgments, lists = collection(3)
    evaluation = evaluation_of(judgments, lists, k=4)
    assert listed(to_label(evaluation)) == reference(judgments, lists, 4)
    chosen = {name: lists[name] for name in ("run2", "run0")}
    result = to_label(evaluation, runs=["run2", "run0"])
    assert listed(result) == reference(judgments, chosen, 4)
    assert f"run2{RANKED_BY_JOIN}run0" in set(result.ranked_by)


def test_a_repeated_id_counts_once_at_its_first_rank():
    judgments = {"q": {"r": 1, "a": 0}}
    lists = {"one": {"q": ["x", "r", "x", "a", "a", "y"]}, "two": {"q": ["y", "x", "y"]}}
    result = to_label(evaluation_of(judgments, lists), k=5)
    assert listed(result) == [
        ("q", "x", 2, 1, 1.5, "one, two", (1, 2)),
        ("q", "y", 1, 1, 1.0, "two", (0, 1)),  # run one has y at rank 6: below K
    ]
    # the judged id's repeat (rank 5 of run one) is not unjudged: the id is judged
    assert "a" not in set(result.doc_id)


def test_a_judgment_of_grade_zero_or_less_is_a_judgment():
    judgments = {"q": {"r": 2, "zero": 0, "minus": -1}}
    lists = {"run": {"q": ["zero", "minus", "new", "r"]}}
    result = to_label(evaluation_of(judgments, lists), k=4)
    assert result.doc_id.tolist() == ["new"]
    assert result.best_rank.tolist() == [3]


def test_a_judgment_for_another_query_does_not_judge_the_id_here():
    judgments = {"q1": {"d": 1}, "q2": {"e": 1}}
    lists = {"run": {"q1": ["e", "d"], "q2": ["d", "e"]}}
    result = to_label(evaluation_of(judgments, lists), k=2)
    assert list(zip(result.query_id, result.doc_id, strict=True)) == [("q1", "e"), ("q2", "d")]


def test_queries_not_scored_are_left_out_unless_named():
    judgments = {"scored": {"r": 1}, "empty": {"n": 0}}
    lists = {"run": {"scored": ["u1"], "empty": ["u2"], "stranger": ["u3"]}}
    evaluation = evaluation_of(judgments, lists)
    result = to_label(evaluation)
    assert result.doc_id.tolist() == ["u1"] and result.queries_checked == 1
    named = to_label(evaluation, queries=["empty", "scored"])
    assert list(zip(named.query_id, named.doc_id, strict=True)) == [("scored", "u1"),
                                                                     ("empty", "u2")]
    assert named.queries_checked == 2
    with pytest.raises(ValueError, match="1 query not in the query set: stranger"):
        to_label(evaluation, queries=["scored", "stranger"])
    with pytest.raises(ValueError, match="not one string"):
        to_label(evaluation, queries="scored")
    # scoring the empty queries 0 (trec_eval -c) makes them part of the default
    zero = evaluation_of(judgments, lists, conventions=Conventions(empty_queries="zero"))
    assert to_label(zero).doc_id.tolist() == ["u1", "u2"]


def test_a_filtered_evaluation_lists_the_queries_it_keeps():
    judgments, lists = collection(5)
    evaluation = evaluation_of(judgments, lists)
    mask = np.arange(len(judgments)) % 2 == 0
    kept = [q for q, keep in zip(judgments, mask, strict=True) if keep]
    scored = [q for q in kept if any(g >= 1 for g in judgments[q].values())]
    result = to_label(evaluation.restricted(mask, "every other query"), k=6)
    assert listed(result) == reference(judgments, lists, 6, queries=scored)
    assert result.queries_checked == len(scored) < len(judgments)


def test_k_larger_than_every_list_lists_them_whole():
    judgments = {"q": {"r": 1}}
    lists = {"run": {"q": ["a", "r", "b"]}}
    evaluation = evaluation_of(judgments, lists, k=2)
    assert evaluation.runs[0].aligned.width < 1000
    result = to_label(evaluation, k=1000)
    assert result.doc_id.tolist() == ["a", "b"] and result.best_rank.tolist() == [1, 3]
    assert to_label(evaluation).doc_id.tolist() == ["a"]  # the evaluation's K = 2


@pytest.mark.parametrize("k", [0, -1, True, 2.0, "3", 10**9])
def test_a_bad_k_is_refused(k):
    judgments, lists = collection(0)
    with pytest.raises(ValueError, match="k must be an integer from 1"):
        to_label(evaluation_of(judgments, lists), k=k)


def test_bad_run_choices_are_refused():
    judgments, lists = collection(0)
    evaluation = evaluation_of(judgments, lists)
    with pytest.raises(ValueError, match="no run named 'nope'"):
        to_label(evaluation, runs=["run0", "nope"])
    with pytest.raises(ValueError, match="distinct"):
        to_label(evaluation, runs=["run0", "run0"])
    with pytest.raises(ValueError, match="at least one run"):
        to_label(evaluation, runs=[])
    with pytest.raises(ValueError, match="not one string"):
        to_label(evaluation, runs="run0")


def test_ids_equal_to_their_query_are_not_listed_when_dropped():
    judgments = {"q": {"r": 1}}
    lists = {"run": {"q": ["q", "a", "r", "b"]}}
    dropped = to_label(evaluation_of(judgments, lists,
                                     conventions=Conventions(identical_ids="drop")), k=3)
    assert list(zip(dropped.doc_id, dropped.best_rank, strict=True)) == [("a", 1), ("b", 3)]
    kept = to_label(evaluation_of(judgments, lists), k=3)
    assert kept.doc_id.tolist() == ["q", "a"]


def test_nothing_to_label():
    judgments = {"q": {"a": 1, "b": 0}}
    result = to_label(evaluation_of(judgments, {"run": {"q": ["a", "b", "a"]}}))
    assert len(result) == 0 and result.ranks.shape == (0, 1)
    assert summary(result) == ("No unjudged id in the top 5 of 1 run across 1 query: every "
                               "figure at K reads judged ids only.")
    assert to_csv(result) == ",".join(COLUMNS) + "\r\n"
    assert to_qrels_template(result) == ""


def test_the_summary_counts_ids_runs_and_the_queries_holding_them():
    judgments, lists = collection(7)
    result = to_label(evaluation_of(judgments, lists), k=10)
    rows = reference(judgments, lists, 10)
    queries = len({row[0] for row in rows})
    assert 1 < queries < len(judgments)
    assert summary(result) == (f"{len(rows)} unjudged ids in the top 10 of 3 runs across "
                               f"{queries} queries; labelling them firms up every figure at K.")
    one = to_label(evaluation_of({"q": {"r": 1}}, {"run": {"q": ["u"]}}))
    assert summary(one) == ("1 unjudged id in the top 5 of 1 run across 1 query; labelling it "
                            "firms up every figure at K.")


# --- CSV --------------------------------------------------------------------------------------

HOSTILE = ["=cmd|' /C calc'!A0", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "a,b", 'say "hi"',
           "two\nlines", "plain", "'quoted'"]


def parsed(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_cells_round_trip_and_none_reads_as_a_formula():
    judgments = {"q": {"r": 1}, "=q": {"r": 1}}
    lists = {"=evil": {"q": HOSTILE, "=q": ["u"]}, "good": {"q": ["plain"]}}
    result = to_label(evaluation_of(judgments, lists), k=len(HOSTILE))
    rows = parsed(to_csv(result))
    assert rows[0] == list(COLUMNS)
    body = [dict(zip(COLUMNS, row, strict=True)) for row in rows[1:]]
    assert len(body) == len(result) == len(HOSTILE) + 1
    for row, query, doc, by in zip(body, result.query_id, result.doc_id, result.ranked_by,
                                   strict=True):
        assert row["query_id"] == csv_cell(query) and row["doc_id"] == csv_cell(doc)
        assert row["ranked_by"] == csv_cell(by)
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    docs = {row["doc_id"] for row in body}
    assert {"'=cmd|' /C calc'!A0", "'+1", "'-2", "'@SUM(A1)"} <= docs
    # a tab, a carriage return and a line break are written as their escapes (format.terminal)
    assert {"\\tx", "\\rx", "two\\nlines"} <= docs
    assert {"a,b", 'say "hi"', "plain", "'quoted'"} <= docs
    assert {row["query_id"] for row in body} == {"q", "'=q"}
    first = body[0]  # 'plain': both runs, rank 10 and 1
    assert (first["doc_id"], first["runs"], first["best_rank"], first["mean_rank"],
            first["ranked_by"]) == ("plain", "2", "1", "5.50", "'=evil, good")
    assert [row["priority"] for row in body] == [str(i) for i in range(1, len(body) + 1)]


def test_csv_cell_leaves_other_cells_alone():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("\r") == "\\r"
    assert csv_cell("a=1") == "a=1" and csv_cell("") == ""
    assert csv_cell(-3) == -3 and csv_cell(2.5) == 2.5


# --- the TREC qrels template ------------------------------------------------------------------

WRITABLE = ["=cmd|'/C_calc'!A0", "a,b", 'say"hi"', "it's", "+1", "-x", "@x", "é", "a#b",
            "x\u00a0y", "0", "{}", "[1]"]


def test_the_template_loads_once_the_grades_are_filled_in():
    judgments = {"=q": {"r": 1}, "q,2": {"r": 1}, "q'3": {"r": 1}}
    lists = {"one": {q: WRITABLE[i::2] for i, q in enumerate(judgments)},
             "two": {q: WRITABLE[::-1] for q in judgments}}
    result = to_label(evaluation_of(judgments, lists), k=len(WRITABLE))
    template = to_qrels_template(result)
    assert template.endswith("\n")
    lines = [line + "\n" for line in template.split("\n")[:-1]]  # not splitlines: U+2028
    fields = [line.split(" ") for line in lines]  # query, 0, doc, the empty grade's line end
    assert len(lines) == len(result) and {(f[1], f[3]) for f in fields} == {("0", "\n")}
    # grouped by query, in the query set's order, each query's ids in labelling order
    expected = [(q, d) for q in judgments
                for q2, d in zip(result.query_id, result.doc_id, strict=True) if q2 == q]
    assert [(f[0], f[2]) for f in fields] == expected
    assert expected != list(zip(result.query_id, result.doc_id, strict=True))
    grades = {pair: i % 4 - 1 for i, pair in enumerate(expected)}
    filled = "".join(f"{line[:-1]}{grades[pair]}\n"
                     for line, pair in zip(lines, expected, strict=True))
    qrels, _ = load_qrels(filled.encode(), file_name="filled.txt")
    names = qrels.doc_names.to_pylist()
    loaded = {(str(qrels.query_ids[q]), names[d]): int(g)
              for q, d, g in zip(qrels.query_code, qrels.doc_code, qrels.grade, strict=True)}
    assert loaded == grades
    assert set(WRITABLE) <= {doc for _, doc in loaded}


@pytest.mark.parametrize("doc", ["=cmd|' /C calc'!A0", "tab\there", "two\nlines", "cr\rx",
                                 "nul\x00x", "", "\u2028z", "esc\x1b[2J", "rlo\u202ex"])
def test_an_id_a_trec_line_cannot_hold_is_refused_by_name(doc):
    judgments = {"q": {"r": 1}}
    result = to_label(evaluation_of(judgments, {"run": {"q": ["fine", doc]}}))
    assert trec_unwritable(result) == [("q", doc)]
    with pytest.raises(ValueError, match=re.escape(f"{doc!r} of query 'q'")):
        to_qrels_template(result)
    assert [row[2] for row in parsed(to_csv(result))[1:]] == ["fine", csv_cell(doc)]


@pytest.mark.parametrize("query", ["#q", "\ufeffq"])
def test_a_query_id_a_trec_reader_would_skip_or_strip_is_refused(query):
    judgments = {query: {"r": 1}}
    result = to_label(evaluation_of(judgments, {"run": {query: ["u", "#u"]}}))
    assert trec_unwritable(result) == [(query, "u"), (query, "#u")]
    with pytest.raises(ValueError, match="2 unjudged ids cannot be written as TREC qrels"):
        to_qrels_template(result)
    # why: written anyway, the loader does not read the query back
    line = f"{query} 0 u 1\nother 0 u 1\n"
    qrels, _ = load_qrels(line.encode(), file_name="written.txt")
    assert query not in qrels.query_ids.tolist()


@pytest.mark.parametrize("seed", range(3))
def test_judged_only_scoring_still_lists_the_ids_it_left_out(seed):
    judgments, lists = collection(seed)
    as_read = to_label(evaluation_of(judgments, lists, k=5))
    condensed = to_label(evaluation_of(judgments, lists, k=5, conventions=Conventions(
        unjudged="drop")))
    assert len(as_read) > 0
    assert listed(condensed) == listed(as_read)


# --- grades given by hand ------------------------------------------------------------------


def test_merged_labels_add_rows_and_leave_the_loaded_qrels_alone(sample):
    from metrics.context.labelling import labels_qrels, merge_labels, merged_qrels

    qrels = sample.qrels
    rows = len(qrels.grade)
    merged = merge_labels(qrels, {("q03", "d90"): 2, ("q03", "d91"): 0})
    assert len(qrels.grade) == rows and len(merged.grade) == rows + 2
    assert merged.doc.tolist()[-2:] == ["d90", "d91"] and merged.grade.tolist()[-2:] == [2, 0]
    assert labels_qrels({("q03", "d90"): 2}) == "q03 0 d90 2\n"
    text = merged_qrels(qrels, {("q03", "d90"): 2})
    assert text.endswith("q03 0 d90 2\n") and len(text.splitlines()) == rows + 1


@pytest.mark.parametrize(("grades", "problem"), [
    ({("q99", "d1"): 1}, "query 'q99' is not in the qrels"),
    ({("q03", "d90"): 1.5}, "must be an integer"),
    ({("q03", "d90"): True}, "must be an integer"),
    ({("q01", "d01"): 0}, "is judged for query 'q01' already"),
])
def test_a_grade_that_cannot_be_merged_is_refused(sample, grades, problem):
    from metrics.context.labelling import merge_labels

    with pytest.raises(ValueError, match=problem):
        merge_labels(sample.qrels, grades)


def test_rescore_shows_what_the_labels_change_and_equals_scoring_the_merged_qrels(sample):
    from metrics.context.labelling import merge_labels, rescore
    from metrics.core.evaluate import evaluate

    grades = {("q03", "d90"): 2, ("q03", "d91"): 1}
    found = rescore(sample, grades)
    direct = evaluate(merge_labels(sample.qrels, grades), [r.run for r in sample.runs],
                      sample.k, sample.conventions)
    for mine, theirs in zip(found.after.runs, direct.runs, strict=True):
        assert mine.summary["nDCG"].mean == theirs.summary["nDCG"].mean
    assert found.before is sample and found.changed_queries == ["q03"]
    rows = {(r["run"], r["metric"]): r for r in found.rows()}
    assert rows["baseline", "Hit"]["before"] == pytest.approx(7 / 9)
    assert rows["baseline", "Hit"]["after"] == pytest.approx(8 / 9)  # q03 now has a hit at 2
    assert found.sentence.startswith("With your 2 labels, 1 of 9 scored queries changes")


def test_rescore_counts_the_means_that_change_as_the_table_writes_them(sample):
    """One label on one query of 3,000 moves every mean by less than half a unit of the
    third decimal: the table writes every change +0.000, so the sentence must not read as if
    the means moved ('1 of 3,000 queries changes' beside a column of +0.000)."""
    from metrics.context.labelling import rescore
    from metrics.vocabulary import format as fmt

    ids = [f"q{i}" for i in range(3000)]
    qrels = make_qrels({q: {"r": 1} for q in ids})
    evaluation = evaluate(qrels, [make_run({q: ["r", "x", "y", "u", "v"] for q in ids})], 5,
                          Conventions())
    found = rescore(evaluation, {("q7", "v"): 1})
    assert found.changed_queries == ["q7"]
    written = [fmt.signed(row["difference"]) for row in found.rows()]
    assert set(written) == {"+0.000"} and found.means_changed == 0
    assert found.sentence.startswith("With your 1 label, 1 of 3,000 scored queries changes")
    assert f"no mean below changes at {fmt.DECIMALS} decimals" in found.sentence
    assert "+0.000" in found.sentence
    # the sample: the count of changed means is the count of changes written as non-zero
    moved = rescore(sample, {("q03", "d90"): 2, ("q03", "d91"): 1})
    shown = sum(fmt.signed(row["difference"]) != "+0.000" for row in moved.rows())
    assert 0 < moved.means_changed == shown
    assert f"{shown} of the {len(moved.rows())} means below change" in moved.sentence
