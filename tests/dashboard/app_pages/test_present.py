"""AppTest: the presentation mode (issue 47). present=1 shows the slides instead of the page,
the style that hides the sidebar is drawn and no page control is; the buttons (the keys'
shortcuts) move between slides and the link follows the slide; the sidebar's toggle and the
way out switch the mode; a run's name from a file is escaped on the slides."""

from __future__ import annotations

import pytest

from dashboard.app_pages import present
from dashboard.views import slides
from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import open_app, shown, upload

QRELS = (SAMPLE_DIR / "qrels.txt").read_bytes()


def _titles(app) -> list[str]:
    return [shown(t.value) for t in app.title]


@pytest.fixture(scope="module")
def presenting():
    return open_app(present="1")


def test_present_1_shows_the_first_slide_and_hides_the_controls(presenting):
    app = presenting
    assert _titles(app) == ["What was compared"]
    assert any(m.value == present.STYLE for m in app.markdown)  # the sidebar hidden
    assert 'data-testid="stSidebar"' in present.STYLE and "display: none" in present.STYLE
    # no page drawn: no table, no page's widget, only the slides' own buttons in the page
    assert not app.dataframe and not app.main.selectbox and not app.main.toggle
    keys = {b.key for b in app.main.button}
    assert keys == {"present.back", "present.next", "present.leave",
                    *(f"present.next.{k}" for k in present.NEXT_KEYS),
                    *(f"present.back.{k}" for k in present.BACK_KEYS)}
    shortcuts = {b.key: b.proto.shortcut for b in app.main.button}
    assert shortcuts["present.next"] == "right" and shortcuts["present.back"] == "left"
    assert shortcuts["present.next.pagedown"] == "pagedown"
    assert shortcuts["present.next.space"] == "space"
    assert shortcuts["present.back.pageup"] == "pageup"


def test_the_buttons_move_between_slides_and_the_link_follows(presenting):
    app = presenting
    app.button(key="present.next").click().run()
    assert _titles(app)[0].startswith("The headline")
    assert app.query_params["slide"] == ["2"] or app.query_params["slide"] == "2"
    app.button(key="present.next.space").click().run()
    assert _titles(app)[0].startswith("Where the runs differ")
    app.button(key="present.back.pageup").click().run()
    assert _titles(app)[0].startswith("The headline")
    app.button(key="present.back").click().run()
    assert _titles(app) == ["What was compared"]
    assert app.button(key="present.back").disabled  # nothing before the first


def test_a_link_reopens_a_slide_and_one_past_the_last_shows_the_last():
    app = open_app(present="1", slide="3")
    assert _titles(app)[0].startswith("Where the runs differ")
    app = open_app(present="1", slide="99")
    assert _titles(app)[0] == "The caveats that matter"
    assert app.button(key="present.next").disabled


def test_the_toggle_and_the_way_out_switch_the_mode():
    app = open_app()
    assert _titles(app) == ["Overview"]
    app.sidebar.toggle(key="present.on").set_value(True).run()
    assert _titles(app) == ["What was compared"]
    app.button(key="present.leave").click().run()
    assert _titles(app) == ["Overview"]
    assert "present" not in app.query_params and "slide" not in app.query_params


def test_a_run_name_from_a_file_is_escaped_on_the_slides():
    app = open_app()
    hostile = "**bold**[x](evil)<b>"  # a file's name: no slash
    run = b"".join(line.replace(b"bm25", hostile.encode()) + b"\n" for line in
                   (SAMPLE_DIR / "bm25.run").read_bytes().splitlines())
    upload(app, [("a.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
                 (f"{hostile}.run", run)], QRELS)
    app.sidebar.toggle(key="present.on").set_value(True).run()
    lines = [m.value for m in app.markdown if m.value != present.STYLE]
    named = [line for line in lines if "bold" in line]
    assert named, lines
    for line in named:  # the characters as written, no Markdown formed from them
        assert "**bold**" not in line and "](evil)" not in line and "<b>" not in line
        assert hostile in shown(line)


def test_a_corpus_uploaded_after_the_runs_prices_the_cost_slide():
    """The Overview prices K before the corpus is there; the corpus, uploaded next, leaves
    the view's key as it was: the cost slide (and the Overview) must price with it."""
    app = open_app()
    upload(app, [("a.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
                 ("b.run", (SAMPLE_DIR / "bm25.run").read_bytes())], QRELS)
    assert any("load a corpus" in c.value for c in app.caption)  # not priced yet
    app.file_uploader(key="load.corpus").set_value(
        ("corpus.jsonl", (SAMPLE_DIR / "corpus.jsonl").read_bytes(), "text/plain")).run()
    app.sidebar.toggle(key="present.on").set_value(True).run()
    while not _titles(app)[0].startswith("What it costs"):
        app.button(key="present.next").click().run()
    lines = [shown(m.value) for m in app.markdown]
    assert any("estimated from the corpus" in line for line in lines), lines


def test_the_cost_slide_carries_each_candidates_latency_from_the_timings():
    """A timings file uploaded: the cost slide says each candidate's p95 latency against the
    baseline's in the engine's words (the headline piece compare and the Overview print)."""
    queries = sorted({line.split()[0] for line in QRELS.decode().splitlines() if line.strip()})
    rows = [f"{q},{run},{ms + i % 5}" for i, q in enumerate(queries)
            for run, ms in (("baseline", 10), ("bm25", 30))]
    timings = ("query_id,run,latency_ms\n" + "\n".join(rows) + "\n").encode()
    app = open_app()
    upload(app, [("baseline.run", (SAMPLE_DIR / "baseline.run").read_bytes()),
                 ("bm25.run", (SAMPLE_DIR / "bm25.run").read_bytes())], QRELS)
    app.file_uploader(key="load.timings").set_value(
        ("timings.csv", timings, "text/csv")).run()
    app.sidebar.toggle(key="present.on").set_value(True).run()
    while not _titles(app)[0].startswith("What it costs"):
        app.button(key="present.next").click().run()
    lines = [shown(m.value) for m in app.markdown]
    said = [line for line in lines if line.startswith("bm25 against baseline: p95 latency +")]
    assert said, lines
    assert "+20.0 ms [+20.0, +20.0]" in said[0]  # every query 20 ms slower: the difference exactly
    assert not any(slides.NO_LATENCY in line for line in lines)
