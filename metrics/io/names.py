"""Run names as they look: `plain_name` is the one reading every comparison of names uses
(metrics.vocabulary.identifiers.NAME_RULE), so that a zero-width space, a right-to-left
override or a full-width letter cannot make two runs' names look the same while comparing
different, or swap what two runs are shown under."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from metrics.vocabulary import identifiers as words

# invisible characters outside the format (Cf) and control (Cc) categories: the combining
# grapheme joiner, the Hangul fillers, the blank Braille pattern and the variation selectors
_INVISIBLE = frozenset({0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800,
                        *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)})
_SPACES = re.compile(r"\s+")


def hidden_characters(name: str) -> str:
    """The characters of `name` that show nothing or reorder what is shown, in order."""
    return "".join(c for c in name if _hidden(c))


def _hidden(character: str) -> bool:
    if character.isspace():
        return False
    return unicodedata.category(character) in ("Cf", "Cc") or ord(character) in _INVISIBLE


def plain_name(name: str) -> str:
    """`name` as it looks: NFKC, without invisible and bidirectional control characters,
    white space collapsed and trimmed."""
    text = unicodedata.normalize("NFKC", str(name))
    text = "".join(c for c in text if not _hidden(c))
    return _SPACES.sub(" ", text).strip()


def cleaned_name(name: str) -> tuple[str, str | None]:
    """The name a run is given (`plain_name`, or UNNAMED when nothing is left) and, when it
    differs from `name` by hidden characters, the load report's note saying so."""
    plain = plain_name(name) or words.UNNAMED
    hidden = hidden_characters(name)
    if not hidden:
        return plain, None
    return plain, words.CLEANED.format(name=plain, codes=words.codes(hidden))


def rename_refusal(original: str, wanted: str, others: Iterable[str]) -> str | None:
    """Why `original` may not be shown as `wanted` (None when it may): the new name holds
    hidden characters, or it looks like one of `others` (the other runs' names)."""
    hidden = hidden_characters(wanted)
    if hidden:
        return words.RENAME_HIDDEN.format(original=original, codes=words.codes(hidden))
    key = plain_name(wanted)
    for other in others:
        if plain_name(other) == key:
            return words.RENAME_ALIKE.format(original=original, wanted=wanted, other=other)
    return None


__all__ = ["cleaned_name", "hidden_characters", "plain_name", "rename_refusal"]
