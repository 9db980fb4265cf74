"""How every figure is written for people, in one place: the command line, the dashboard and
the report print numbers, intervals, differences, p-values, counts and confidence levels
through these functions and no others.
"""

from __future__ import annotations

import math
import re
import unicodedata

DECIMALS = 3  # three decimals wherever a figure is shown
MISSING = "—"  # a figure that does not exist (no scored query, an undefined effect size)
# a figure the data leave without a value (a kappa with one class, a rate with no
# denominator): the engine holds nan and the reason; JSON writes null beside the reason
UNDEFINED = "undefined"


def _missing(value: float | None) -> bool:
    return value is None or not math.isfinite(value)


def _shown(value: float) -> float:
    # rounded as printed, and a value that rounds to zero is zero: -0.0001 is written 0.000,
    # never '-0.000', a sign without a difference behind it
    return round(value, DECIMALS) + 0.0


def figure(value: float | None) -> str:
    """'0.333'; '—' for a figure that does not exist."""
    return MISSING if _missing(value) else f"{_shown(value):.{DECIMALS}f}"


def zero_as_written(value: float | None) -> float | None:
    """The value, or exactly 0.0 when it is written as zero (`_shown`'s rule, the one
    `signed` follows): a table that formats its own numbers ('%+.3f' in the dashboard's
    columns) then writes '+0.000' as `signed` does, never '-0.000'. Missing values stay as
    they are."""
    if _missing(value):
        return value
    return 0.0 if _shown(value) == 0 else value


def signed(value: float | None) -> str:
    """'+0.135', '-0.060', '+0.000' for one that rounds to zero: a difference."""
    return MISSING if _missing(value) else f"{_shown(value):+.{DECIMALS}f}"


def interval(mean: float | None, low: float | None, high: float | None, *,
             why: str = "") -> str:
    """'0.333 [0.199, 0.467]'; with `why` (the reason a figure has no value) 'undefined
    (why)'."""
    if why:
        return undefined(why)
    if _missing(mean):
        return MISSING
    return f"{figure(mean)} [{figure(low)}, {figure(high)}]"


def bounds(low: float | None, high: float | None) -> str:
    """'[-0.060, +0.384]': a difference's interval, signed."""
    return f"[{signed(low)}, {signed(high)}]"


def difference(value: float | None, low: float | None, high: float | None) -> str:
    """'+0.135 [-0.060, +0.384]': a paired difference with its interval."""
    return f"{signed(value)} {bounds(low, high)}"


def win_tie_loss(wins: int, ties: int, losses: int) -> str:
    """'21 / 243 / 13': the queries a candidate scored higher on, the same, lower."""
    return f"{wins:,} / {ties:,} / {losses:,}"


def p_value(p: float | None) -> str:
    """'0.003', and '< 0.001' rather than a rounded-down 0.000."""
    if _missing(p):
        return MISSING
    return "< 0.001" if p < 0.0005 else f"{p:.3f}"


def p_equals(p: float | None) -> str:
    """'= 0.003' or '< 0.001', to follow a 'p' in a sentence."""
    text = p_value(p)
    return text if text.startswith("<") else f"= {text}"


def effect(value: float | None) -> str:
    """An effect size; 'undefined' when every query moved by the same amount."""
    return UNDEFINED if _missing(value) else f"{value:.{DECIMALS}f}"


def undefined(reason: str) -> str:
    """An undefined figure with why, one way everywhere: 'undefined (the humans use one
    category for every pair)'."""
    return f"{UNDEFINED} ({reason})"


def confidence(level: float) -> str:
    """A confidence level as a percentage, one way everywhere: '95%', '97.5%'."""
    percent = round(level * 100, 6)
    return f"{percent:g}%"


WEIGHT_DECIMALS = 2  # a weight in [0, 1]: the prediction-powered lambda


def weight(value: float | None) -> str:
    """'0.47': a weight in [0, 1] (the prediction-powered lambda); '—' when there is none."""
    return MISSING if _missing(value) else f"{value:.{WEIGHT_DECIMALS}f}"


