"""The command line's text inputs: the leakage command and its exit code, compare --by, and
the context cost of K from --tokens-per-chunk, --price-per-mtok or --corpus."""

from __future__ import annotations

import json

import pytest

from metrics import compare_evaluation, facets, load_queries, load_sample, read_corpus
from metrics.cli import main
from metrics.context.cost import ChunkTokens, costs
from metrics.core.sample import SAMPLE_DIR
from metrics.explain.slices import compare_slices


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_sample_s_leak_fails_the_gate_with_exit_4(capsys):
    code, out, err = run(capsys, "leakage", "--format", "json")
    assert code == 4, err
    data = json.loads(out)
    assert {key: data[key] for key in ("scope", "threshold")} == {"scope": "retrieved",
                                                                 "threshold": 0.6}
    assert data["leaks"] == [{"query_id": "q05", "doc_id": "d41", "kind": "verbatim",
                              "overlap": 1.0}]
    assert "more than --max-leaks 0" in err
    assert run(capsys, "leakage", "--max-leaks", "1")[0] == 0


def test_the_whole_corpus_scope_and_a_clean_corpus(capsys, tmp_path):
    code, out, _ = run(capsys, "leakage", "--scope", "corpus", "--format", "json")
    assert code == 4 and json.loads(out)["scope"] == "corpus"
    clean = tmp_path / "corpus.jsonl"
    clean.write_text('{"_id": "d41", "text": "Card payments are taken once a month."}\n')
    code, out, _ = run(capsys, "leakage", "--corpus", str(clean))
    assert code == 0 and "None of 1 query appears" in out  # only q05 has a chunk there


def test_leakage_on_user_files_needs_both_texts(capsys):
    code, _, err = run(capsys, "leakage", "--qrels", str(SAMPLE_DIR / "qrels.txt"),
                       "--run", str(SAMPLE_DIR / "bm25.run"))
    assert code == 2 and "needs --queries and --corpus" in err
    assert run(capsys, "leakage", "--threshold", "0")[0] == 2


def test_compare_by_adds_each_slice_s_rows_corrected_as_one_family(capsys):
    code, out, _ = run(capsys, "compare", "--by", "intent", "--metric", "nDCG@5",
                       "--permutations", "500", "--format", "json")
    assert code == 0
    data = json.loads(out)
    whole = [row for row in data["comparisons"] if "slice" not in row]
    sliced = [row for row in data["comparisons"] if "slice" in row]
    evaluation = load_sample(5)
    queries = load_queries(SAMPLE_DIR / "queries.csv")
    intent = facets(queries, evaluation.scored_ids)["intent"]
    options = dict(metrics=["nDCG"], n_permutations=500, rng=evaluation.conventions.seed)
    assert len(whole) == len(compare_evaluation(evaluation, **options).tests) == 2
    expected = compare_slices(evaluation, intent, baseline="baseline", **options)
    assert [(row["slice"], row["candidate"], row["p_adjusted"]) for row in sliced] == [
        (label, t.candidate, t.p_adjusted) for label, c in expected for t in c.tests]
    assert {row["facet"] for row in sliced} == {"intent"} and data["by"] == "intent"
    code, out, _ = run(capsys, "compare", "--by", "intent", "--permutations", "200")
    assert code == 0 and "By intent: baseline -> each candidate over each slice alone" in out


def test_compare_by_needs_a_facet_the_queries_have(capsys):
    code, _, err = run(capsys, "compare", "--by", "colour")
    assert code == 2 and "has no such facet" in err


@pytest.mark.parametrize("price", [None, 0.5])
def test_the_cost_of_k_from_a_given_token_count(capsys, price):
    argv = ["--tokens-per-chunk", "390", "--format", "json"]
    argv += ["--price-per-mtok", str(price)] if price is not None else []
    code, out, _ = run(capsys, *argv)
    assert code == 0
    expected = costs(load_sample(5), ChunkTokens(390.0, price_per_mtok=price))
    assert [r["cost"] for r in json.loads(out)["runs"]] == [c.as_dict() for c in expected]


def test_the_corpus_estimates_the_tokens_and_says_so(capsys):
    code, out, err = run(capsys, "--corpus", str(SAMPLE_DIR / "corpus.jsonl"))
    assert code == 0
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl", [f"d{i:02d}" for i in range(100)])
    assert f"Context cost ({ChunkTokens.from_corpus(corpus).sentence})" in out
    assert "estimated from the corpus" in out
    assert "corpus.jsonl: 46 lines read" in err
