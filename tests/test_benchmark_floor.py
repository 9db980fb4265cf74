"""The browser benchmark's floor draws the K the benchmark types on the pages whose drawing
grows with K (benchmarks/browser.py's floor_k, benchmarks/floor_record.py's --k)."""

from __future__ import annotations

import pytest

from tests.benchmark_scripts import benchmark_script


@pytest.fixture
def collection(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i:03d} 0 d1 1\n" for i in range(200)), encoding="utf-8")
    runs = [tmp_path / f"run{i}.run" for i in (1, 2, 3)]
    return qrels, runs


def test_floor_k_follows_the_plan_page_by_page(collection):
    """Each page: the K it arrives with, then the K its actions type, in order, one each;
    the slow actions (timed on the dashboard alone) use up new K the floor never shows."""
    with benchmark_script("browser") as browser:
        config = browser.Config(2000, 3, 100, 3, 0, pages=("Overview", "Drill-down"),
                                actions=("open", "K (seen)", "K (new)", "K (far)",
                                         "best-run marks", "query (Next)"))
        shown = browser.floor_k(config, browser.Collection(*collection, []))
    assert shown == {"Overview": (10, 20, 11, 12, 13, 99, 97, 95),
                     "Drill-down": (95, 10, 20, 17, 18, 19, 93, 91, 89)}


def test_floor_k_skips_pages_without_actions(collection):
    with benchmark_script("browser") as browser:
        config = browser.Config(2000, 3, 100, 2, 0, pages=("Overview", "Drill-down"),
                                actions=("query (Next)",))
        assert browser.floor_k(config, browser.Collection(*collection, [])) == {
            "Drill-down": (10,)}


def test_recorded_k_keep_the_first_three_first():
    """The K of a page given --k follow K_VALUES (the floor counts the others from the
    first), each once."""
    with benchmark_script("floor_record") as record:
        assert record.page_k("Drill-down=95,10,97") == ("Drill-down", (95, 10, 97))
        assert record.k_values("Drill-down", {"Drill-down": (95, 10, 97)}) == (
            *record.K_VALUES, 95, 97)
        assert record.k_values("Overview", {"Drill-down": (95,)}) == record.K_VALUES


def test_the_floor_plan_starts_at_the_k_recorded_first():
    # browser.py keeps its own copy: importing floor_record would load the dashboard into it
    with benchmark_script("browser") as browser, benchmark_script("floor_record") as record:
        assert browser.FIRST_K == record.K_VALUES[0]
