"""dashboard/serve.py: the server README starts serves app.py, and its warm-up leaves in the
store exactly what the first page asks for, so that page scores nothing itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dashboard import serve
from dashboard.data import cache
from dashboard.state import session
from tests.dashboard.conftest import APP, open_app


def test_the_server_serves_the_app_script():
    assert str(serve.app.script_path) == "app.py"
    assert (Path(serve.__file__).parent / serve.app.script_path) == APP


def test_after_the_warm_up_the_first_page_scores_nothing(monkeypatch):
    cache.store().clear()
    serve.warm_up()
    scored = []
    original = cache.evaluate_prepared
    monkeypatch.setattr(cache, "evaluate_prepared",
                        lambda *a, **kw: scored.append(1) or original(*a, **kw))
    compared = []
    original_compare = cache.compare_evaluation
    monkeypatch.setattr(cache, "compare_evaluation",
                        lambda *a, **kw: compared.append(a[0].k) or original_compare(*a, **kw))
    app = open_app()
    assert not app.exception
    assert app.title[0].value == "Overview"
    assert scored == []  # the sample's scores came from the warm-up
    # the run table's comparison too; only the headline's own family is tested on the page
    # (the K either side are decided after it, decisions.next_ks)
    k = app.session_state[session.VIEW].evaluation.k
    assert compared.count(k) <= 1
    assert set(compared) <= {k - 1, k, k + 1}
    cache.store().clear()


def test_the_dashboard_process_runs_one_blas_thread():
    # a fresh interpreter, as the server starts: the dashboard's threads compute side by side
    # and OpenBLAS's own threads would spin against them (dashboard/__init__.py)
    script = ("import dashboard, numpy; from threadpoolctl import threadpool_info; "
              "print(sorted({i['num_threads'] for i in threadpool_info() "
              "if i['user_api'] == 'blas' and 'scipy_openblas64' in i['filepath']}))")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).parents[2])
    assert shown.stdout.strip() == "[1]"


@pytest.mark.thorough  # a fresh interpreter importing everything: ~2.5 s
def test_the_server_reads_the_code_in_before_it_listens():
    # what `streamlit run dashboard/serve.py` does before its server answers: import serve.py
    # (the app object); the first visit then imports nothing the Overview's comparison needs
    script = ("import sys, dashboard.serve; "
              "print(all(m in sys.modules for m in ('scipy.stats', 'pandas', 'altair', "
              "'dashboard.views.charts', 'dashboard.data.decisions', 'metrics.stats.paired'))); "
              "print(any(m.startswith('dashboard.app_pages.') for m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).parents[2])
    assert shown.stdout.split() == ["True", "False"]
