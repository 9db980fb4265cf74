"""`compare --format markdown`: the comparison as a pull request's comment (and a CI job's
summary) in GitHub's Markdown.

A pure function of compare's JSON document (`metrics.outputs.documents`): the verdict of the
gates, the headline, each gate with its figures, each candidate's worst queries on the primary
metric and on every metric a gate failed on (the id, the question when a queries file was
given, the figure before and after), every metric against the baseline, the fragility check
when it ran, and a note of the conventions, the test and the exit statuses, with no link.

Every string from the inputs (a run's name, a query id, a question, a metric's name) is written
by `format.markdown_text`: no pipe leaves its cell, no backtick opens code, no tag, link or
mention is made. A long one is cut first (`CELL_CHARS`).

GitHub refuses a comment longer than 65,536 characters (`COMMENT_LIMIT`): the comment is built
part by part, each part's rows while they fit, and what does not fit is left out with a line
counting it; the conventions' note and the verdict are always there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metrics.vocabulary import format as fmt
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_GATE, EXIT_OK, EXIT_USAGE
from metrics.vocabulary.limits import COMMENT_LIMIT

FLIPS_SHOWN = 5  # verdicts that flip, named in the comment (the JUnit report names each)
ERROR_LINES = 20  # of what the command said on standard error, in a comment on a failed run
CELL_CHARS = 120  # of a user's string in a cell or a sentence, before it is escaped
LEFT_OUT_ROOM = 400  # kept for the line that counts what was left out
PASSED, FAILED = "✅", "❌"
# how much of a comment each kind of part may take, against the others, when all cannot fit
WEIGHTS = {"gate": 3, "worst query": 3, "metric row": 2, "headline sentence": 1,
           "fragility line": 1, "line": 1}


def comment_markdown(document: dict[str, Any], *, limit: int = COMMENT_LIMIT,
                     version: str = "") -> str:
    """compare's JSON document (with its "gates") as a pull request's comment of at most
    `limit` characters (counted as GitHub counts them, in UTF-16 units)."""
    baseline = document["baseline"]
    rows = [row for row in document.get("comparisons", [])
            if row["baseline"] == baseline and "slice" not in row]
    gates = document.get("gates", [])
    failed = [gate for gate in gates if not gate["passed"]]
    top = [_title(gates, failed, baseline), ""]
    parts = [
        Part("headline sentence", ["**Headline.**", ""],
             [f"- {_text(sentence, limit=4 * CELL_CHARS)}" for sentence in
              document.get("headlines", [])], table=False),
        _gates_part(gates, rows, baseline),
        *_worst_parts(document, rows, failed, baseline),
        _metrics_part(rows, baseline, document),
    ]
    if "fragility_summary" in document:
        parts.append(Part("fragility line", ["### Fragility", ""],
                          [_fragility(document)], table=False))
    notes = _notes(document, version)
    return fitted(top, parts, notes, limit)


# --------------------------------------------------------------------------- fitting


@dataclass
class Part:
    """A section: its title lines, then rows that may be left out from the end (a table's
    rows, a list's items), counted as `noun`s."""

    noun: str
    head: list[str]
    rows: list[str]
    table: bool = True
    tail: list[str] = field(default_factory=list)


def size(text: str) -> int:
    """Characters as GitHub counts a comment's (UTF-16 code units: an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def fitted(top: list[str], parts: list[Part], notes: list[str], limit: int) -> str:
    """`top`, then each part's title and as many of its rows as fit, then `notes`, in at most
    `limit` characters. Parts of one noun form a group (every candidate's worst queries); each
    group may take its weight's share of what is left when it starts (`WEIGHTS`; what a short
    group leaves goes to the groups after it), so that a thousand long headlines cannot crowd
    out the gates. A part cut short says how many rows it left out; the rows of the parts
    left out whole are counted on one line before the notes."""
    used = size("\n".join(top + notes)) + 2 + LEFT_OUT_ROOM
    if used > limit:
        raise ValueError(f"a comment of at most {limit:,} characters cannot hold its notes")
    groups: dict[str, list[Part]] = {}
    for part in parts:
        if part.rows:
            groups.setdefault(part.noun, []).append(part)
    lines = list(top)
    dropped: dict[str, int] = {}
    weights = [WEIGHTS.get(noun, 1) for noun in groups]
    for index, (noun, members) in enumerate(groups.items()):
        share = (limit - used) * weights[index] // sum(weights[index:])
        spent, full = 0, False
        for part in members:
            head = size("\n".join(part.head)) + 1
            if full or spent + head + size(part.rows[0]) + 1 + LEFT_OUT_ROOM > share:
                full = True
                dropped[noun] = dropped.get(noun, 0) + len(part.rows)
                continue
            lines += part.head
            spent += head
            kept = 0
            for row in part.rows:
                if spent + size(row) + 1 + LEFT_OUT_ROOM > share:
                    break
                lines.append(row)
                spent += size(row) + 1
                kept += 1
            if kept < len(part.rows):
                more = _left_out(len(part.rows) - kept, noun)
                lines += ["", more]
                spent += size(more) + 2
                full = True
            lines += part.tail + [""]
            spent += size("\n".join(part.tail)) + 1
        used += spent
    if dropped:
        lines += [_left_out_whole(dropped), ""]
    return "\n".join(lines + notes) + "\n"


def _left_out(n: int, noun: str) -> str:
    return f"_… {fmt.count(n, 'more ' + noun)} left out (GitHub's {COMMENT_LIMIT:,} characters)._"


def _left_out_whole(counted: dict[str, int]) -> str:
    said = ", ".join(fmt.count(n, noun) for noun, n in counted.items())
    return (f"_Also left out to stay within GitHub's {COMMENT_LIMIT:,} characters: {said}. "
            "The JUnit report and the JSON document hold every one._")


# --------------------------------------------------------------------------- the parts


def _text(value: object, *, limit: int = CELL_CHARS) -> str:
    """A user's string (or a sentence naming one) for a cell or a line: cut, then escaped."""
    return fmt.markdown_text(fmt.shortened(str(value), limit))


def _table(header: list[str], align: str) -> list[str]:
    return ["| " + " | ".join(header) + " |",
            "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]


def _cells(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _title(gates: list[dict], failed: list[dict], baseline: str) -> str:
    if not gates:
        return (f"## Retrieval comparison against {_text(baseline)}: no gate set "
                "(--fail-on-regression, --budget, --max-harm)")
    if failed:
        return (f"## {FAILED} Retrieval gate failed: {len(failed):,} of "
                f"{fmt.count(len(gates), 'gate')} failed against {_text(baseline)}")
    return (f"## {PASSED} Retrieval gate passed: {'both' if len(gates) == 2 else 'all'} "
            f"{fmt.count(len(gates), 'gate')} held against {_text(baseline)}"
            if len(gates) > 1 else
            f"## {PASSED} Retrieval gate passed: its gate held against {_text(baseline)}")


def _gates_part(gates: list[dict], rows: list[dict], baseline: str) -> Part:
    by = {(row["candidate"], row["metric"]): row for row in rows}
    lines = []
    for gate in sorted(gates, key=lambda g: g["passed"]):  # the failed ones first
        row = by.get((gate["candidate"], gate["metric"]))
        lines.append(_cells([
            PASSED + " held" if gate["passed"] else FAILED + " failed",
            gate["gate"], _text(gate["candidate"]), _text(gate["metric"]),
            fmt.difference(row["difference"], row["low"], row["high"]) if row else fmt.MISSING,
            _text(_why(gate, row), limit=4 * CELL_CHARS)]))
    return Part("gate", ["### Gates", "", *_table(
        ["Result", "Gate", "Candidate", "Metric", "Difference [interval]", "Why"],
        "llllrl")], lines)


def _why(gate: dict, row: dict | None) -> str:
    if gate["gate"] == "regression":
        if row is None:
            return "not compared"
        said = ("significantly worse" if not gate["passed"] else
                "not significantly worse")
        return f"{said} (adjusted p {fmt.p_value(row['p_adjusted'])})"
    return gate.get("sentence", "")


def _worst_parts(document: dict, rows: list[dict], failed: list[dict],
                 baseline: str) -> list[Part]:
    """Each candidate's worst queries on the primary metric, and on each metric a gate of
    that candidate failed on."""
    primary = document.get("primary")
    parts = []
    for candidate in document["candidates"]:
        metrics = [primary] + [g["metric"] for g in failed if g["candidate"] == candidate]
        for metric in dict.fromkeys(m for m in metrics if m):
            row = next((r for r in rows if r["candidate"] == candidate
                        and r["metric"] == metric), None)
            risk = row.get("risk") if row else None
            if not risk or not risk.get("worst"):
                continue
            parts.append(_worst_part(candidate, metric, risk, baseline))
    return parts


def _worst_part(candidate: str, metric: str, risk: dict, baseline: str) -> Part:
    worst = risk["worst"]
    texts = any("text" in loss for loss in worst)
    head = [f"### Queries that got worse: {_text(candidate)} on {_text(metric)}", "",
            f"{fmt.count(risk['losing'], 'query', 'queries')} of {risk['n']:,} score lower "
            f"than {_text(baseline)}; {risk['harmed']:,} "
            f"({fmt.percent_of(risk['harmed'], risk['n'])}) lose more than "
            f"{fmt.figure(risk['harm_delta'])}. "
            + (f"The {len(worst):,} worst:" if len(worst) > 1 else "The worst:"), ""]
    head += _table(["Query"] + (["Question"] if texts else [])
                   + [_text(baseline), _text(candidate), "Difference"],
                   "l" + ("l" if texts else "") + "rrr")
    lines = [_cells([_text(loss["query_id"])]
                    + ([_text(loss.get("text") or "")] if texts else [])
                    + [fmt.figure(loss.get("before")), fmt.figure(loss.get("after")),
                       fmt.signed(loss["difference"])]) for loss in worst]
    return Part("worst query", head, lines)


def _metrics_part(rows: list[dict], baseline: str, document: dict) -> Part:
    lines = [_cells([
        _text(row["candidate"]), _text(row["metric"]), fmt.figure(row["before_mean"]),
        fmt.figure(row["after_mean"]), fmt.difference(row["difference"], row["low"], row["high"]),
        fmt.win_tie_loss(row["wins"], row["ties"], row["losses"]), fmt.p_value(row["p_adjusted"]),
        _reading(row)]) for row in rows]
    head = [f"### Every metric against {_text(baseline)}", "", *_table(
        ["Candidate", "Metric", _text(baseline), "Candidate's", "Difference [interval]",
         "Better / tied / worse", "p adj.", "Reading"], "llrrrrrl")]
    return Part("metric row", head, lines)


def _reading(row: dict) -> str:
    decision = row.get("decision")
    if decision in ("better", "worse"):
        return f"{decision}: unlikely to be noise"
    if decision:
        return _text(decision)
    return "unlikely to be noise" if row.get("significant") else "could be noise"


def _fragility(document: dict) -> str:
    """The fragility check's sentence, then the first verdicts that flip: which, from what to
    what, under which choice."""
    flips = document.get("fragility", [])
    said = _text(document.get("fragility_summary", ""), limit=4 * CELL_CHARS)
    if not flips:
        return said
    shown = [fmt.shortened(f"{f['candidate']} {f['metric']}: {f['verdict']} -> "
                           f"{f['verdict_under_choice']} with {f['convention']} = {f['choice']}",
                           2 * CELL_CHARS) for f in flips[:FLIPS_SHOWN]]
    more = f"; and {len(flips) - FLIPS_SHOWN:,} more" if len(flips) > FLIPS_SHOWN else ""
    return said + " " + fmt.markdown_text("Flips: " + "; ".join(shown) + more + ".")


def _notes(document: dict, version: str) -> list[str]:
    """The conventions, the test and the exit statuses, in words: no link."""
    scored = document["query_set"]["scored"]
    excluded = len(document["query_set"]["excluded"])
    lines = ["### How to read this", ""]
    lines.append(f"- At K = {document['k']} over {scored:,} scored queries ({excluded:,} "
                 "without a relevant id left out), each query weighing the same.")
    conventions = document.get("conventions")
    if conventions:
        try:
            words = "; ".join(Conventions(**conventions).in_words())
        except (TypeError, ValueError):
            words = None
        if words:
            lines.append(f"- Conventions: {fmt.markdown_text(words)}.")
    for key in ("interval", "test", "effect"):
        sentence = (document.get("method") or {}).get(key)
        if sentence:
            lines.append(f"- {fmt.markdown_text(sentence)}")
    lines.append("- A query is harmed when it loses more than the harm threshold on a metric; "
                 "the worst queries are those with the largest losses, ties by query id.")
    lines.append(f"- Exit status: {EXIT_OK} every gate held; {EXIT_GATE} a gate failed; "
                 f"{EXIT_BAD_INPUT} an input was refused; {EXIT_USAGE} a bad flag.")
    if version:
        lines += ["", f"_retrieval-compare {fmt.markdown_text(version)}_"]
    return lines


def error_comment(status: int, said: list[str], *, limit: int = COMMENT_LIMIT) -> str:
    """The comment when the gate could not run (exit `status`, 1 or 2): why, in the last
    lines the command wrote on standard error, each escaped."""
    reason = {EXIT_BAD_INPUT: "an input was refused", EXIT_USAGE: "a bad flag or a missing "
              "input"}.get(status, "it stopped")
    top = [f"## {FAILED} Retrieval gate could not run: {reason} (exit status {status})", ""]
    lines = [f"- {_text(line, limit=4 * CELL_CHARS)}" for line in said[-ERROR_LINES:]
             if line.strip()]
    notes = [f"- Exit status: {EXIT_OK} every gate held; {EXIT_GATE} a gate failed; "
             f"{EXIT_BAD_INPUT} an input was refused; {EXIT_USAGE} a bad flag."]
    return fitted(top, [Part("line", ["What the command said:", ""], lines, table=False)],
                  ["### How to read this", ""] + notes, limit)
