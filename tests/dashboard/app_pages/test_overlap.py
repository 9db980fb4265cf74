"""The Overlap page and the drill-down's overlap, each figure the engine's; p in the URL."""

from __future__ import annotations

from metrics import format as fmt
from metrics import overlap
from tests.dashboard.conftest import open_app, texts


def test_the_pairs_table_holds_the_engine_s_means_and_intervals(sample):
    for params, p in (({}, 0.9), ({"rbo": "0.5"}, 0.5)):
        app = open_app("overlap", **params)
        found = overlap(sample, p=p)
        table = next(d.value for d in app.dataframe if "Compared with" in d.value.columns)
        rows = found.rows()  # Jaccard, each pair once
        assert list(table["Run"]) == [r["a"] for r in rows]
        assert list(table["Mean"]) == [r["jaccard"] for r in rows]
        assert list(table["Interval"]) == [
            f"[{fmt.figure(r['jaccard_low'])}, {fmt.figure(r['jaccard_high'])}]" for r in rows]
        assert f"At p = {p:g} the first 5 ranks carry" in texts(app)


def test_the_relevant_ids_only_one_run_finds_read_both_ways(sample):
    app = open_app("overlap")
    app.radio(key="overlap.figure").set_value("unique_relevant").run()
    table = next(d.value for d in app.dataframe if "Compared with" in d.value.columns)
    pair = overlap(sample).pair("reranked", "bm25")
    row = table[(table["Run"] == "bm25") & (table["Compared with"] == "reranked")].iloc[0]
    assert row["Mean"] == pair.intervals["unique_relevant_b"].mean
    assert len(table) == 6  # 3 runs: every ordered pair


def test_the_drill_down_shows_each_pair_on_the_chosen_query(sample):
    app = open_app("drilldown", query="q05")
    table = next(d.value for d in app.dataframe if "Jaccard" in d.value.columns)
    expected = overlap(sample).for_query("q05")
    assert list(table["Jaccard"]) == [r["jaccard"] for r in expected]
    assert list(table["Only in B"]) == [r["unique_relevant_b"] for r in expected]
    assert "How alike the runs' top 5 are on q05" in texts(app)


def test_one_run_shown_says_overlap_needs_two(sample):
    app = open_app("overlap", runs="baseline")
    assert "Overlap needs a second run" in texts(app)


def test_many_runs_compare_the_first_ones_pair_by_pair_and_say_so():
    """The pairs grow with the square of the runs: the page reads the first
    MAX_RUNS_COMPARED runs shown and says how many it left out."""
    from metrics.vocabulary.overlap import MAX_RUNS_COMPARED
    from tests.dashboard.conftest import upload

    runs = MAX_RUNS_COMPARED + 4
    qrels = "".join(f"q{q} 0 d{q} 1\n" for q in range(12)).encode()
    files = [(f"r{r}.run", "".join(f"q{q} Q0 d{(q + r) % 12} 1 1.0 r\n"
                                   for q in range(12)).encode()) for r in range(runs)]
    app = upload(open_app(), files, qrels)
    app.switch_page("app_pages/overlap.py").run()
    assert not app.exception
    said = texts(app)
    assert f"first {MAX_RUNS_COMPARED} of the {runs} runs shown (120 pairs)" in said
    table = next(d.value for d in app.dataframe if "Compared with" in d.value.columns)
    assert len(table) == MAX_RUNS_COMPARED * (MAX_RUNS_COMPARED - 1) // 2
