"""The LaTeX table as a paper author pastes it: compiled by a real LaTeX (Debian's texlive,
pdflatex -halt-on-error) inside a one-column and a two-column article, with several runs under
long names full of LaTeX's special characters, the summary's ten figures or the figures a
paper adds (at K, at another cutoff, a residual); it compiles, and no box overflows the
margin. Skipped, saying why, only where pdflatex is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from metrics.cli import main
from tests.metrics.outputs.collection import ADDED, RUN_NAMES, write_collection

PDFLATEX = shutil.which("pdflatex")
needs_latex = pytest.mark.skipif(
    PDFLATEX is None, reason="pdflatex is not installed (apt-get install "
    "texlive-latex-base texlive-latex-recommended, as .ci/run does)")
DOCUMENT = ("\\documentclass{options}{{article}}\n\\usepackage{{booktabs}}\n"
            "\\usepackage{{graphicx}}\n\\begin{{document}}\n\\input{{table}}\n"
            "\\end{{document}}\n")


@pytest.fixture(scope="module")
def arguments(tmp_path_factory):
    """The command line of a realistic evaluation: four runs at K = 10 with a sweep."""
    qrels, runs = write_collection(tmp_path_factory.mktemp("collection"))
    return ["--qrels", str(qrels), "--k", "10", "--sweep", "1:20",
            *(part for run in runs for part in ("--run", run))]


def latex(capsys, arguments, *extra) -> str:
    assert main([*arguments, "--format", "latex", *extra]) == 0
    return capsys.readouterr().out


def compiled(tmp_path, table: str, options: str) -> str:
    """The log of pdflatex over an article holding the table; fails the test on an error."""
    (tmp_path / "table.tex").write_text(table)
    (tmp_path / "paper.tex").write_text(DOCUMENT.format(options=options))
    done = subprocess.run([PDFLATEX, "-halt-on-error", "-interaction=nonstopmode", "paper.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


@needs_latex
@pytest.mark.parametrize("options", ["", "[twocolumn]"], ids=["one column", "two columns"])
@pytest.mark.parametrize("added", [False, True], ids=["summary", "figures added"])
def test_the_table_compiles_and_fits_the_page(capsys, tmp_path, arguments, options, added):
    table = latex(capsys, arguments, *(part for m in ADDED for part in ("--metric", m))
                  if added else ())
    assert "\\dagger" in table  # a candidate significantly better than the baseline
    log = compiled(tmp_path, table, options)
    overfull = [line for line in log.splitlines() if "Overfull \\hbox" in line]
    assert not overfull, overfull


def test_names_are_escaped_and_the_untested_figures_named(capsys, arguments):
    """Every run name reaches LaTeX as text; a figure the comparison did not test (another
    cutoff, a residual) is named in the caption and carries no dagger."""
    table = latex(capsys, arguments, *(part for m in ADDED for part in ("--metric", m)))
    body = table[table.index("\\midrule"):]
    assert "\\#1" in body and "60\\%" in body and "\\&" in body and "\\$alpha\\$" in body
    assert "\\textbackslash{}" in body and "\\textasciitilde{}" in body
    assert len(re.findall(r"^.+? & \\shortstack", body, re.M)) == len(RUN_NAMES)
    caption = re.search(r"\\caption\{(.*)\}\n", table)[1]
    assert "Not tested: ERR@20, R@100, RBPresid(p=0.8)@10." in caption
    header = table.splitlines()[table.splitlines().index("\\toprule") + 1]
    labels = [cell.strip(" \\") for cell in header.split(" & ")][1:]
    for row in body.splitlines()[1:len(RUN_NAMES) + 1]:
        cells = dict(zip(labels, row.split(" & ")[1:], strict=True))
        for untested in ("ERR@20", "R@100", "RBPresid(p=0.8)@10"):
            assert "dagger" not in cells[untested]
