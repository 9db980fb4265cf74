"""`compare --format junit`: the comparison's gates as JUnit XML, the test report every CI system
reads (Jenkins, GitLab, GitHub's test-report actions).

A pure function of compare's JSON document (`metrics.outputs.documents`): one <testsuite> per
candidate compared with the baseline, and in it one <testcase> per gate the candidate was held
to (--fail-on-regression, --budget, --max-harm: a <failure> when it failed, naming the figure,
the difference and its interval, the budget or the limit, and the queries harmed), one per
metric compared (passed: a metric no gate reads fails nothing; its verdict is its
<system-out>), and with --fragility one for the verdicts that flip. So a report's failures
are exactly the gates that failed, and its exit status is compare's: 3 when one failed.

Every string from the inputs (a run's name, a query id, a metric's name) is written by
`format.xml_text` (control characters and what XML cannot hold as their escapes) and then
escaped by the XML writer: a hostile name cannot end an attribute or an element.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any

from metrics.vocabulary import format as fmt
from metrics.vocabulary.gates import GATES

SUITES = "retrieval-compare compare"  # the <testsuites> name
WORST_NAMED = 10  # worst losses a failure names (as many as the risk figures keep)


def junit_xml(document: dict[str, Any]) -> str:
    """compare's JSON document (with its "gates") as a JUnit XML document."""
    baseline = document["baseline"]
    rows = [row for row in document.get("comparisons", [])
            if row["baseline"] == baseline and "slice" not in row]
    gates = document.get("gates", [])
    root = ET.Element("testsuites", name=SUITES)
    for number, candidate in enumerate(document["candidates"]):
        suite = ET.SubElement(root, "testsuite", name=fmt.xml_text(candidate),
                              id=str(number), package=fmt.xml_text(baseline))
        _properties(suite, document, candidate)
        mine = {row["metric"]: row for row in rows if row["candidate"] == candidate}
        for gate in gates:
            if gate["candidate"] == candidate:
                _gate_case(suite, gate, mine.get(gate["metric"]), baseline)
        for row in mine.values():
            _case(suite, "comparison", row["metric"], out=_row_out(row))
        flips = [f for f in document.get("fragility", []) if f["candidate"] == candidate]
        if "fragility" in document:
            _case(suite, "fragility", "verdicts under other conventions",
                  out=_fragility_out(flips, document.get("fragility_summary", "")))
        _count(suite)
    for name in ("tests", "failures", "errors", "skipped"):
        root.set(name, str(sum(int(suite.get(name)) for suite in root)))
    root.set("time", "0")
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(root, encoding="unicode") + "\n")


def _properties(suite: ET.Element, document: dict[str, Any], candidate: str) -> None:
    properties = ET.SubElement(suite, "properties")
    pairs = [("baseline", document["baseline"]), ("candidate", candidate),
             ("k", document.get("k")), ("test", document.get("test")),
             ("correction", document.get("correction")), ("alpha", document.get("alpha")),
             ("permutations", document.get("n_permutations")),
             ("resamples", document.get("n_resamples")), ("seed", document.get("seed")),
             ("primary", document.get("primary"))]
    pairs += [(f"convention.{name}", value)
              for name, value in (document.get("conventions") or {}).items()]
    for name, value in pairs:
        if value is not None:
            ET.SubElement(properties, "property", name=name, value=fmt.xml_text(value))


def _case(suite: ET.Element, kind: str, name: str, *, out: str = "",
          failure: tuple[str, str] | None = None) -> ET.Element:
    # Jenkins groups cases by classname across suites: the candidate's name leads it
    case = ET.SubElement(suite, "testcase", classname=f"{suite.get('name')}.{kind}",
                         name=fmt.xml_text(name), time="0")
    if failure is not None:
        message, text = failure
        element = ET.SubElement(case, "failure", message=fmt.xml_text(message), type=kind)
        element.text = text
    if out:
        ET.SubElement(case, "system-out").text = out
    return case


