"""The one writer of a pull request's Markdown: `compare --format markdown` (and
`python -m metrics ci-step`, the Action's comment and job summary), the dashboard's summary
for a pull request (the Export page) and `python -m dashboard report --format markdown`.

`comment_markdown` is a pure function of compare's JSON document (`metrics.outputs.documents`)
and, when the writer has it, the evaluation: the verdict of the gates, the headline, each gate
with its figures, each candidate's worst queries on the primary metric and on every metric a
gate failed on (the id, the question when a queries file was given, the figure before and
after), every metric against the baseline (with its effect size), every run's figures with
their intervals, the fragility check when it ran, and a note of the query set (its
fingerprint), the conventions, the test and, when gates were set, the exit statuses, with no
link. `summary_markdown` builds that document from what the dashboard holds (an evaluation,
its comparison, the queries, the gates when there are any) as compare builds it, so the two
front ends write the same text for the same inputs.

Every string from the inputs (a run's name, a query id, a question) is written by
`format.markdown_text`: no pipe leaves its cell, no backtick opens code, no tag, link or
mention is made. A long one is cut first (`CELL_CHARS`). A metric's name is the vocabulary's
(`Spec.label`): written the same way, except that the @ of its cutoff stays as it is ('nDCG@10'
is neither a mention nor an address on GitHub).

GitHub refuses a comment longer than 65,536 characters (`COMMENT_LIMIT`): the comment is built
part by part, each part's rows while they fit, and what does not fit is left out with a line
counting it; the conventions' note and the verdict are always there. A part's rows are written
(and escaped) only when they are reached: a part that cannot start is only counted, so a
comparison of thousands of candidates costs what the comment holds, not what it leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from metrics.core.compare import metric_label
from metrics.core.evaluate import Evaluation
from metrics.io import Queries
from metrics.outputs.documents import add_risk, comparison_dict
from metrics.outputs.report import headline_sentences
from metrics.snapshot.fingerprint import fingerprint_qrels
from metrics.stats.comparison import Comparison
from metrics.vocabulary import format as fmt
from metrics.vocabulary.budget import BUDGET_FLAG
from metrics.vocabulary.comparisons import DECISIONS, WIN_TIE_LOSS
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.gates import (
    EXIT_BAD_INPUT,
    EXIT_GATE,
    EXIT_OK,
    EXIT_USAGE,
    REGRESSION_FLAG,
)
from metrics.vocabulary.headline import PRIMARY
from metrics.vocabulary.limits import COMMENT_LIMIT
from metrics.vocabulary.risk import HARM_DELTA, HARM_FLAG

FLIPS_SHOWN = 5  # verdicts that flip, named in the comment (the JUnit report names each)
ERROR_LINES = 20  # of what the command said on standard error, in a comment on a failed run
CELL_CHARS = 120  # of a user's string in a cell or a sentence, before it is escaped
LEFT_OUT_ROOM = 400  # kept for the line that counts what was left out
PASSED, FAILED = "✅", "❌"
# how much of a comment each kind of part may take, against the others, when all cannot fit
WEIGHTS = {"gate": 3, "worst query": 3, "metric row": 2, "score row": 2,
           "headline sentence": 1, "fragility line": 1, "line": 1}


def summary_markdown(evaluation: Evaluation, comparison: Comparison | None = None, *,
                     primary: str = PRIMARY, headlines: Sequence[str] | None = None,
                     gates: Sequence[dict[str, Any]] | None = None,
                     harm_delta: float = HARM_DELTA, queries: Queries | None = None,
                     limit: int = COMMENT_LIMIT, version: str = "") -> str:
    """The pull request's Markdown from what a front end holds: `comment_markdown` of
    `summary_document` (the dashboard's download, `python -m dashboard report --format
    markdown`); the same text as `compare --format markdown` for the same inputs."""
    document = summary_document(evaluation, comparison, primary=primary, headlines=headlines,
                                gates=gates, harm_delta=harm_delta, queries=queries)
    return comment_markdown(document, evaluation=evaluation, limit=limit, version=version)


def summary_document(evaluation: Evaluation, comparison: Comparison | None = None, *,
                     primary: str = PRIMARY, headlines: Sequence[str] | None = None,
                     gates: Sequence[dict[str, Any]] | None = None,
                     harm_delta: float = HARM_DELTA, queries: Queries | None = None
                     ) -> dict[str, Any]:
    """What `comment_markdown` reads, as compare's JSON document holds it: the comparison's
    rows (`comparison_dict`) with each test's risk and worst queries (`add_risk`, their
    questions from `queries`), the primary metric and its headlines (given, or each
    candidate's sentence on the primary metric as the report writes it), and the gates when
    given. Without a comparison: K, the conventions and the query set."""
    if comparison is None:
        return {"k": evaluation.k, "conventions": evaluation.conventions.as_dict(),
                "query_set": {"scored": len(evaluation.scored_ids),
                              "excluded": evaluation.excluded_ids}}
    document = comparison_dict(evaluation, comparison)
    label = metric_label(primary, evaluation.k, evaluation.conventions)
    # a baseline of a snapshot's figures is no run of the evaluation: its headline reads the
    # comparison's own test of the primary figure, or there is none (as the report's)
    live = comparison.baseline in evaluation.run_names or label in comparison.metrics
    said = (list(headlines) if headlines is not None
            else list(headline_sentences(evaluation, comparison, primary)) if live else [])
    document |= {"primary": label, "headline": " ".join(said), "headlines": said}
    add_risk(document, comparison, harm_delta, queries)
    if gates is not None:
        document["gates"] = list(gates)
    return document


def comment_markdown(document: dict[str, Any], *, evaluation: Evaluation | None = None,
                     limit: int = COMMENT_LIMIT, version: str = "") -> str:
    """compare's JSON document (with its "gates") as a pull request's comment of at most
    `limit` characters (counted as GitHub counts them, in UTF-16 units); with the
    evaluation, every run's figures with their intervals and the query set's fingerprint."""
    scores = [] if evaluation is None else [_scores_part(evaluation)]
    baseline = document.get("baseline")
    if baseline is None:  # no comparison: the scores alone
        top = [f"## Retrieval scores at K = {document['k']}", ""]
        return fitted(top, scores, _notes(document, version, evaluation), limit)
    rows = [row for row in document.get("comparisons", [])
            if row["baseline"] == baseline and "slice" not in row]
    by = {(row["candidate"], row["metric"]): row for row in rows}
    gates = document.get("gates")
    failed = [gate for gate in gates or [] if not gate["passed"]]
    top = [_title(gates, failed, baseline), ""]
    sentences = document.get("headlines", [])
    parts = [
        Part("headline sentence", ["**Headline.**", ""],
             Rows(len(sentences), lambda i: f"- {_text(sentences[i], limit=4 * CELL_CHARS)}"),
             table=False),
        _gates_part(gates or [], by),
        *_worst_parts(document, by, failed, baseline),
        _metrics_part(rows, baseline),
        *scores,
    ]
    if "fragility_summary" in document:
        parts.append(Part("fragility line", ["### Fragility", ""],
                          [_fragility(document)], table=False))
    return fitted(top, parts, _notes(document, version, evaluation), limit)


# --------------------------------------------------------------------------- fitting


class Rows(Sequence[str]):
    """`n` rows, the i-th written by `write(i)` when it is read: the fitting reads only the
    rows it keeps (and the first that does not fit), so nothing left out is escaped."""

    def __init__(self, n: int, write: Callable[[int], str]):
        self.n, self.write = n, write

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self.write(i) for i in range(*index.indices(self.n))]
        if not -self.n <= index < self.n:
            raise IndexError(index)
        return self.write(index % self.n)

    def __iter__(self) -> Iterator[str]:
        return (self.write(i) for i in range(self.n))


@dataclass
class Part:
    """A section: its title lines (or the function that writes them, called only when the
    part starts), then rows that may be left out from the end (a table's rows, a list's
    items; a list or `Rows`), counted as `noun`s."""

    noun: str
    head: list[str] | Callable[[], list[str]]
    rows: Sequence[str]
    table: bool = True
    tail: list[str] = field(default_factory=list)

    def title(self) -> list[str]:
        return self.head() if callable(self.head) else self.head


def size(text: str) -> int:
    """Characters as GitHub counts a comment's (UTF-16 code units: an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def fitted(top: list[str], parts: list[Part], notes: list[str], limit: int) -> str:
    """`top`, then each part's title and as many of its rows as fit, then `notes`, in at most
    `limit` characters. Parts of one noun form a group (every candidate's worst queries); each
    group may take its weight's share of what is left when it starts (`WEIGHTS`; what a short
    group leaves goes to the groups after it), so that a thousand long headlines cannot crowd
    out the gates. A part cut short says how many rows it left out; the rows of the parts
    left out whole are counted (never written) on one line before the notes."""
    used = size("\n".join(top + notes)) + 2 + LEFT_OUT_ROOM
    if used > limit:
        raise ValueError(f"a comment of at most {limit:,} characters cannot hold its notes")
    groups: dict[str, list[Part]] = {}
    for part in parts:
        if len(part.rows):
            groups.setdefault(part.noun, []).append(part)
    lines = list(top)
    dropped: dict[str, int] = {}
    weights = [WEIGHTS.get(noun, 1) for noun in groups]
    for index, (noun, members) in enumerate(groups.items()):
        share = (limit - used) * weights[index] // sum(weights[index:])
        spent, full = 0, False
        for part in members:
            if full:
                dropped[noun] = dropped.get(noun, 0) + len(part.rows)
                continue
            title = part.title()
            head = size("\n".join(title)) + 1
            if spent + head + size(part.rows[0]) + 1 + LEFT_OUT_ROOM > share:
                full = True
                dropped[noun] = dropped.get(noun, 0) + len(part.rows)
                continue
            lines += title
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


_CUTOFF = re.compile(r"(?<=\w)@(\d+)$")


def _metric(label: object) -> str:
    """A metric's name (the vocabulary's label) escaped as `_text` escapes, its cutoff's @ as
    it is: after a letter and before digits only, it makes no mention and no address."""
    text = fmt.shortened(str(label), CELL_CHARS)
    found = _CUTOFF.search(text)
    if found is None:
        return fmt.markdown_text(text)
    return fmt.markdown_text(text[:found.start()]) + "@" + found.group(1)


def _table(header: list[str], align: str) -> list[str]:
    return ["| " + " | ".join(header) + " |",
            "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]


def _cells(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _title(gates: list[dict] | None, failed: list[dict], baseline: str) -> str:
    if gates is None:  # a front end that sets no gate (the dashboard)
        return f"## Retrieval comparison against {_text(baseline)}"
    if not gates:
        return (f"## Retrieval comparison against {_text(baseline)}: no gate set "
                f"({REGRESSION_FLAG}, {BUDGET_FLAG}, {HARM_FLAG})")
    if failed:
        return (f"## {FAILED} Retrieval gate failed: {len(failed):,} of "
                f"{fmt.count(len(gates), 'gate')} failed against {_text(baseline)}")
    return (f"## {PASSED} Retrieval gate passed: {'both' if len(gates) == 2 else 'all'} "
            f"{fmt.count(len(gates), 'gate')} held against {_text(baseline)}"
            if len(gates) > 1 else
            f"## {PASSED} Retrieval gate passed: its gate held against {_text(baseline)}")


def _gates_part(gates: list[dict], by: dict[tuple[str, str], dict]) -> Part:
    ordered = sorted(gates, key=lambda g: g["passed"])  # the failed ones first

    def line(i: int) -> str:
        gate = ordered[i]
        row = by.get((gate["candidate"], gate["metric"]))
        return _cells([
            PASSED + " held" if gate["passed"] else FAILED + " failed",
            gate["gate"], _text(gate["candidate"]), _metric(gate["metric"]),
            fmt.difference(row["difference"], row["low"], row["high"]) if row else fmt.MISSING,
            _text(_why(gate, row), limit=4 * CELL_CHARS)])

    return Part("gate", ["### Gates", "", *_table(
        ["Result", "Gate", "Candidate", "Metric", "Difference [interval]", "Why"],
        "llllrl")], Rows(len(ordered), line))


def _why(gate: dict, row: dict | None) -> str:
    if gate["gate"] == "regression":
        if row is None:
            return "not compared"
        said = ("significantly worse" if not gate["passed"] else
                "not significantly worse")
        return f"{said} (adjusted p {fmt.p_value(row['p_adjusted'])})"
    return gate.get("sentence", "")


def _worst_parts(document: dict, by: dict[tuple[str, str], dict], failed: list[dict],
                 baseline: str) -> list[Part]:
    """Each candidate's worst queries on the primary metric, and on each metric a gate of
    that candidate failed on (`by`: the baseline's rows by candidate and metric)."""
    primary = document.get("primary")
    failed_on: dict[str, list[str]] = {}
    for gate in failed:
        failed_on.setdefault(gate["candidate"], []).append(gate["metric"])
    parts = []
    for candidate in document["candidates"]:
        metrics = [primary] + failed_on.get(candidate, [])
        for metric in dict.fromkeys(m for m in metrics if m):
            row = by.get((candidate, metric))
            risk = row.get("risk") if row else None
            if not risk or not risk.get("worst"):
                continue
            parts.append(_worst_part(candidate, metric, risk, baseline))
    return parts


def _worst_part(candidate: str, metric: str, risk: dict, baseline: str) -> Part:
    worst = risk["worst"]

    def with_texts() -> bool:  # read when the part starts: a part only counted needs none
        return any("text" in loss for loss in worst)

    def head() -> list[str]:
        texts = with_texts()
        return [f"### Queries that got worse: {_text(candidate)} on {_metric(metric)}", "",
                f"{fmt.count(risk['losing'], 'query', 'queries')} of {risk['n']:,} score "
                f"lower than {_text(baseline)}; {risk['harmed']:,} "
                f"({fmt.percent_of(risk['harmed'], risk['n'])}) lose more than "
                f"{fmt.figure(risk['harm_delta'])}. "
                + (f"The {len(worst):,} worst:" if len(worst) > 1 else "The worst:"), "",
                *_table(["Query"] + (["Question"] if texts else [])
                        + [_text(baseline), _text(candidate), "Difference"],
                        "l" + ("l" if texts else "") + "rrr")]

    def line(i: int) -> str:
        loss = worst[i]
        return _cells([_text(loss["query_id"])]
                      + ([_text(loss.get("text") or "")] if with_texts() else [])
                      + [fmt.figure(loss.get("before")), fmt.figure(loss.get("after")),
                         fmt.signed(loss["difference"])])

    return Part("worst query", head, Rows(len(worst), line))


def _metrics_part(rows: list[dict], baseline: str) -> Part:
    def line(i: int) -> str:
        row = rows[i]
        return _cells([
            _text(row["candidate"]), _metric(row["metric"]), fmt.figure(row["before_mean"]),
            fmt.figure(row["after_mean"]),
            fmt.difference(row["difference"], row["low"], row["high"]),
            fmt.win_tie_loss(row["wins"], row["ties"], row["losses"]),
            fmt.p_value(row["p_adjusted"]), fmt.effect(row.get("effect_size")), _reading(row)])

    head = [f"### Every metric against {_text(baseline)}", "", *_table(
        ["Candidate", "Metric", _text(baseline), "Candidate's", "Difference [interval]",
         WIN_TIE_LOSS, "p adj.", "Effect size", "Reading"], "llrrrrrrl")]
    return Part("metric row", head, Rows(len(rows), line))


def _scores_part(evaluation: Evaluation) -> Part:
    """Every run's figures at K, metrics down and runs across, "mean [low, high]"."""
    k, c = evaluation.k, evaluation.conventions
    specs, runs = evaluation.summary_specs, evaluation.runs
    over = (_text(evaluation.scope, limit=4 * CELL_CHARS) if evaluation.scope
            else f"over {len(evaluation.scored_ids):,} scored queries")
    head = ["### Scores of every run", "",
            f"At K = {k} {over} ({len(evaluation.excluded_ids):,} excluded: no relevant id), "
            "each weighing the same; mean [low, high]. "
            + fmt.markdown_text(c.sentences()["interval"]), "",
            *_table(["Metric"] + [_text(name) for name in evaluation.run_names],
                    "l" + "r" * len(runs))]

    def line(i: int) -> str:
        spec = specs[i]
        figures = [run.summary[spec.key] for run in runs]
        return _cells([_metric(spec.label(k, c))]
                      + [fmt.interval(f.mean, f.low, f.high) for f in figures])

    return Part("score row", head, Rows(len(specs), line))


def _reading(row: dict) -> str:
    """The test's decision in words: better or worse, unlikely to be noise; no significant
    difference, could be noise; a minimum effect's verdicts as the vocabulary words them."""
    decision = row.get("decision")
    if decision in ("better", "worse"):
        return f"{decision}: unlikely to be noise"
    if decision == "no_difference" or (not decision and not row.get("significant")):
        return "could be noise"
    if decision:
        return fmt.markdown_text(DECISIONS.get(decision, decision))
    return "unlikely to be noise"


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


def _notes(document: dict, version: str, evaluation: Evaluation | None = None) -> list[str]:
    """The query set, the conventions, the test and (when gates were set) the exit statuses,
    in words: no link."""
    scored = document["query_set"]["scored"]
    excluded = len(document["query_set"]["excluded"])
    lines = ["### How to read this", ""]
    lines.append(f"- At K = {document['k']} over {scored:,} scored queries ({excluded:,} "
                 "without a relevant id left out), each query weighing the same.")
    if evaluation is not None:
        lines.append(f"- Query set `{fingerprint_qrels(evaluation.qrels)}` "
                     f"({len(evaluation.query_set.query_ids):,} queries).")
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
    if "baseline" in document:
        lines.append("- A query is harmed when it loses more than the harm threshold on a "
                     "metric; the worst queries are those with the largest losses, ties by "
                     "query id.")
    if "gates" in document:
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
