"""One pair of runs, one adjusted p, in every output: python -m metrics compare's JSON, the
LaTeX table of --format latex (its family in the caption, its daggers), and the report's
contents of python -m dashboard report (and its Markdown summary) read the same comparison:
the same figures tested (not Judged@K, which says how far the labels reach, not how good a
ranking is) and one correction over the same family. On a realistic evaluation: four runs,
one clearly better than the baseline, long names with LaTeX's special characters."""

from __future__ import annotations

import json
import re

import pytest

import metrics
from dashboard import safe
from dashboard.report import command, exports
from metrics import format as fmt
from metrics.cli import main
from tests.metrics.outputs.collection import write_collection

K = 10


@pytest.fixture(scope="module")
def arguments(tmp_path_factory):
    qrels, runs = write_collection(tmp_path_factory.mktemp("collection"))
    return ["--qrels", str(qrels), "--k", str(K),
            *(part for run in runs for part in ("--run", run))]


@pytest.fixture(scope="module")
def compared(arguments):
    """compare's JSON: (candidate, metric) -> its row, and the whole document."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["compare", *arguments, "--format", "json"]) == 0
    document = json.loads(out.getvalue())
    return {(row["candidate"], row["metric"]): row for row in document["comparisons"]}, document


def test_compare_leaves_judged_out_of_its_family(compared):
    rows, document = compared
    assert f"Judged@{K}" not in document["metrics"]
    assert document["n_comparisons"] == len(rows) == (
        len(document["candidates"]) * len(document["metrics"]))
    assert any(row["significant"] for row in rows.values())  # some daggers to agree on


def test_the_latex_table_reads_compares_comparison(capsys, arguments, compared):
    rows, document = compared
    assert main([*arguments, "--format", "latex"]) == 0
    table = capsys.readouterr().out
    caption = re.search(r"\\caption\{(.*)\}\n", table)[1]
    assert f"correction over the {document['n_comparisons']:,} comparisons" in caption
    assert f"Not tested: Judged@{K}." in caption
    lines = table.splitlines()
    labels = [cell.strip(" \\") for cell in lines[lines.index("\\toprule") + 1].split(" & ")]
    body = lines[lines.index("\\midrule") + 1:lines.index("\\bottomrule")]
    names = [document["baseline"], *document["candidates"]]
    for name, line in zip(names, body, strict=True):
        cells = dict(zip(labels[1:], line.split(" & ")[1:], strict=True))
        for label, cell in cells.items():
            row = rows.get((name, label))
            want = ("" if row is None or not row["significant"]
                    else "dagger" if row["difference"] > 0 else "ddagger")
            got = "ddagger" if "ddagger" in cell else "dagger" if "dagger" in cell else ""
            assert got == want, (name, label)


def test_the_reports_contents_read_compares_comparison(arguments, compared):
    rows, document = compared
    args = command.parser().parse_args([*arguments, "--out", "unused.html"])
    inputs = metrics.Inputs.from_arguments(args)
    evaluation = inputs.evaluation()
    contents = command.contents(args, inputs, command.compared(args, evaluation))
    tests = {(t.candidate, t.metric): t for t in contents.comparison.tests}
    assert contents.comparison.n_comparisons == document["n_comparisons"]
    assert {key: t.p_adjusted for key, t in tests.items()} == {
        key: row["p_adjusted"] for key, row in rows.items()}
    # the pull request's summary writes the same adjusted p, three decimals
    summary = exports.summary_markdown(evaluation, contents.comparison)
    for (candidate, metric), row in rows.items():
        line = next(line for line in summary.splitlines()
                    if line.startswith(f"| {safe.github(candidate)} | {metric} |"))
        assert f"| {fmt.p_value(row['p_adjusted'])} |" in line