def percent_of(part: int, whole: int) -> str:
    """'0.6%' of a whole; '<0.1%' for a share that is not zero but would print as one, '—'
    of nothing."""
    if not whole:
        return MISSING
    percent = 100 * part / whole
    return "<0.1%" if 0 < percent < 0.05 else f"{percent:.1f}%"


# What formats its own numbers (a table's column, a number input: Streamlit reads a printf
# pattern, not a function) writes them with these patterns, made from the same decimals as
# the functions above: a table reads as the sentence beside it, and the dashboard holds no
# pattern of its own (tests/dashboard/test_formats.py).
FIGURE_PATTERN = f"%.{DECIMALS}f"  # as `figure`: 0.333 (a score, a mean, a threshold)
SIGNED_PATTERN = f"%+.{DECIMALS}f"  # as `signed`: +0.135 (a difference, URisk, TRisk)
# a query's part of a mean difference over many queries: one decimal more, or most read 0
CONTRIBUTION_PATTERN = f"%+.{DECIMALS + 1}f"
WEIGHT_PATTERN = f"%.{WEIGHT_DECIMALS}f"  # as `weight`: 0.47
RATIO_PATTERN = "%.1f"  # how many times as common: 2.4
PARAMETER_PATTERN = "%g"  # a parameter as a measure's or a method's name writes it: 0.9, 60
PLACES_PATTERN = "%+d"  # places a rank moved: +3, -2


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 query', '1,946 queries'."""
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {plural or _plural(noun)}"


def _plural(noun: str) -> str:
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


def listing(ids, limit: int = 20) -> str:
    """Ids for a sentence: the first `limit` (each as `terminal` writes it), then how many
    more."""
    ids = list(ids)
    more = f" and {len(ids) - limit:,} more" if len(ids) > limit else ""
    return ", ".join(terminal(str(i)) for i in ids[:limit]) + more


def shortened(text: str, limit: int = 60) -> str:
    """Text for a message, cut after `limit` characters with an ellipsis (a name from a link
    or a file can run to megabytes)."""
    return text if len(text) <= limit else text[:limit] + "…"


# What no output writes as it is, whatever it comes from (an id, a run's file name, a facet's
# value): an id is shown as what it holds, never as what it does. By Unicode category:
# - Cc, control characters (C0, DEL, C1): a newline, a carriage return, NEL or a vertical tab
#   ends a line (a forged trec_eval summary line, a forged CSV row), a tab ends a column
#   (trec_eval's, a TSV's), ESC and CSI start the sequences that retitle a window or clear a
#   screen, NUL ends a C string;
# - Cf, format characters: the bidirectional overrides and isolates (U+202E) reorder what is
#   shown, the zero-width ones (U+200B) hide a difference, the language tags hide text;
# - Zl and Zp, the line and paragraph separators (U+2028, U+2029): Python's str.splitlines
#   and JavaScript end a line at them;
# - Cs, surrogates: no UTF-8 output can carry one.
# Not escaped: spaces (Zs) show as spaces, except in trec_eval's columns, which readers split
# at white space (`terminal(spaces=True)`); private-use and unassigned code points show as a
# box, and letters and marks of every script as themselves (a confusable letter is shown as
# the letter it is; run names are compared as they look: metrics.io.names).
UNSHOWN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")
# the same characters as a class of Arrow's regular expressions (RE2), for a column at once
UNSHOWN_CLASS = "".join(rf"\p{{{category}}}" for category in UNSHOWN_CATEGORIES)


def unshown(character: str) -> bool:
    """Whether an output writes `character` as its escape (UNSHOWN_CATEGORIES)."""
    return unicodedata.category(character) in UNSHOWN_CATEGORIES


def holds_unshown(text: str) -> bool:
    """Whether `text` holds a character no output writes as it is: what a file written to
    be read back (a TREC run or qrels template), which can carry no escape, refuses."""
    return not text.isprintable() and any(unshown(c) for c in text)


# A file written to be read back as TREC columns (a fused run, a qrels template) separates its
# columns by white space and skips a line that starts a comment: what its readers split a
# line at (a NUL and \x01 too), as a class of Python's and Arrow's regular expressions alike,
# and what starts a skipped line (a byte-order mark is stripped too)
TREC_SPLIT_CLASS = r"[ \t\n\r\f\v\x00\x01]"
TREC_COMMENT = ("#", "\ufeff")


