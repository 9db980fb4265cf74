"""The comparability rule: figures set side by side only over the same query set and labels,
at the same K, under the same conventions.

Works on a `Basis` (what a figure depends on), so a snapshot and a live Evaluation are checked
alike. Every convention is read from `dataclasses.fields(Conventions)` and the command-line
flag that sets it from `metrics.vocabulary.flag`, so a new convention is checked without an
edit here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from metrics import vocabulary
from metrics.core.evaluate import Evaluation
from metrics.snapshot.fingerprint import fingerprint_qrels, short
from metrics.vocabulary.conventions import Conventions

__all__ = ["CONVENTION_FIELDS", "Basis", "differences", "evaluation_basis", "refusal"]

CONVENTION_FIELDS = tuple(f.name for f in dataclasses.fields(Conventions))


@dataclass(frozen=True)
class Basis:
    """What a figure depends on besides the runs: K, the conventions, the query set."""

    k: int
    conventions: Conventions
    fingerprint: str  # of the qrels (fingerprint_qrels)


def evaluation_basis(evaluation: Evaluation) -> Basis:
    return Basis(evaluation.k, evaluation.conventions, fingerprint_qrels(evaluation.qrels))


def _flag(field: str, flags: bool) -> str:
    flag = vocabulary.flag(field) if flags else ""
    return f" ({flag})" if flag else ""


def differences(first: Basis, second: Basis, names: tuple[str, str], *, flags: bool = True
                ) -> list[str]:
    """One sentence per difference in query-set fingerprint, K or a convention, naming both
    values as `names` call the two ("K differs: 5 in the snapshot, 10 in this evaluation
    (--k)"); empty when comparable. ``flags`` adds the command-line flag that sets each."""
    one, two = names
    problems = []
    if first.fingerprint != second.fingerprint:
        problems.append(
            f"the query set or its labels differ: qrels fingerprint {short(first.fingerprint)} "
            f"in {one}, {short(second.fingerprint)} in {two}"
        )
    if first.k != second.k:
        problems.append(f"K differs: {first.k} in {one}, {second.k} in {two}{_flag('k', flags)}")
    for field in CONVENTION_FIELDS:
        a, b = getattr(first.conventions, field), getattr(second.conventions, field)
        if a != b:
            problems.append(
                f"convention {field} differs: {a!r} in {one}, {b!r} in {two}{_flag(field, flags)}"
            )
    return problems


def refusal(what: str, problems: list[str], why: str) -> str:
    """The ValueError text: what cannot be done, every problem, and the rule."""
    return f"{what}: " + "; ".join(problems) + f". {why}"
