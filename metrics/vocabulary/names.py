"""Measure names as people type them, read into a ``Spec``: one declared measure, the
parameters the name gives it and the cutoff it fixes. Three spellings are read:

- ir_measures' syntax: ``nDCG@10``, ``P(rel=2)@5``, ``nDCG(dcg=exp-log2)@10``,
  ``AP(judged_only=True)``, ``RBP(p=0.8)``, ``ERR@20``, ``Rprec``, ``Bpref``, ``infAP``,
  ``IPrec@0.5`` (the @ of IPrec is its recall level), ``Success@10``, ``NumRelRet``;
- trec_eval's names: ``ndcg_cut_10``, ``map``, ``recip_rank``, ``P_5``, ``recall_100``,
  ``success_10``, ``iprec_at_recall_0.50``, ``bpref``, ``num_ret``...;
- this tool's labels: ``MRR@10``, ``MAP``, ``CP@5``, ``Judged@10``.

A name without a cutoff is read as the conventions in force read it: at the K in force, as
``--metric AP`` always was (AP@K), or over the whole list for RR and AP while the rr and ap
conventions read them so; a cutoff after @ is always read at (``MRR@10`` is RR at rank 10
under either convention). trec_eval's ``map``, ``recip_rank`` and ``ndcg`` read the whole
list, as trec_eval computes them, which ``AP(read=full)``, ``RR(read=full)`` and
``nDCG(read=full)`` write in the first syntax. A parameter that stands for a convention
(``rel``, ``dcg``, ``judged_only``, ``read``) holds for that figure alone and is stated beside
it; every other figure keeps the conventions in force. A name that matches nothing, or a
parameter that does not parse, is a ValueError naming it, with the closest known names.

A figure's label (`Spec.label`) is the inverse, under the same K and conventions: generated
from the declaration and the conventions in force, it carries @K only when the figure is read
at a cutoff, so RR read over the whole list is 'MRR' and never 'MRR@10'. Every table, chart,
export and JSON key names a figure by it. Pure: no numpy.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from metrics.vocabulary.cutoffs import MAX_K
from metrics.vocabulary.measures import (
    CATALOGUE,
    JUDGED_ONLY_WORDS,
    MEASURE_BY_KEY,
    READ,
    READ_WORDS,
    RECALL,
    STANDARD_RECALL,
    Measure,
    Parameter,
)

__all__ = ["NAME_EXAMPLES", "OFFERED_NAMES", "Spec", "default_spec", "distinct", "known_names",
           "label_of", "parse_measure", "parse_measures", "recall_spec", "trec_eval_name"]

# what --help and the dashboard show as names one may type
NAME_EXAMPLES = ("nDCG@10", "P(rel=2)@5", "nDCG(dcg=exp-log2)@10", "AP(judged_only=True)",
                 "RBP(p=0.8)", "ERR@20", "Rprec", "Bpref", "infAP", "IPrec@0.5", "Success@10",
                 "NumRelRet", "ndcg_cut_10", "map", "recip_rank", "P_5",
                 "iprec_at_recall_0.50")


def _written(value: object) -> str:
    """A parameter's value as a name writes it: 2, 0.8, True, exp-log2; a number as short as
    reads back as itself (0.8, not 0.800000; 0.123456789 whole)."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


