"""The corpus in the dashboard: the leakage warning (Overview, drill-down) and what K costs,
each the engine's figure and sentence."""

from __future__ import annotations

import pytest

from metrics import (
    ChunkTokens,
    costs,
    find_leaks,
    load_queries,
    load_run,
    read_corpus,
    retrieved_or_judged,
    sweep_costs,
)
from metrics.core.sample import SAMPLE_DIR, sample_runs
from tests.dashboard.conftest import open_app, shown, texts, upload
from tests.marks import THOROUGH


@pytest.fixture(scope="module")
def sample_leaks(sample_qrels):
    runs = [load_run(spec.source)[0] for spec in sample_runs()]
    candidates = retrieved_or_judged(sample_qrels, runs)
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl",
                            {doc for docs in candidates.values() for doc in docs})
    return find_leaks(load_queries(SAMPLE_DIR / "queries.csv"), corpus, candidates=candidates)


def test_the_overview_warns_of_the_sample_s_leak_and_the_drilldown_names_its_chunk(
        sample_leaks):
    assert sample_leaks.leaked_queries == ("q05",)
    app = open_app()
    warnings = shown(" ".join(w.value for w in app.warning))
    assert sample_leaks.sentence in warnings and "Leaked queries scored here: q05" in warnings
    app.switch_page("app_pages/drilldown.py").run()
    app.selectbox(key="drilldown.query").select("q05").run()
    assert sample_leaks.query_sentence("q05") in texts(app)
    assert "d41 (verbatim)" in sample_leaks.query_sentence("q05")
    app.selectbox(key="drilldown.query").select("q01").run()
    assert "This question is copied" not in texts(app)


def test_no_leak_warning_without_a_corpus():
    app = upload(open_app(), [("bm25.run", (SAMPLE_DIR / "bm25.run").read_bytes())],
                 (SAMPLE_DIR / "qrels.txt").read_bytes(),
                 queries=("queries.csv", (SAMPLE_DIR / "queries.csv").read_bytes()))
    assert not app.exception and "Leakage" not in texts(app)
    assert "Give the mean tokens per chunk" in texts(app)


def test_what_k_costs_is_the_engine_s_and_lives_in_the_url(sample):
    app = open_app(tokens="390", price="0.5")
    table = next(d.value for d in app.dataframe if "tokens at K" in d.value.columns)
    expected = costs(sample, ChunkTokens(390.0, price_per_mtok=0.5))
    assert list(table["tokens at K"]) == [c.current.tokens for c in expected]
    assert list(table["cost at k"]) == [c.suggested.cost_per_1000 for c in expected]
    assert list(table["recall bought"]) == [c.recall_bought for c in expected]
    assert all(c.sentence in texts(app) for c in expected)


def test_the_sample_s_corpus_gives_the_token_estimate(sample):
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl",
                            [f"d{i:02d}" for i in range(100)])
    app = open_app()
    assert ChunkTokens.from_corpus(corpus).sentence in texts(app)


def test_the_rank_movement_shows_each_chunk_with_its_ranks(sample):
    from dashboard.views import frames
    from metrics import rank_movement

    movement = rank_movement(sample, "baseline", "reranked", "q03", 10)
    notes = frames.movement_notes(movement)
    for note, row in zip(notes, movement.itertuples(), strict=True):
        before = "—" if row.before != row.before else str(int(row.before))  # NaN: not returned
        after = "—" if row.after != row.after else str(int(row.after))
        assert note == f"rank {before} → {after}, {row.moved}"
    app = open_app("compare", query="q03")
    html = " ".join(h.proto.body for h in app.get("html"))
    assert notes[0] in html and "<mark>sign</mark>" in html


@THOROUGH  # an AppTest (~2 s); the view and the engine are tested fast in their own files
def test_the_k_sweep_page_prices_every_k_in_the_corpus_s_tokens(sample):
    corpus, _ = read_corpus(SAMPLE_DIR / "corpus.jsonl",
                            [f"d{i:02d}" for i in range(100)])
    app = open_app("sweep")
    sweeps = sweep_costs(sample, ChunkTokens.from_corpus(corpus))
    assert "What each K costs in tokens" in [h.value for h in app.subheader]
    assert sweeps[0].sentence in texts(app)
