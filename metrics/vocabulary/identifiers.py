"""How run names and ids are compared, and the words said when a name is cleaned or a rename
refused, or when ids meet only after Unicode normalisation. A run name is read as it looks:
two names that look alike are one name; query and doc ids are compared as written unless
--normalize-ids says otherwise. (A measure's name is `names`.)"""

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
MAX_NAME_CHARS = 200  # the longest run name the command line's NAME=FILE gives a run
NAME_TOO_LONG = ("NAME=FILE: a run name may hold at most {limit} characters, got "
                 "{length:,} ({shown})")
# the dashboard's renames
RENAME_HIDDEN = ("{original} keeps its name: the new name holds " + HIDDEN + " ({codes}), "
                 "which could make it look like something it is not")
RENAME_ALIKE = "{original} keeps its name: {wanted!r} looks like the name of the run {other}"


def codes(characters: str) -> str:
    """'U+200B, U+202E': the code points a message names."""
    return ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(characters))


# --------------------------------------------------------------------------- ids

# How query and doc ids are compared: as written (byte for byte, as trec_eval does), by
# default, or after Unicode NFC normalisation, so that 'é' written as one code point and as
# 'e' plus a combining accent are one id.
NORMALIZE_IDS = ("none", "nfc")  # the first is the default
NORMALIZE_IDS_FLAG = "--normalize-ids"
NORMALIZE_IDS_HELP = ("how query and doc ids are compared: none (default), as written, byte for "
                      "byte, as trec_eval does; nfc, after Unicode NFC normalisation, so that "
                      "an accented letter written as one code point or as a letter and a "
                      "combining accent is one id")
NORMALIZED_NOTE = "ids read in Unicode NFC (" + NORMALIZE_IDS_FLAG + " nfc)"
# a run whose ids meet the qrels' only once both are read in NFC
NFC_ONLY = ("{count:,} of the {total:,} {kind} ids of run {run!r} match the qrels only after "
            "Unicode normalisation (the same letters written as other code points, NFC on "
            "one side, NFD on the other, as in {example!r}): compared as written they "
            "{effect}; " + NORMALIZE_IDS_FLAG + " nfc reads every id in NFC")
NFC_EFFECT = {"doc": "count as unjudged", "query": "score 0"}