@dataclass(frozen=True)
class Spec:
    """A measure as a name asks for it. ``parameters`` are the ones the name gives (and the
    defaults of those that do not stand for a convention, such as RBP's p), in the
    declaration's order; ``cutoff`` is the K the name fixes, None for the K in force. A
    cutoff is read at: a name that fixes one (``MRR@10``) reads RR at rank 10 whatever the
    conventions say."""

    measure: Measure
    parameters: tuple[tuple[str, object], ...] = ()
    cutoff: int | None = None

    @property
    def given(self) -> dict[str, object]:
        return dict(self.parameters)

    def parameter(self, name: str) -> Parameter:
        return next(p for p in self.measure.parameters if p.name == name)

    def value(self, name: str) -> object:
        """A parameter's value: the name's, else its own default (None: the convention's)."""
        return self.given.get(name, self.parameter(name).default)

    @property
    def _read(self) -> Parameter | None:
        return next((p for p in self.measure.parameters if p.name == READ), None)

    def reading(self, conventions) -> str | None:
        """Where the figure is read under the conventions in force: "cutoff" (at K, or at the
        cutoff its name fixes) or "full" (over the whole list); None for a measure with no
        read parameter (read at K when `measure.at_k`, else over the whole list)."""
        read = self._read
        if read is None:
            return None
        if READ in self.given:
            return self.given[READ]
        if self.cutoff is not None:
            return "cutoff"
        return getattr(conventions, read.convention) if read.convention else read.default

    def reads_whole(self, conventions) -> bool:
        """Read over the whole list whatever K is, under the conventions in force: a measure
        without a cutoff (Rprec, Bpref...), or AP, RR and nDCG read over the full list, by
        their name or by the convention behind it."""
        return not self.measure.at_k or self.reading(conventions) == "full"

    @property
    def whole_by_itself(self) -> bool:
        """Read over the whole list by a parameter no convention stands for (nDCG's
        read=full): the kernel reads it so on its own, as it reads RR and AP by their
        conventions."""
        read = self._read
        return read is not None and not read.convention and self.given.get(READ) == "full"

    def name(self, *, summary: bool = True) -> str:
        """The measure's key (its summary key for a mean) with every parameter it holds: 'MRR',
        'P(rel=2)', 'RBP(p=0.8)', 'IPrec@0.5', 'RR(read=full)'. Its identity among figures
        (keys, a sweep's columns, the saved long table); what people read is `label`."""
        return self._spelled(self.parameters, summary=summary)

    def _spelled(self, parameters, *, summary: bool) -> str:
        base = self.measure.summary_key if summary else self.measure.key
        shown = [(n, v) for n, v in parameters if n != RECALL.name]
        if shown:
            base += "(" + ",".join(f"{n}={_written(v)}" for n, v in shown) + ")"
        if RECALL.name in self.given:
            base += f"@{_written(self.given[RECALL.name])}"
        return base

    def label(self, k: int | str, conventions, *, summary: bool = True) -> str:
        """The figure's one name under K and the conventions in force, in every table, chart,
        export and JSON key: its name, the parameters that set something other than the
        conventions, and @K only when it is read at a cutoff (the cutoff its name fixes, else
        K). 'MRR@10' (RR read at K), 'MRR' (RR read over the full list under rr=full),
        'P(rel=2)@5', 'Rprec', 'IPrec@0.5'. Where it is read is said by the @ alone, with
        one exception: a figure read over the whole list where its bare name would be read
        at K (trec_eval's recip_rank, map and ndcg while RR and AP are read at K) states
        read=full ('MRR(read=full)', 'nDCG(read=full)'). `parse_measure` reads a label back
        as the same figure under the same K and conventions."""
        settled = self.settled(k, conventions)
        kept = tuple((n, v) for n, v in settled.parameters if n != READ or v == "full")
        name = settled._spelled(kept, summary=summary)
        if settled.reads_whole(conventions):
            return name
        return f"{name}@{settled.k(k)}"

    @property
    def key(self) -> str:
        """Its identity among an evaluation's figures: the per-query name, with the cutoff
        when the name fixes one ('P', 'P(rel=2)', 'nDCG@10')."""
        name = self.name(summary=False)
        return name if self.cutoff is None else f"{name}@{self.cutoff}"

    def k(self, k: int) -> int:
        """The K it is read at when K is in force."""
        return k if self.cutoff is None else self.cutoff

    def settled(self, k: int | str, conventions) -> Spec:
        """The same figure written as short as it reads under K and the conventions: a
        cutoff equal to K, and a parameter equal to its convention (or to a default a name
        never states), are dropped. A cutoff is read at even when dropped: RR at rank K while
        the conventions read RR whole keeps read=cutoff."""
        parameters = self.parameters
        if self.cutoff is not None and self._read is not None and READ not in self.given:
            parameters = _merged(self.measure, parameters, {READ: "cutoff"})
        kept = tuple((name, value) for name, value in parameters
                     if not self._as_in_force(name, value, conventions))
        cutoff = None if self.cutoff == k or self.reads_whole(conventions) else self.cutoff
        return dataclasses.replace(self, parameters=kept, cutoff=cutoff)

    def _as_in_force(self, name: str, value: object, conventions) -> bool:
        parameter = self.parameter(name)
        if not parameter.convention:
            return parameter.unstated and value == parameter.default
        return parameter.convention_value(value) == getattr(conventions, parameter.convention)

    def conventions(self, conventions):
        """The conventions this figure is scored under: those in force, with its own
        parameters' conventions set (a cutoff its name fixes reads RR and AP at it)."""
        changes = {}
        for name, value in self.parameters:
            parameter = self.parameter(name)
            if parameter.convention:
                changes[parameter.convention] = parameter.convention_value(value)
        read = self._read
        if read is not None and read.convention and self.reading(conventions) == "cutoff":
            changes[read.convention] = "cutoff"
        return dataclasses.replace(conventions, **changes) if changes else conventions

    def words(self, conventions) -> list[str]:
        """What its parameters say beside it, those that differ from the conventions in
        force and those of its own (p, the recall level)."""
        said = []
        settled = self.settled("K", conventions)
        for name, value in settled.parameters:
            parameter = self.parameter(name)
            if name == READ and value == "cutoff" and settled.cutoff is not None:
                shown = f"at rank {settled.cutoff}"  # the cutoff its name fixes, not K
            elif name == READ:
                shown = READ_WORDS[value]
            else:
                shown = JUDGED_ONLY_WORDS[value] if name == "judged_only" else _written(value)
            said.append(parameter.words.format(value=shown))
        return said


