"""What the command line says besides the figures: ceilings and one-line errors,
the loaders' notes, warnings on ids that do not meet, and no scored query."""

from __future__ import annotations

import json

import pytest

from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR, load_sample
from metrics.explain.mismatch import id_mismatches, run_mismatches
from metrics.inputs.arguments import run_guarded
from tests.metrics.builders import make_qrels, make_run

QRELS = str(SAMPLE_DIR / "qrels.txt")


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- ceilings, errors


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--k", "1000000000"], "argument --k: expected a positive integer up to 1,000,000"),
        (["--k", "1000001"], "--k"),
        (["--sweep", "1:1000000000"], "argument --sweep"),
        (["--sweep", "1:10001"], "argument --sweep: sweep 1:10001 covers 10,001 cutoffs"),
        (["--seed", "-5"], "argument --seed: expected an integer from 0 to"),
        (["--seed", str(2**64)], "argument --seed"),
        (["--relevance-level", str(2**64)], "argument --relevance-level"),
        (["--confidence-level", "1"], "argument --confidence-level"),
        (["--confidence-level", "0"], "argument --confidence-level"),
        (["--confidence-level", "nan"], "argument --confidence-level"),
        (["--metric", "P(rel=4611686018427387904)@5"], "argument --metric: metric "
         "'P(rel=4611686018427387904)@5': rel must be an integer from 1 to 1,000,000"),
        # the cost's numbers, refused by the flag's reader before any file is read (they
        # were refused after, naming tokens_per_chunk but not the flag)
        (["--tokens-per-chunk", "nan"], "argument --tokens-per-chunk: tokens_per_chunk must be "
         "a finite number > 0, got nan"),
        (["--tokens-per-chunk", "-1"], "argument --tokens-per-chunk: tokens_per_chunk must be "
         "a finite number > 0, got -1.0"),
        (["--tokens-per-chunk", "inf"], "argument --tokens-per-chunk"),
        (["--tokens-per-chunk", "1e9"], "argument --tokens-per-chunk: tokens_per_chunk must be "
         "at most 10,000,000"),
        (["--tokens-per-chunk", "many"], "argument --tokens-per-chunk: expected a number, got "
         "'many'"),
        (["--price-per-mtok", "inf"], "argument --price-per-mtok: price_per_mtok must be a "
         "finite number >= 0, got inf"),
    ],
)
def test_out_of_bounds_flags_are_one_line_usage_errors(capsys, argv, fragment):
    code, out, err = run_cli(capsys, "--format", "json", *argv)
    assert code == 2 and out == ""
    assert fragment in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "argv,fragment",
    [
        # 10^12 sign flips held compare past 60 s
        (["compare", "--permutations", str(10**12)],
         "argument --permutations: expected an integer from 1 to 1,000,000, got "
         "'1000000000000'"),
        (["leaderboard", "--test", "tukey", "--permutations", str(10**12)],
         "argument --permutations: expected an integer from 1 to 1,000,000"),
    ],
)
def test_a_command_flag_out_of_bounds_is_a_one_line_usage_error(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert fragment in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_largest_seed_reaches_the_json(capsys):
    code, out, _ = run_cli(capsys, "--format", "json", "--seed", str(2**63 - 1))
    assert code == 0 and json.loads(out)["conventions"]["seed"] == 2**63 - 1


def test_k_of_a_million_is_scored_in_closed_form(capsys):
    code, out, _ = run_cli(capsys, "--format", "json", "--k", "1000000",
                           "--sweep", "999001:1000000")
    data = json.loads(out)
    assert code == 0 and data["k"] == 1_000_000
    baseline = data["runs"][0]
    engine = load_sample(5).run("baseline")
    row = next(r for r in baseline["queries"] if r["query_id"] == "q01")
    hits = int(engine.scores.hits[0, -1])
    assert row["P@1000000"] == hits / 1_000_000
    assert row["R@1000000"] == engine.scores.values["R"][0, -1]
    assert len(baseline["sweep"]) == 1_000 and baseline["sweep"][-1]["k"] == 1_000_000


@pytest.mark.parametrize("command,grade", [([], 1024), (["compare"], 2**62)])
def test_a_grade_no_gain_can_hold_is_refused_with_its_line(tmp_path, capsys, command, grade):
    """A grade of 1,024 made nDCG NaN under --gain exponential with exit 0 and no word; 2^62
    stopped compare with "differences must be finite", naming no file."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 d1 1\nq1 0 d2 {grade}\nq2 0 d1 1\n")
    runs = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.run").write_text("q1 Q0 d2 1 2 x\nq1 Q0 d1 2 1 x\nq2 Q0 d1 1 1 x\n")
        runs += ["--run", str(tmp_path / f"{name}.run")]
    code, out, err = run_cli(capsys, *command, "--qrels", str(qrels), *runs,
                             "--gain", "exponential")
    assert code == 1 and out == ""
    assert err.strip().splitlines()[-1] == (
        f"error: qrels.txt, line 2: grade {grade} is out of range: grades are integers from "
        "-960 to 960 (the exponential gain, 2^grade - 1, summed over a query's ids must stay a "
        "finite number)")


def test_running_out_of_memory_is_one_line(capsys):
    def score_command(argv):
        raise MemoryError("Unable to allocate 74.5 GiB")

    code = run_guarded(score_command, [])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("error: out of memory while running score")
    assert len(err.strip().splitlines()) == 1


def test_a_memory_error_inside_a_command_is_caught(capsys, monkeypatch):
    import metrics.inputs.reading as commands

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(commands, "load_sample", exhausted)
    code, out, err = run_cli(capsys, "--format", "json")
    assert code == 1 and out == ""
    assert "out of memory" in err and "Traceback" not in err


# --------------------------------------------------------------------------- notes and warnings


def test_the_sample_prints_no_warning(capsys):
    code, _, err = run_cli(capsys)
    assert code == 0 and "warning" not in err


def test_a_renamed_run_says_so(capsys):
    run = str(SAMPLE_DIR / "bm25.run")
    code, out, err = run_cli(capsys, "--qrels", QRELS, "--run", run, "--run", run,
                             "--format", "json")
    assert code == 0
    assert [r["name"] for r in json.loads(out)["runs"]] == ["bm25", "bm25 (2)"]
    assert "bm25.run: named 'bm25 (2)': an earlier run is already named 'bm25'" in err


def test_duplicate_relevant_ids_in_jsonl_are_noted(tmp_path, capsys):
    path = tmp_path / "pasted.jsonl"
    path.write_text('{"query_id": "a", "retrieved": ["x", "y"], "relevant": ["y", "y"]}\n')
    code, _, err = run_cli(capsys, "--run", str(path), "--k", "2")
    assert code == 0
    assert "pasted.jsonl: line 1: 'y' listed more than once in 'relevant'; counted once" in err


def test_a_run_with_prefixed_query_ids_is_warned_about(tmp_path, capsys):
    (tmp_path / "prefixed.run").write_text(
        "".join(f"query_{q} Q0 d{q} 1 1.0 t\n" for q in range(1, 6)))
    (tmp_path / "labels.txt").write_text("".join(f"{q} 0 d{q} 1\n" for q in range(1, 6)))
    code, out, err = run_cli(capsys, "--qrels", str(tmp_path / "labels.txt"), "--run",
                             str(tmp_path / "prefixed.run"), "--format", "json")
    assert code == 0 and json.loads(out)
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "run 'prefixed' shares no query id with the qrels" in warnings[0]
    assert "'query_1'" in warnings[0] and "'1'" in warnings[0]
    assert "start with 'query_' where the qrels' start with no prefix" in warnings[0]


# --------------------------------------------------------------------------- the engine's findings

LABELS = {f"{q}": {f"d{q}": 1} for q in range(1, 9)}


@pytest.mark.parametrize(
    "run_query,cause",
    [
        (lambda q: f"query_{q}", "start with 'query_' where the qrels' start with no prefix"),
        (lambda q: f"{q:04d}", "differ in zero padding"),
        (lambda q: f" {q} ", "the run's ids carry surrounding whitespace"),
        (lambda q: f"Q{q:03d}", "start with 'Q' where the qrels' start with no prefix; the ids "
                                "differ in zero padding"),
    ],
)
def test_query_id_mismatches_name_their_likely_cause(run_query, cause):
    run = make_run({run_query(q): [f"d{q}"] for q in range(1, 9)}, name="r")
    (finding,) = run_mismatches(make_qrels(LABELS), run)
    assert finding.kind == "query" and finding.shared == 0 and finding.total == 8
    assert finding.run_examples == tuple(run_query(q) for q in range(1, 4))
    assert finding.qrels_examples == ("1", "2", "3")
    assert cause in finding.sentence and finding.causes


def test_case_differences_are_named():
    labels = {f"Q{q}": {f"d{q}": 1} for q in range(1, 9)}
    run = make_run({f"q{q}": [f"d{q}"] for q in range(1, 9)}, name="r")
    (finding,) = run_mismatches(make_qrels(labels), run)
    assert finding.causes == ("the ids differ in case",)
    assert "the run's 'q1' would be the qrels' 'Q1'" in finding.sentence


def test_fewer_than_half_the_queries_is_a_finding_and_half_is_not():
    few = make_run({f"{q}": [f"d{q}"] for q in range(1, 4)}, name="few")
    half = make_run({f"{q}": [f"d{q}"] for q in range(1, 5)}, name="half")
    (finding,) = run_mismatches(make_qrels(LABELS), few)
    assert finding.shared == 3
    assert "shares only 3 of the qrels' 8 query ids (the other 5 score 0)" in finding.sentence
    assert not finding.causes
    assert run_mismatches(make_qrels(LABELS), half) == ()


def test_doc_ids_none_of_which_is_labelled():
    run = make_run({f"{q}": [f"DOC-{q:05d}", f"DOC-{q + 100:05d}"] for q in range(1, 9)},
                   name="r")
    (finding,) = run_mismatches(make_qrels(LABELS), run)
    assert finding.kind == "doc" and finding.total == 16
    assert finding.run_examples == ("DOC-00001", "DOC-00101", "DOC-00002")
    assert "none of the 16 doc ids of run 'r' carries a label" in finding.sentence
    assert "start with 'DOC-' where the qrels' start with 'd'" in finding.sentence
    assert "zero padding" in finding.sentence


def test_an_evaluation_yields_the_same_findings():
    qrels = make_qrels(LABELS)
    runs = [make_run({f"query_{q}": ["x"] for q in range(1, 9)}, name="bad"),
            make_run({f"{q}": [f"d{q}"] for q in range(1, 9)}, name="good")]
    from metrics.core.evaluate import evaluate

    findings = id_mismatches(evaluate(qrels, runs, 3))
    assert [(f.run, f.kind) for f in findings] == [("bad", "query"), ("bad", "doc")]
    assert findings == tuple(f for run in runs for f in run_mismatches(qrels, run))


# --------------------------------------------------------------------------- no scored query


def test_no_scored_query_prints_no_figures(capsys):
    code, out, _ = run_cli(capsys, "--relevance-level", "5")
    assert code == 0
    assert "no scored query" in out and "0.000 [0.000, 0.000]" not in out
    assert "k suggestion:" not in out and "FLAGGED" not in out
    code, out, _ = run_cli(capsys, "--relevance-level", "5", "--format", "json")
    assert json.loads(out)["query_set"]["scored"] == 0


def test_max_input_mb_bounds_what_a_gzip_may_expand_to(capsys, tmp_path):
    import gzip

    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"q 0 d 1\n" * (3 << 20)))  # 24 MB expanded
    code, _, err = run_cli(capsys, "--qrels", str(bomb), "--run",
                           str(SAMPLE_DIR / "bm25.run"), "--max-input-mb", "10")
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "error: bomb.gz: expands beyond the 10 MB limit (--max-input-mb)")
    code, _, err = run_cli(capsys, "--max-input-mb", "0")
    assert code == 2 and "--max-input-mb" in err


# --------------------------------------------------------------------------- runs that say little


def test_a_run_without_qrels_is_told_to_bring_the_labels(capsys):
    code, out, err = run_cli(capsys, "--run", str(SAMPLE_DIR / "bm25.run"))
    assert code == 1 and out == ""
    assert err.strip() == (
        "error: bm25.run: no qrels given, and a TREC run carries no labels to score it "
        "against: give the labels with --qrels FILE (only a JSONL run whose records carry "
        "both 'retrieved' and 'relevant' stands without them)")
    assert "give it as a run" not in err


def test_a_run_that_meets_no_query_is_diagnosed_first_and_its_lines_counted(capsys, tmp_path):
    lines = (SAMPLE_DIR / "bm25.run").read_text().splitlines()
    prefixed = tmp_path / "prefixed.run"
    prefixed.write_text("".join(f"query_{line}\n" for line in lines))
    code, out, err = run_cli(capsys, "--qrels", QRELS, "--run", str(prefixed))
    assert code == 0
    said = err.strip().splitlines()
    assert said[0].startswith("warning: run 'prefixed' shares no query id with the qrels")
    ignored = [line for line in said if "query is not in the qrels: ignored" in line]
    assert ignored[0] == (f"  prefixed.run: {len(lines)} lines dropped: query is not in the "
                          "qrels: ignored")
    assert len(ignored) == 1 + 5  # the count, then the first five lines
    assert said[-2] == (f"  prefixed.run: {len(lines) - 5} more dropped lines not shown here "
                        "(--load-report FILE writes every one)")
    assert "k suggestion: none" in out and "rank none" not in out
    assert "This run has no list for any of the 9 scored queries" in out
    whole = tmp_path / "load.txt"
    code, _, err = run_cli(capsys, "--qrels", QRELS, "--run", str(prefixed), "--load-report",
                           str(whole))
    assert f"every one is in {whole}" in err
    written = whole.read_text().splitlines()
    assert sum("query is not in the qrels: ignored" in line for line in written) == len(lines)


def test_a_run_cut_before_k_is_said_on_standard_error_and_in_its_reading(capsys, tmp_path):
    cut = tmp_path / "cut.run"
    cut.write_text("".join(line + "\n" for line in (SAMPLE_DIR / "bm25.run").read_text()
                           .splitlines() if int(line.split()[3]) <= 3))
    code, out, err = run_cli(capsys, "--qrels", QRELS, "--run", str(cut), "--k", "5")
    assert code == 0
    assert err.splitlines()[0].startswith("warning: cut's lists stop at rank 3 (its longest "
                                          "list), before K = 5: Precision@5 divides by 5")
    assert "reading: Its lists stop at rank 3, before K = 5" in out
    assert "well chosen" not in out and "FLAGGED short lists" in out