def trec_column_problem(text: str, *, first: bool = False) -> str | None:
    """Why `text` cannot be written as one column of a TREC line (the line's first when
    `first`: a query id), in words that follow the id ("'q 1' holds white space..."); None
    when it can. The one rule of every TREC file this tool writes."""
    if not text:
        return "is empty"
    if re.search(TREC_SPLIT_CLASS, text):
        return "holds white space or a NUL byte, where a TREC line is split into columns"
    if first and text.startswith(TREC_COMMENT):
        return "starts with '#', a line a TREC reader skips"
    if holds_unshown(text):
        return ("holds a control or format character (ESC, a bidirectional override...), "
                "which a TREC line would carry raw")
    return None


def terminal(text: str, *, spaces: bool = False) -> str:
    """Text as every output but JSON writes it: each UNSHOWN_CATEGORIES character (a line
    break, a tab, ESC, NUL, a bidirectional override...) as its Python escape, \\n, \\t,
    \\x1b or \\u202e, so that an id from a file prints as what it holds and can add no line,
    no column and no terminal sequence; with `spaces`, every white space character too
    (\\x20), for columns that readers split at white space. A backslash the id holds is
    written as it is, so `q\\x1b` read back is not told from an escaped ESC: the escape is for
    reading, not for reading back (JSON, `json_escaped`, writes every id exactly)."""
    if text.isprintable() and not (spaces and " " in text):
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if unshown(c) else
                   f"\\x{ord(c):02x}" if spaces and c == " " else
                   c.encode("unicode_escape").decode("ascii") if spaces and c.isspace() else c
                   for c in text)


_NOT_ASCII = re.compile(r"[^\x00-\x7e]")


def json_escaped(text: str) -> str:
    """JSON text (as a JSON writer gives it) with every UNSHOWN_CATEGORIES character written
    as a JSON escape (\\u202e; a surrogate pair past U+FFFF): the same values read back,
    exactly, and no raw line separator, bidirectional override or C1 control in the text.
    Every such character stands inside a string (JSON's syntax is ASCII), where an escape
    means the character itself."""
    return _NOT_ASCII.sub(_json_escape, text) if not text.isascii() or "\x7f" in text else text


def _json_escape(found: re.Match) -> str:
    character = found.group()
    if not unshown(character):
        return character
    code = ord(character)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def natural_key(text: str) -> list:
    """Sort key that puts q2 before q10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


# XML 1.0 cannot carry some characters at all, not even as a character reference: after
# `terminal` (every control character and surrogate written as its escape) only the
# noncharacters U+FFFE and U+FFFF are left of them
_NOT_XML = re.compile("[\ufffe\uffff]")


def xml_text(text: object) -> str:
    """Text for an XML attribute or element (the JUnit report): as `terminal` writes it,
    with the characters XML cannot hold written as their escapes too, so that no id or run
    name makes the document ill-formed. The XML writer escapes &, <, > and quotes."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", terminal(str(text)))


# GitHub's Markdown (a pull request's comment, a job summary): every ASCII punctuation
# character may be escaped with a backslash (CommonMark), which leaves no emphasis, code span,
# table pipe, link, autolink, HTML tag or entity in a user's string; GitHub then links a
# mention (@name) and an issue reference (#12) in the rendered text, which a word joiner after
# the sign breaks, unseen
_MARKDOWN_ACTIVE = re.compile(r"([!-/:-@\[-`{-~])")
_GITHUB_LINKED = re.compile(r"\\([@#])")
WORD_JOINER = "&#8288;"


def markdown_text(text: object) -> str:
    """`text` as literal characters in GitHub's Markdown, on one line, inside a table cell or
    a sentence: as `terminal` writes it (a line break, a tab, ESC as their escapes), every
    ASCII punctuation character escaped ('a|b' stays in its cell, '<b>' shows as written,
    'http://x' and '[x](y)' are no links), and a word joiner after @ and # (no mention, no
    issue link)."""
    escaped = _MARKDOWN_ACTIVE.sub(r"\\\1", terminal(str(text)))
    return _GITHUB_LINKED.sub(lambda m: "\\" + m.group(1) + WORD_JOINER, escaped)