def _merged(measure: Measure, parameters, more: dict[str, object]
            ) -> tuple[tuple[str, object], ...]:
    """`parameters` with `more` added, in the declaration's order."""
    values = dict(parameters) | more
    return tuple((p.name, values[p.name]) for p in measure.parameters if p.name in values)


def label_of(measure: Measure | str, k: int | str, conventions, *,
             summary: bool = True) -> str:
    """A measure's label at its defaults under K and the conventions: `Spec.label` of its
    default spec ('MRR@10', or 'MRR' while RR is read over the full list)."""
    return default_spec(measure).label(k, conventions, summary=summary)


def _offered() -> tuple[str, ...]:
    """One name per measure scored on request, at its own defaults: what a picker offers (a
    measure another one brings, RBP's residual, comes with it; an interpolated precision at
    the middle recall level)."""
    brought = {key for m in CATALOGUE for key in m.brings}
    names = []
    for measure in CATALOGUE:
        if measure.shown or measure.key in brought:
            continue
        at = f"@{_written(STANDARD_RECALL[len(STANDARD_RECALL) // 2])}" if (
            RECALL in measure.parameters) else ""
        names.append(default_spec(measure).name(summary=False) + at)
    return tuple(names)


def recall_spec(level: float) -> Spec:
    """The interpolated precision at one recall level (IPrec@0.5)."""
    measure = next(m for m in CATALOGUE if RECALL in m.parameters)
    return Spec(measure, ((RECALL.name, float(level)),))


def default_spec(measure: Measure | str) -> Spec:
    """A measure with no parameter given: the conventions in force, its own defaults."""
    measure = MEASURE_BY_KEY[measure] if isinstance(measure, str) else measure
    return Spec(measure, _own_defaults(measure))


def _own_defaults(measure: Measure) -> tuple[tuple[str, object], ...]:
    """The defaults a name states though nobody gave them (RBP's p): those of the parameters
    no convention stands for, but a default a name never states (nDCG's read=cutoff)."""
    return tuple((p.name, p.default) for p in measure.parameters
                 if not p.convention and p.default is not None and not p.unstated)


# --------------------------------------------------------------------------- reading names

