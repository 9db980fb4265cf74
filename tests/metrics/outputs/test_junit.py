"""compare --format junit: read back by a JUnit reader (junitparser), valid against the JUnit
schema Jenkins and GitLab read (junit.xsd beside this file, checked with lxml), one suite per
candidate, one case per gate and per metric, a failure exactly where a gate failed, naming the
figure, the difference and its interval, the budget and the queries harmed; and well-formed
whatever a run's name or a query's id holds."""

from __future__ import annotations

import json
from pathlib import Path

import junitparser
import pytest
from lxml import etree

from metrics.cli import main
from metrics.outputs.junit import junit_xml
from metrics.vocabulary.format import xml_text
from metrics.vocabulary.gates import EXIT_GATE, EXIT_OK
from tests.metrics.outputs.gated import KEPT, QUERIES, write_gated

SCHEMA = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("junit.xsd"))))
GATES = ["--fail-on-regression", "nDCG@2", "--budget", "nDCG@2=0.05", "--max-harm",
         "nDCG@2=0.2"]


def compared(tmp_path, *runs: str, extra=(), ids=None) -> tuple[int, str, dict]:
    """compare's exit status, its JUnit report on standard output, and its JSON document
    (--write json=...) from the same run."""
    files = write_gated(tmp_path / "files", ids)
    document = tmp_path / "compare.json"
    argv = ["compare", "--qrels", str(files["qrels"]), "--k", "2", "--permutations", "500",
            "--queries", str(files["queries"]), "--format", "junit",
            "--write", f"json={document}", *GATES, *extra]
    for run in runs:
        name, _, file = run.partition("=")
        argv += ["--run", f"{name}={files[file or name]}"]
    status = main(argv)
    return status, document.read_text(), json.loads(document.read_text())


def report(text: str) -> junitparser.JUnitXml:
    return junitparser.JUnitXml.fromstring(text.encode("utf-8"))


def test_a_worse_candidate_fails_each_gate_with_its_figures(tmp_path, capsys):
    status, _, document = compared(tmp_path, "base", "worse", "same")
    text = capsys.readouterr().out
    assert status == EXIT_GATE
    SCHEMA.assertValid(etree.fromstring(text.encode()))
    suites = list(report(text))
    assert [suite.name for suite in suites] == ["worse", "same"]
    failed = {(g["candidate"], g["gate"]) for g in document["gates"] if not g["passed"]}
    assert failed == {("worse", "regression"), ("worse", "budget"), ("worse", "harm")}
    found = {(suite.name, case.classname.split(".")[-1]): case
             for suite in suites for case in suite if not case.is_passed}
    assert set(found) == failed
    assert sum(suite.failures for suite in suites) == len(failed)
    for suite in suites:  # a case per gate and per metric compared
        assert suite.tests == 3 + len(document["metrics"]) == len(list(suite))
    budget = found[("worse", "budget")].result[0]
    row = next(r for r in document["comparisons"]
               if r["candidate"] == "worse" and r["metric"] == "nDCG@2")
    assert row["after_mean"] == pytest.approx(KEPT / QUERIES)
    assert "nDCG@2" in budget.message and "-0.750 [" in budget.message
    assert f"[{row['low']:.3f}, {row['high']:.3f}]" in budget.message
    assert "budget: 0.050: worse beyond budget" in budget.text
    assert f"queries harmed (losing more than 0.050): {QUERIES - KEPT} of {QUERIES}" in \
        budget.text
    assert "q10: 1.000 -> 0.000 (-1.000)" in budget.text  # the worst losses by id


def test_a_candidate_that_holds_passes_every_case_and_exits_0(tmp_path, capsys):
    status, _, _ = compared(tmp_path, "base", "same")
    text = capsys.readouterr().out
    assert status == EXIT_OK
    SCHEMA.assertValid(etree.fromstring(text.encode()))
    parsed = report(text)
    assert [case.is_passed for suite in parsed for case in suite] == [True] * 11
    assert parsed.failures == 0 and parsed.tests == 11


def test_the_schema_can_refuse(tmp_path, capsys):
    """The check is live: a case without its classname, a count that is no number."""
    compared(tmp_path, "base", "worse")
    text = capsys.readouterr().out
    tree = etree.fromstring(text.encode())
    del tree.find("testsuite/testcase").attrib["classname"]
    assert not SCHEMA.validate(tree)
    tree = etree.fromstring(text.encode())
    tree.find("testsuite").set("failures", "three")
    assert not SCHEMA.validate(tree)


