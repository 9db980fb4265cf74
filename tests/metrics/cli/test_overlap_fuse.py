"""The overlap and fuse commands (metrics/cli/combine.py)."""

from __future__ import annotations

import json

from metrics import load_sample, overlap
from metrics.cli import main
from metrics.vocabulary.gates import EXIT_OK, EXIT_USAGE


def test_overlap_json_is_the_engine_s(capsys):
    assert main(["overlap", "--format", "json", "--p", "0.8"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    expected = overlap(load_sample(5), p=0.8).as_dict()
    assert data == expected
    assert set(data["pairs"][0]) >= {"a", "b", "jaccard", "rbo", "unique_relevant_a",
                                     "unique_relevant_b", "hybrid_ceiling", "rbo_low",
                                     "hybrid_ceiling_high"}


def test_overlap_table_and_a_bad_persistence(capsys):
    assert main(["overlap"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "RBO@5" in out and "At p = 0.9 the first 5 ranks carry 67% of RBO's weight" in out
    assert main(["overlap", "--p", "1"]) == EXIT_USAGE
    assert "must lie strictly between 0 and 1" in capsys.readouterr().err


def test_fuse_writes_a_trec_run_that_reads_back_in_its_order(tmp_path, capsys):
    from metrics import fuse, load_run
    from metrics.core.sample import SAMPLE_DIR

    out = tmp_path / "fused.run"
    runs = [str(SAMPLE_DIR / "bm25.run"), str(SAMPLE_DIR / "reranked.run")]
    assert main(["fuse", "--run", runs[0], "--run", runs[1], "--method", "combmnz",
                 "--norm", "zscore", "--out", str(out)]) == EXIT_OK
    err = capsys.readouterr().err
    assert "combmnz-zscore(bm25,reranked) fuses bm25 and reranked by CombMNZ" in err
    back, _ = load_run(out)
    expected, _ = fuse([load_run(r)[0] for r in runs], method="combmnz", norm="zscore")
    assert back.doc.tolist() == expected.doc.tolist()
    assert back.score.tolist() == expected.score.tolist()  # repr: every bit kept


def test_fuse_tunes_a_weight_by_cross_fitting(tmp_path, capsys):
    from metrics.core.sample import SAMPLE_DIR

    out = tmp_path / "fused.run"
    argv = ["fuse", "--qrels", str(SAMPLE_DIR / "qrels.txt"), "--run",
            str(SAMPLE_DIR / "bm25.run"), "--run", str(SAMPLE_DIR / "reranked.run"),
            "--tune-weight", "--k", "5", "--out", str(out), "--format", "json"]
    assert main(argv) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    tuned = data["cross_fit"]
    assert data["recipe"]["weights"] == [tuned["in_sample_weight"],
                                         round(1 - tuned["in_sample_weight"], 12)]
    assert tuned["low"] <= tuned["mean"] <= tuned["high"] and len(tuned["chosen"]) == 2
    assert tuned["in_sample_mean"] >= tuned["mean"]  # tuned in sample reads optimistically


def test_fuse_refuses_what_it_cannot_do(capsys):
    from metrics.core.sample import SAMPLE_DIR

    one = str(SAMPLE_DIR / "bm25.run")
    assert main(["fuse", "--run", one]) == EXIT_USAGE
    assert main(["fuse", "--run", one, "--run", one, "--tune-weight"]) == EXIT_USAGE
    assert "--tune-weight needs --qrels" in capsys.readouterr().err


def _fuse_error(capsys, *flags) -> tuple[int, str]:
    from metrics.core.sample import SAMPLE_DIR

    status = main(["fuse", "--run", str(SAMPLE_DIR / "bm25.run"), "--run",
                   str(SAMPLE_DIR / "reranked.run"), *flags])
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return status, err


def test_fuse_refuses_a_k_or_weights_past_their_bounds_in_one_line(capsys):
    """1e19 and 1e308 once ended in an OverflowError; weights of 1e308 wrote inf scores;
    "-inf,1" got argparse's "expected one argument"."""
    for k in ("1e19", "1e308", "-1", "nan", "inf"):
        status, err = _fuse_error(capsys, "--rrf-k", k)
        assert status == EXIT_USAGE
        assert err == (f"error: argument --rrf-k: k must be a finite number >= 0 and at most "
                       f"1,000,000, got '{k}' (see --help)")
    for weights in ("1e308,1e308", "-inf,1", "-1,2", "0,0", "nan,1"):
        status, err = _fuse_error(capsys, "--weights", weights)
        assert status == EXIT_USAGE
        assert err == ("error: argument --weights: weights must be finite, >= 0, at most "
                       f"1,000,000 and not all 0, got '{weights}' (see --help)")
    assert _fuse_error(capsys, "--rrf-k", "1000000")[0] == EXIT_OK
    capsys.readouterr()
