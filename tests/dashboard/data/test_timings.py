"""Timings through the dashboard's data layer, without a browser: the side file uploaded
beside the runs, a CSV run's own latency column, display names, the loader's error named,
and the trade-off chart built for the view."""

from __future__ import annotations

import numpy as np

from dashboard.data import cache, costs
from dashboard.data import timings as timing_data
from dashboard.data.cache import FileBytes as Upload
from metrics import SAMPLE_DIR, Conventions, load_run

VIEWER = "a timings test session"


def sample_file(name: str) -> Upload:
    return Upload(name, (SAMPLE_DIR / name).read_bytes())


def side_file(rows: str) -> Upload:
    return Upload("timings.csv", ("query_id,run,latency_ms,cost\n" + rows).encode())


def queries() -> list[str]:
    return sorted(load_run(SAMPLE_DIR / "bm25.run")[0].query_ids)


def loaded(timings: Upload | None):
    return cache.read_uploads(sample_file("qrels.txt"),
                              [sample_file("baseline.run"), sample_file("bm25.run")],
                              Conventions(), viewer=VIEWER, timings_file=timings)


def test_the_side_file_gives_each_shown_run_its_figures_under_its_display_name():
    rng = np.random.default_rng(1)
    rows = "".join(f"{q},{run},{rng.lognormal(np.log(ms), 0.2):.2f},0.001\n"
                   for q in queries() for run, ms in (("baseline", 10), ("bm25", 30)))
    inputs = loaded(side_file(rows))
    view = cache.build_view(inputs, ["baseline", "bm25"], {"bm25": "BM25 big"}, 5,
                            Conventions())
    read = timing_data.timed(view, inputs)
    assert read.error is None and read.summary.startswith("timings.csv: timings:")
    assert [c.run for c in read.found.runs if c.column == "latency_ms"] == [
        "baseline", "BM25 big"]
    pair = read.found.pair("BM25 big")
    assert pair.baseline == "baseline" and pair.ratio("p95").value > 2
    spec = timing_data.chart(view, read, "nDCG", "nDCG@5").to_dict()
    data = next(iter(spec["datasets"].values()))
    assert [row["run"] for row in data] == ["baseline", "BM25 big"]


def test_no_timings_draw_nothing_and_a_bad_file_is_named():
    inputs = loaded(None)
    view = cache.build_view(inputs, ["baseline", "bm25"], {}, 5, Conventions())
    assert timing_data.timed(view, inputs) is None
    bad = loaded(side_file("q1,bm25,fast,\n"))
    view = cache.build_view(bad, ["baseline", "bm25"], {}, 5, Conventions())
    assert timing_data.timed(view, bad).error == (
        "timings.csv, line 2: latency_ms must be a number, got 'fast'")
    unknown = loaded(side_file("q1,bm26,5,\n"))
    view = cache.build_view(unknown, ["baseline", "bm25"], {}, 5, Conventions())
    assert "timings for run 'bm26', which is not loaded" in timing_data.timed(view, unknown).error


def test_a_csv_run_s_own_latency_column_is_read():
    ids = queries()
    csv_run = Upload("fast.csv", ("query_id,doc_id,rank,latency_ms\n" + "".join(
        f"{q},d{i},1,{5 + i % 7}\n" for i, q in enumerate(ids))).encode())
    inputs = cache.read_uploads(sample_file("qrels.txt"), [sample_file("bm25.run"), csv_run],
                                Conventions(), viewer=VIEWER)
    view = cache.build_view(inputs, ["bm25", "fast"], {}, 5, Conventions())
    read = timing_data.timed(view, inputs)
    assert [c.run for c in read.found.runs] == ["fast"]
    assert read.found.pairs == ()  # the baseline has no latency


def test_on_the_tokens_axis_with_a_corpus_the_k_sweep_s_tokens_are_drawn_too():
    side = Upload("timings.csv", ("query_id,run,latency_ms,cost,tokens\n" + "".join(
        f"{q},{run},5,,{800 + 100 * i}\n" for q in queries()
        for i, run in enumerate(("baseline", "bm25")))).encode())
    with_corpus = cache.read_uploads(sample_file("qrels.txt"),
                                     [sample_file("baseline.run"), sample_file("bm25.run")],
                                     Conventions(), viewer=VIEWER, timings_file=side,
                                     corpus_file=sample_file("corpus.jsonl"))
    view = cache.build_view(with_corpus, ["baseline", "bm25"], {}, 5, Conventions())
    read = timing_data.timed(view, with_corpus)
    spec = timing_data.chart(view, read, "nDCG", "nDCG@5", statistic="mean",
                             column="tokens").to_dict()
    swept = costs.swept(view)
    assert swept is not None and swept.method in " ".join(spec["title"]["subtitle"])
    assert any("k" in rows[0] for rows in spec["datasets"].values())
    # without a corpus, no sweep
    inputs = loaded(side)
    plain = cache.build_view(inputs, ["baseline", "bm25"], {}, 5, Conventions())
    assert costs.swept(plain) is None
