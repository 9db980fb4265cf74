"""The columns' and controls' words (metrics/vocabulary/columns.py): every template formats
with the fields it declares, and the dashboard's tooltips read them (or another declaration)
instead of writing their own words: checked on the dashboard's source, as tests/test_layout.py
checks its imports."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from metrics.vocabulary import CONVENTION_BY_FIELD, IDEAL_RULE, columns

ROOT = Path(__file__).resolve().parents[3]
DASHBOARD = sorted((ROOT / "dashboard").rglob("*.py"))
TABLES = {"COLUMN_MEANING": columns.COLUMN_MEANING, "CONTROL_HELP": columns.CONTROL_HELP}
WORDS = {key: text for table in TABLES.values() for key, text in table.items()}
# the names a dashboard module reads the two tables by (its own aliases, or the tables' names)
TABLE_NAMES = {"MEANING", "HELP", *TABLES}
HELP_SLOTS = {"number_column": 1, "progress": 1}  # ui's column helpers: help is the 2nd argument
LETTER = re.compile(r"[^\W\d_]")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_a_key_names_one_meaning():
    assert not set(columns.COLUMN_MEANING) & set(columns.CONTROL_HELP)
    assert set(columns.FIELDS) <= set(WORDS), set(columns.FIELDS) - set(WORDS)


@pytest.mark.parametrize("key", sorted(WORDS))
def test_every_template_formats_with_the_fields_it_declares(key):
    text = WORDS[key]
    declared = columns.FIELDS.get(key, ())
    assert fields(text) == set(declared), (
        f"{key}: the template names {sorted(fields(text))}, FIELDS declares {sorted(declared)}")
    # counts are passed as ints: an int suits every format spec a template may give a field
    written = text.format(**{name: 1234 for name in declared}) if declared else text
    assert "{" not in written and "}" not in written, written
    assert written.strip() == written and written, key


def test_the_ideal_rule_is_said_once_in_both_gain_sentences():
    for choice in CONVENTION_BY_FIELD["gain"].choices:
        assert choice.sentence.endswith(" " + IDEAL_RULE)


# --------------------------------------------------------------------------- the dashboard


def literal_words(node: ast.expr) -> list[str]:
    """The literal text of an expression that would reach the reader: string constants, the
    constant parts of an f-string, either side of a `+`, the separator of a `" ".join` and
    the text of `"...".format`. A read (`X["key"]`, `x.attr`, a name, a call's result) is the
    vocabulary's or the engine's words, so neither its key nor a call's arguments count."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.JoinedStr):
        return [part for value in node.values for part in literal_words(value)]
    if isinstance(node, ast.FormattedValue):
        return literal_words(node.value)
    if isinstance(node, ast.BinOp):
        return literal_words(node.left) + literal_words(node.right)
    if isinstance(node, ast.IfExp):
        return literal_words(node.body) + literal_words(node.orelse)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return literal_words(node.elt)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [part for element in node.elts for part in literal_words(element)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method, receiver = node.func.attr, node.func.value
        said = literal_words(receiver) if isinstance(receiver, ast.Constant) else []
        if method == "join":
            said += [part for arg in node.args for part in literal_words(arg)]
        elif method == "format":
            said += [part for keyword in node.keywords for part in literal_words(keyword.value)]
        elif not isinstance(receiver, ast.Constant):
            said += literal_words(receiver)  # "…".capitalize() and the like
        return said
    return []


def help_arguments(tree: ast.AST) -> list[ast.expr]:
    """The expression every tooltip of a module is given: each `help=` keyword, and the help
    slot of ui's column helpers. A command line's `add_argument` help is its flag's, not a
    tooltip (the report command's file options)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
            node.func, "id", "")
        if name == "add_argument":
            continue
        found += [k.value for k in node.keywords if k.arg == "help"]
        slot = HELP_SLOTS.get(name)
        if slot is not None and len(node.args) > slot:
            found.append(node.args[slot])
    return found


def offending_tooltips(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [f"line {value.lineno}: {ast.unparse(value)[:70]}" for value in help_arguments(tree)
            if any(LETTER.search(part) for part in literal_words(value))]


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_the_dashboard_writes_no_tooltip_of_its_own(path):
    """A tooltip reads its words from the vocabulary (columns, or the declaration of the
    measure, convention or feature it explains); only punctuation may join them."""
    offending = offending_tooltips(path)
    assert not offending, (f"{relative(path)} writes tooltips in its own words; declare them in "
                           f"metrics/vocabulary/columns.py: {offending}")


def table_reads(tree: ast.AST) -> list[tuple[ast.Subscript, ast.Call | None]]:
    """Every read of a columns table by a constant key, with the .format call made on it."""
    formatted = {id(node.func.value): node for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr == "format" and isinstance(node.func.value, ast.Subscript)}
    reads = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
            continue
        table = node.value
        name = table.attr if isinstance(table, ast.Attribute) else getattr(table, "id", "")
        if name in TABLE_NAMES and node.slice.value in WORDS:
            reads.append((node, formatted.get(id(node))))
    return reads


@pytest.mark.parametrize("path", DASHBOARD, ids=relative)
def test_the_dashboard_formats_each_template_with_its_fields(path):
    tree = ast.parse(path.read_text(), str(path))
    wrong = []
    for read, call in table_reads(tree):
        key = read.slice.value
        declared = set(columns.FIELDS.get(key, ()))
        given = set() if call is None else {k.arg for k in call.keywords}
        if given != declared:
            wrong.append(f"line {read.lineno}: {key} given {sorted(given)}, "
                         f"declares {sorted(declared)}")
    assert not wrong, f"{relative(path)}: {wrong}"


def test_the_check_catches_a_tooltip_in_the_dashboard_s_own_words():
    caught = {
        'st.toggle("x", help="Ties keep the query-id order.")',
        'st.toggle("x", help=f"Shown at K = {k}.")',
        'st.toggle("x", help=HELP["a"] + " and more words")',
        'ui.number_column("Before", "The baseline\'s mean.")',
        'st.toggle("x", help=" ".join(["Two", x]))',
    }
    passed = {
        'st.toggle("x", help=HELP["heatmap_sort"])',
        'st.toggle("x", help=HELP["whole_list"].format(k=k))',
        'st.toggle("x", help=MEANING["grade_status"] + " " + sentences()["gain"])',
        'st.toggle("x", help="; ".join(FACET_RULES[r] for r in ("numbers", "categories")))',
        'st.toggle("x", help=f"{vocabulary.overlap.OVERLAP_RULES[\'intervals\']}")',
        'parser.add_argument("--out", help="where to write the report")',
    }
    for code in caught | passed:
        values = help_arguments(ast.parse(code))
        flagged = any(LETTER.search(part) for value in values for part in literal_words(value))
        assert flagged == (code in caught), code