_SYNTAX = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)\s*(?:\((?P<parameters>[^()]*)\))?"
                     r"\s*(?:@\s*(?P<at>\S+))?$")
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}


def _trec_eval_patterns() -> list[tuple[re.Pattern, Measure, dict]]:
    """trec_eval's spellings, read from the declarations: 'P_{k}' -> P_(\\d+), 'map' (AP read
    over the full list). Hit and Success share success_K: the name reads as Success, whose
    trec_eval name it is; later declarations are tried first for that reason."""
    patterns = []
    for measure in reversed(CATALOGUE):
        if measure.trec_eval:
            pattern = re.escape(measure.trec_eval)
            pattern = pattern.replace(re.escape("{k}"), r"(?P<k>\d+)")
            pattern = pattern.replace(re.escape("{recall:.2f}"), r"(?P<recall>\d*\.?\d+)")
            patterns.append((re.compile(f"^{pattern}$"), measure, {}))
        if measure.trec_eval_full:
            patterns.append((re.compile(f"^{re.escape(measure.trec_eval_full)}$"), measure,
                             {"read": "full"}))
    return patterns


_TREC_EVAL = _trec_eval_patterns()


def known_names(*, trec_eval: bool = True) -> list[str]:
    """Every spelling a name may start with, and (unless not `trec_eval`) an example of each
    of trec_eval's patterns: what a wrong name is compared with."""
    names = [name for m in CATALOGUE for name in m.spellings]
    if trec_eval:
        names += [template.format(k=10, recall=0.5) for measure in CATALOGUE
                  for template in (measure.trec_eval, measure.trec_eval_full) if template]
    return list(dict.fromkeys(names))


def _closest(name: str, rest: str = "") -> str:
    """'; did you mean X, Y?' from the known names closest to `name` (case aside), each with
    the rest of what was written (its parameters and cutoff; trec_eval's names only when
    nothing follows, as they carry their own)."""
    lowered: dict[str, str] = {}
    for known in known_names(trec_eval=not rest):
        lowered.setdefault(known.lower(), known)
    found = difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)
    return f"; did you mean {', '.join(lowered[f] + rest for f in found)}?" if found else ""


def _unknown(text: str, name: str, rest: str = "") -> ValueError:
    measures = ", ".join(m.ir_measures or m.key for m in CATALOGUE)
    return ValueError(f"unknown metric {text!r}{_closest(name, rest) or ';'} known measures: "
                      f"{measures}; trec_eval's names (ndcg_cut_10, map, P_5...) are read too")


def _measure_named(name: str) -> Measure | None:
    """The measure a name spells, case aside when that leaves one."""
    for measure in CATALOGUE:
        if name in measure.spellings:
            return measure
    folded = [m for m in CATALOGUE if name.lower() in {s.lower() for s in m.spellings}]
    return folded[0] if len(folded) == 1 else None


def _value(parameter: Parameter, written: str, text: str) -> object:
    """One parameter's value from its text, checked against the declaration."""
    def refused() -> ValueError:
        return ValueError(f"metric {text!r}: {parameter.name} must be {parameter.accepted}, "
                          f"got {written!r}")

    if parameter.kind is bool:
        if written.lower() not in _BOOLEANS:
            raise refused()
        return _BOOLEANS[written.lower()]
    if parameter.kind is str:
        if written not in parameter.choices:
            raise refused()
        return written
    try:
        value = parameter.kind(written)
    except ValueError:
        raise refused() from None
    if isinstance(value, float) and not math.isfinite(value):
        raise refused()
    if parameter.low is not None:
        below = value <= parameter.low if parameter.strict else value < parameter.low
        above = parameter.high is not None and (
            value >= parameter.high if parameter.strict else value > parameter.high)
        if below or above:
            raise refused()
    return value