def test_out_writes_the_report_with_the_file_writer(tmp_path, capsys):
    files = write_gated(tmp_path / "files")
    out = tmp_path / "r.xml"
    assert main(["compare", "--qrels", str(files["qrels"]), "--run", f"b={files['base']}",
                 "--run", f"w={files['worse']}", "--k", "2", "--permutations", "200",
                 "--format", "junit", "--out", str(out), *GATES]) == EXIT_GATE
    assert capsys.readouterr().out == ""
    assert report(out.read_text()).failures == 3
    # an --out or a --write that names an input, or the other's file, is refused before
    # anything is read; so is a format compare does not write
    given = ["compare", "--qrels", str(files["qrels"]), "--run", str(files["base"]),
             "--run", str(files["worse"]), "--format", "junit"]
    before = files["base"].read_bytes()
    assert main([*given, "--out", str(files["base"])]) == 2
    assert main([*given, "--write", f"markdown={files['base']}"]) == 2
    assert main([*given, "--out", str(out), "--write", f"json={out}"]) == 2
    assert main([*given, "--write", f"latex={tmp_path / 'x.tex'}"]) == 2
    assert files["base"].read_bytes() == before
    err = capsys.readouterr().err
    assert f"--write {files['base']} is one of this command's inputs" in err
    assert "expected FORMAT=FILE with FORMAT one of table, json, junit, markdown" in err


# every C0 control, DEL and C1, what ends an attribute or a section, a bidirectional
# override, the noncharacters XML cannot hold, and a lone surrogate
HOSTILE = ("".join(map(chr, range(32))) + '\x7f\x85"\'<>&]]><!--x--><?pi?>&amp;\u202e'
           "\ufffe\uffff\ud800 " + "x" * 3000)


def test_hostile_names_and_ids_leave_the_xml_well_formed(tmp_path, capsys):
    _, _, document = compared(tmp_path, "base", "worse")
    capsys.readouterr()
    document["baseline"] = HOSTILE
    document["candidates"] = [HOSTILE + "1"]
    for row in document["comparisons"]:
        row["baseline"], row["candidate"], row["metric"] = HOSTILE, HOSTILE + "1", \
            HOSTILE + row["metric"]
        for loss in (row.get("risk") or {}).get("worst", []):
            loss["query_id"] = HOSTILE + loss["query_id"]
    for gate in document["gates"]:
        gate["candidate"], gate["metric"] = HOSTILE + "1", HOSTILE + gate["metric"]
    text = junit_xml(document)
    tree = etree.fromstring(text.encode("utf-8"))  # well-formed: lxml refuses anything else
    SCHEMA.assertValid(tree)
    suite = tree.find("testsuite")
    assert suite.get("name") == xml_text(HOSTILE + "1")  # read back as escaped, exactly
    assert suite.get("package") == xml_text(HOSTILE)
    assert {element.tag for element in tree.iter()} == {
        "testsuites", "testsuite", "properties", "property", "testcase", "failure",
        "system-out"}  # no element a name opened
    assert not list(tree.iter(etree.Comment)) and not list(tree.iter(etree.PI))
    parsed = report(text)
    assert parsed.failures == sum(not g["passed"] for g in document["gates"]) == 3
    failure = next(case for s in parsed for case in s if not case.is_passed).result[0]
    assert xml_text(HOSTILE + "q10") in failure.text


def test_xml_text_escapes_only_what_xml_cannot_hold_or_would_hide():
    assert xml_text("plain id-1.x") == "plain id-1.x"
    assert xml_text("a\x00b\tc\ufffe") == "a\\x00b\\tc\\ufffe"
    assert xml_text("é ü 中") == "é ü 中"


def test_a_latency_gate_fails_with_its_interval_and_limit(tmp_path, capsys):
    """--max-latency's gates are cases of their own; the slower candidate's failure names the
    ratio's interval and the limit, in the words the text output and the comment use."""
    timings = tmp_path / "timings.csv"
    rows = [f"q{i:02d},{run},{ms + i % 3}" for i in range(QUERIES)
            for run, ms in (("base", 10), ("same", 10), ("worse", 40))]
    timings.write_text("query_id,run,latency_ms\n" + "\n".join(rows) + "\n")
    status, _, document = compared(tmp_path, "base", "worse", "same",
                                   extra=["--timings", str(timings), "--max-latency", "p95=+20%"])
    text = capsys.readouterr().out
    assert status == EXIT_GATE
    SCHEMA.assertValid(etree.fromstring(text.encode()))
    latency = {g["candidate"]: g for g in document["gates"] if g["gate"] == "latency"}
    assert not latency["worse"]["passed"] and latency["same"]["passed"]
    case = next(case for suite in report(text) if suite.name == "worse" for case in suite
                if case.classname.endswith(".latency"))
    failure = case.result[0]
    assert latency["worse"]["sentence"] in failure.message
    assert "p95 latency limit +20%" in failure.text
