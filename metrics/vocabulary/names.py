"""How run names are compared, and the words said when a name is cleaned or a rename
refused. A name is read as it looks: two names that look alike are one name."""

from __future__ import annotations

NAME_RULE = ("Run names are compared as they look: after Unicode NFKC normalisation "
             "(full-width and other compatibility forms read as their plain letters), with "
             "invisible characters (zero-width spaces and joiners, soft hyphens, control "
             "characters) and bidirectional controls (which reorder what is shown) removed "
             "and white space collapsed. A name that still looks like another run's is "
             "numbered (' (2)'); a rename to one is refused.")
HIDDEN = "invisible or bidirectional control characters"
# a run's load report, when its name (a file name, NAME=FILE) was cleaned
CLEANED = "named {name!r}: the name given held " + HIDDEN + " ({codes}), removed"
UNNAMED = "run"  # a name that was nothing but such characters
# the dashboard's renames
RENAME_HIDDEN = ("{original} keeps its name: the new name holds " + HIDDEN + " ({codes}), "
                 "which could make it look like something it is not")
RENAME_ALIKE = "{original} keeps its name: {wanted!r} looks like the name of the run {other}"


def codes(characters: str) -> str:
    """'U+200B, U+202E': the code points a message names."""
    return ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(characters))
