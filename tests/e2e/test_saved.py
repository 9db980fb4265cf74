"""Saved figures in the real browser (thorough): an evaluation file opened under My files
("Open an evaluation", the last box), the pages that draw from it say so, and with the qrels
and the runs given beside it the drill-down shows one query's lists; at 1280 and 1920 px."""

from __future__ import annotations

import pytest

import metrics
from metrics.core.per_query import write_long
from metrics.core.sample import SAMPLE_DIR
from metrics.core.saved import about
from tests.e2e.conftest import NO_BROWSER, file_inputs, settle
from tests.marks import THOROUGH

pytestmark = [NO_BROWSER, THOROUGH]
# after qrels, runs, queries, corpus, judge, subtopic qrels and timings: the others keep their place
EVALUATION_BOX = 7


def seen(page, shots, name: str, width: int, *texts: str) -> None:
    """Every text visible and no exception box; then the whole page at this width."""
    settle(page)
    for text in texts:
        page.get_by_text(text, exact=False).first.wait_for(state="visible")
    assert page.locator('[data-testid="stException"]').count() == 0
    height = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": width, "height": min(height + 60, 12_000)})
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": width, "height": 1000})


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    runs = [metrics.RunSource(str(spec.source)) for spec in metrics.sample_runs()]
    evaluation = metrics.evaluate_files(SAMPLE_DIR / "qrels.txt", runs, 5)
    path = tmp_path_factory.mktemp("saved") / "figures.parquet"
    write_long(path, evaluation.per_query_tables(), about(evaluation, "memory"))
    return path


@pytest.mark.parametrize("width", [1280, 1920])
def test_saved_figures_open_and_the_drilldown_reads_the_files(server, page, shots, figures,
                                                              width):
    page.set_viewport_size({"width": width, "height": 1000})
    inputs = file_inputs(page, server)
    inputs.nth(EVALUATION_BOX).set_input_files(str(figures))
    settle(page)
    seen(page, shots, f"saved-overview-{width}", width, "Saved figures from figures.parquet",
         "Summary at K = 5", "What was scored")
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Compare").click()
    seen(page, shots, f"saved-compare-{width}", width, "reranked against baseline",
         "which the saved figures do not hold")
    boxes = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    boxes.nth(1).set_input_files(str(SAMPLE_DIR / "qrels.txt"))
    settle(page)
    boxes.nth(2).set_input_files([str(spec.source) for spec in metrics.sample_runs()])
    settle(page)
    page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Drill-down").click()
    seen(page, shots, f"saved-drilldown-{width}", width,
         "Every figure they give is the saved one",
         "Each run, rank by rank")