def _count(suite: ET.Element) -> None:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", "0")


def _gate_case(suite: ET.Element, gate: dict[str, Any], row: dict[str, Any] | None,
               baseline: str) -> None:
    kind, metric, candidate = gate["gate"], gate["metric"], gate["candidate"]
    lines = [f"{kind} gate on {metric}: {GATES.get(kind, '')}".rstrip()]
    if row is not None:
        lines += _figures(row, baseline, candidate)
    if kind == "budget":
        lines.append(f"budget: {fmt.figure(gate['limit'])}: {gate['sentence']}")
    if kind == "harm":
        lines.append(f"harm limit: {gate['sentence']}")
    if kind == "latency":
        lines.append(f"latency limit: {gate['sentence']}")
    if row is not None and row.get("risk"):
        lines += _harmed(row["risk"])
    text = "\n".join(fmt.xml_text(line) for line in lines)
    failure = None
    if not gate["passed"]:
        figures = (f"; difference {fmt.difference(row['difference'], row['low'], row['high'])}"
                   if row is not None else "")
        said = {"regression": "significantly worse than the baseline",
                "budget": gate.get("verdict", ""),
                "harm": "harms too many queries",
                "latency": gate.get("sentence", "")}.get(kind, "failed")
        failure = (f"{kind}: {candidate} against {baseline} on {metric}: {said}{figures}", text)
    _case(suite, kind, metric, out="" if failure else text, failure=failure)


def _figures(row: dict[str, Any], baseline: str, candidate: str) -> list[str]:
    """The figure before and after, the paired difference and its interval, the test."""
    level = fmt.confidence(row.get("confidence_level") or 0.95)
    return [
        f"{row['metric']}: {baseline} {fmt.figure(row['before_mean'])}, "
        f"{candidate} {fmt.figure(row['after_mean'])}",
        f"difference {fmt.difference(row['difference'], row['low'], row['high'])} "
        f"(paired bootstrap, {level} interval)",
        f"{fmt.win_tie_loss(row['wins'], row['ties'], row['losses'])} queries better / tied / "
        f"worse; adjusted p {fmt.p_value(row['p_adjusted'])} ({row['correction']} over "
        f"{row['n_comparisons']:,} comparisons)",
    ]


def _harmed(risk: dict[str, Any]) -> list[str]:
    """The queries harmed: how many, and the worst losses by name."""
    lines = [f"queries harmed (losing more than {fmt.figure(risk['harm_delta'])}): "
             f"{risk['harmed']:,} of {risk['n']:,} "
             f"({fmt.percent_of(risk['harmed'], risk['n'])})"]
    worst = risk.get("worst", [])[:WORST_NAMED]
    if worst:
        lines.append("worst losses:")
        lines += [f"  {loss['query_id']}: {_before_after(loss)}" for loss in worst]
    return lines


def _before_after(loss: dict[str, Any]) -> str:
    if "before" in loss:
        return (f"{fmt.figure(loss['before'])} -> {fmt.figure(loss['after'])} "
                f"({fmt.signed(loss['difference'])})")
    return fmt.signed(loss["difference"])


def _row_out(row: dict[str, Any]) -> str:
    said = [row.get("verdict") or "", f"decision: {row.get('decision') or 'none'}"]
    if row.get("budget"):
        said.append(f"budget {fmt.figure(row['budget']['limit'])}: {row['budget']['verdict']}")
    return "\n".join(fmt.xml_text(line) for line in said if line)


def _fragility_out(flips: Iterable[dict[str, Any]], summary: str) -> str:
    lines = [summary] + [
        f"{flip['metric']}: {flip['verdict']} -> {flip['verdict_under_choice']} with "
        f"{flip['convention']} = {flip['choice']}" for flip in flips]
    return "\n".join(fmt.xml_text(line) for line in lines if line)