def _parameters(measure: Measure, written: str, text: str) -> dict[str, object]:
    given: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in written.split(","))):
        name, equals, value = (piece.strip() for piece in part.partition("="))
        declared = {p.name: p for p in measure.parameters}
        if not equals or name not in declared:
            takes = ", ".join(declared) or "none"
            close = difflib.get_close_matches(name, list(declared), n=1, cutoff=0.6)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise ValueError(f"metric {text!r}: {measure.key} has no parameter "
                             f"{name!r}{guess}; its parameters: {takes}")
        if name in given:
            raise ValueError(f"metric {text!r}: {name} is given twice")
        given[name] = _value(declared[name], value, text)
    return given


def _cutoff(measure: Measure, at: str, text: str) -> int:
    try:
        k = int(at)
    except ValueError:
        k = 0
    if not 1 <= k <= MAX_K:
        raise ValueError(f"metric {text!r}: the cutoff after @ must be an integer from 1 to "
                         f"{MAX_K:,}, got {at!r}")
    return k


def _spec(measure: Measure, given: dict[str, object], at: str | None, text: str) -> Spec:
    """The spec of a measure, its parameters and what follows its @."""
    if RECALL in measure.parameters:  # its @ is the recall level, not a cutoff
        if at is not None:
            if RECALL.name in given:
                raise ValueError(f"metric {text!r}: the recall level is given twice")
            given[RECALL.name] = _value(RECALL, at, text)
        if RECALL.name not in given:
            levels = ", ".join(f"IPrec@{level:g}" for level in STANDARD_RECALL[::5])
            raise ValueError(f"metric {text!r}: {measure.key} needs a recall level, e.g. "
                             f"{levels}")
        at = None
    cutoff = None
    if at is not None:
        if not measure.at_k or given.get(READ) == "full":
            raise ValueError(f"metric {text!r}: {measure.key} reads the whole list, so it "
                             "takes no cutoff after @")
        cutoff = _cutoff(measure, at, text)
    return Spec(measure, _merged(measure, _own_defaults(measure), given), cutoff)


OFFERED_NAMES = _offered()


def parse_measure(text: object) -> Spec:
    """A name in any of the three spellings -> its Spec; ValueError naming what is wrong and
    the closest known names."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a metric name must be text such as 'nDCG@10', got {text!r}")
    written = text.strip()
    for pattern, measure, given in _TREC_EVAL:
        found = pattern.match(written)
        if found:
            groups = found.groupdict()
            given = dict(given)
            if "recall" in groups:
                given[RECALL.name] = _value(RECALL, groups["recall"], text)
            return _spec(measure, given, groups.get("k"), text)
    found = _SYNTAX.match(written)
    if found is None:
        head = re.split(r"[(@\s]", written, maxsplit=1)[0]
        raise _unknown(text, head or written)
    measure = _measure_named(found["name"])
    if measure is None:
        raise _unknown(text, found["name"], written[len(found["name"]):])
    given = _parameters(measure, found["parameters"] or "", text)
    return _spec(measure, given, found["at"], text)


def parse_measures(texts: Iterable[object]) -> tuple[Spec, ...]:
    """Several names, each read; the same figure asked twice is kept once."""
    return distinct(parse_measure(text) for text in texts)


def distinct(specs: Iterable[Spec]) -> tuple[Spec, ...]:
    """The specs in order, each figure once."""
    return tuple(dict.fromkeys(specs))


def trec_eval_name(spec: Spec, k: int, conventions) -> str | None:
    """trec_eval's name of the figure at K under the conventions in force, or None when
    trec_eval computes no such figure (F1, CP, ERR, RBP, RR at a cutoff, a measure with its
    own relevance level...)."""
    measure = spec.measure
    settled = spec.settled(k, conventions)
    if set(settled.given) - {READ, RECALL.name}:
        return None
    reading = settled.conventions(conventions)
    if any(getattr(reading, field) != value for field, value in measure.trec_eval_needs):
        return None
    if measure.at_k and settled.reads_whole(conventions):  # recip_rank, map, ndcg
        return measure.trec_eval_full or None
    if not measure.trec_eval:
        return None
    return measure.trec_eval.format(k=settled.k(k), recall=settled.given.get(RECALL.name, 0.0))
