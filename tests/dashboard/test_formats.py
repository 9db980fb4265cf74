"""One home for how a number is written: the dashboard writes figures through metrics.format
(its functions, and the printf patterns declared beside them for what formats its own
numbers), never with a pattern or a number of decimals of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from metrics import format as fmt

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"
# a printf conversion with a number's type: '%.3f', '%+.2f', '%g', '%+d' (not '100%;' or '%)')
PRINTF = re.compile(r"(?<!%)%[-+ #0]*\d*(?:\.\d+)?[diouxXeEfFgG]")
# an f-string spec that writes a figure, a weight or a share by itself: a fixed number of
# decimals or a percentage (sizes and times, '{mb:,.1f} MB', are no figures: they group digits)
FIGURE_SPEC = re.compile(r"^[+ ]?\.\d+[f%]$")


MODULES = [str(path.relative_to(DASHBOARD.parent)) for path in sorted(DASHBOARD.rglob("*.py"))]


def parsed(path: str) -> ast.AST:
    return ast.parse((DASHBOARD.parent / path).read_text())


def strings(tree: ast.AST):
    """Every string literal in a module (parts of f-strings too), with its line, docstrings
    left out; a format spec is an f-string's too and is checked by its own test."""
    specs = {id(part) for node in ast.walk(tree) if isinstance(node, ast.FormattedValue)
             and node.format_spec for part in ast.walk(node.format_spec)}
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in specs | docs:
            yield node.lineno, node.value


def format_specs(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            parts = [p.value for p in node.format_spec.values if isinstance(p, ast.Constant)]
            yield node.lineno, "".join(parts)


def test_the_scan_finds_what_it_looks_for():
    tree = ast.parse('"""A %.3f doc."""\n'
                     'x = NumberColumn("Change", format="%+.3f")\n'
                     'y = st.number_input("k", format="%g")\n'
                     'z = f"{n:+d} and {v:.3f} and {p:.0%} and {size:,.1f} MB"\n'
                     'w = "width:100%; (50%)"\n')
    assert [(line, PRINTF.search(text).group()) for line, text in strings(tree)
            if PRINTF.search(text)] == [(2, "%+.3f"), (3, "%g")]
    assert [(line, spec) for line, spec in format_specs(tree)
            if FIGURE_SPEC.search(spec)] == [(4, ".3f"), (4, ".0%")]


def test_the_patterns_write_what_the_functions_write():
    for value in (0.0, 1 / 3, 0.1355, 1.0, 0.0004):
        assert fmt.FIGURE_PATTERN % value == fmt.figure(value)
        assert fmt.SIGNED_PATTERN % value == fmt.signed(value)
        # a difference that rounds to zero is passed as written (printf would say -0.000)
        assert fmt.SIGNED_PATTERN % fmt.zero_as_written(-value) == fmt.signed(-value)
        assert fmt.WEIGHT_PATTERN % value == fmt.weight(value)
    assert fmt.CONTRIBUTION_PATTERN % 0.00125 == "+0.0013"  # one decimal past a figure
    assert fmt.PARAMETER_PATTERN % 0.9 == "0.9" and fmt.PARAMETER_PATTERN % 60.0 == "60"


@pytest.mark.parametrize("path", MODULES)
def test_the_dashboard_holds_no_printf_pattern(path):
    """Column and input formats are read from metrics.format (FIGURE_PATTERN,
    SIGNED_PATTERN, ...), through dashboard.layout.ui's number_column and signed_column."""
    found = [f"{path}:{line}: {text!r}" for line, text in strings(parsed(path))
             if PRINTF.search(text)]
    assert not found, "printf patterns of the dashboard's own:\n" + "\n".join(found)


@pytest.mark.parametrize("path", MODULES)
def test_the_dashboard_writes_figures_through_the_engines_functions(path):
    """An f-string that writes a number with decimals of its own or as a percentage
    duplicates metrics.format (figure, signed, weight, percent_of, ...) or the vocabulary's
    words (leaderboard.share, leakage.ngram_share) and drifts from them."""
    found = [f"{path}:{line}: ':{spec}'" for line, spec in format_specs(parsed(path))
             if FIGURE_SPEC.search(spec)]
    assert not found, "figures formatted in place:\n" + "\n".join(found)
