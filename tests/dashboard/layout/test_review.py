"""The risk-sensitive review on Compare, each figure the engine's: the harm figures and the
worst queries, the fragility check (TREC runs read again in the other order) and what to
label next; δ, α and the fragility view in the URL."""

from __future__ import annotations

from metrics import (
    compare_evaluation,
    few_queries_note,
    fragility,
    risks,
    to_label,
    to_label_summary,
)
from metrics.core.files import rereader
from metrics.core.sample import sample_runs
from metrics.vocabulary.risk import share
from tests.dashboard.conftest import open_app, shown, texts


def metric_cards(app) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def test_the_harm_figures_are_the_engine_s_and_delta_and_alpha_live_in_the_url(sample):
    comparison = compare_evaluation(sample, rng=sample.conventions.seed)
    for params, delta, alpha in (({}, 0.05, 1), ({"harm": "0.2", "risk": "5"}, 0.2, 5)):
        app = open_app("compare", **params)
        risk = next(r for r in risks(comparison, delta=delta)
                    if r.candidate == "reranked" and r.metric == "nDCG@5")
        cards = metric_cards(app)
        assert cards["Queries harmed"] == share(risk.harm_share)
        assert cards[f"URisk α={alpha}"] == f"{risk.urisk_at(alpha):+.3f}"
        assert shown(risk.sentence) in shown(texts(app))
        table = next(d.value for d in app.dataframe if "TRisk" in d.value.columns)
        assert list(table["Harmed"]) == [
            f"{share(r.harm_share)} [{share(r.harm_low)}, {share(r.harm_high)}]"
            for r in risks(comparison, delta=delta) if r.candidate == "reranked"]
        worst = next(d.value for d in app.dataframe if list(d.value.columns)[:1] == ["query_id"]
                     and "difference" in d.value.columns and len(d.value) == len(risk.worst))
        assert list(worst["query_id"]) == [q for q, _ in risk.worst]


def test_the_fragility_check_lists_the_engine_s_flips_and_can_be_hidden(sample):
    app = open_app("compare")
    expected = fragility(sample, compare_evaluation(sample, rng=sample.conventions.seed),
                         reread=rereader(sample_runs(), sample))
    table = next(d.value for d in app.dataframe if "Becomes" in d.value.columns)
    assert len(table) == len(expected.flips) > 0
    assert list(table["Becomes"]) == [f.verdict_under_choice for f in expected.flips]
    assert shown(expected.summary) in shown(texts(app))
    assert "Order TREC runs by" in shown(texts(app))  # the sample's TREC runs were read again
    assert shown(to_label_summary(to_label(sample))) in shown(texts(app))
    hidden = open_app("compare", fragility="0")
    assert not any("Becomes" in d.value.columns for d in hidden.dataframe)
    assert "What to label next" not in texts(hidden)


def test_few_queries_are_said_to_give_optimistic_intervals(sample):
    note = few_queries_note(len(sample.scored_ids), "percentile")
    assert note and shown(note) in shown(texts(open_app("compare")))
    assert shown(note) in shown(texts(open_app()))
    bca = few_queries_note(len(sample.scored_ids), "bca")
    assert shown(bca) in shown(texts(open_app("compare", interval="bca")))
