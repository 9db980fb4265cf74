"""How figures are written: a value rounds as printed, and one that rounds to zero carries
no sign of its own."""

import math

import pytest

from metrics.vocabulary import format as fmt


@pytest.mark.parametrize(("value", "written"), [
    (0.1354, "+0.135"), (-0.0604, "-0.060"), (-0.0004, "+0.000"), (-0.0, "+0.000"),
    (0.0, "+0.000"), (-0.0005001, "-0.001"), (None, fmt.MISSING), (math.nan, fmt.MISSING),
])
def test_a_difference_is_signed_only_when_it_shows_one(value, written):
    assert fmt.signed(value) == written


@pytest.mark.parametrize("value", [0.1354, -0.0604, -0.0004, -1e-17, -0.0, 0.0, -0.0005001,
                                   0.0004999, -0.00049])
def test_a_value_a_table_formats_itself_is_zero_where_signed_writes_zero(value):
    """The dashboard's SIGNED_PATTERN columns, given zero_as_written's value, write what
    signed writes (printf's rounding is Python's '%'): never '-0.000'."""
    kept = fmt.zero_as_written(value)
    assert fmt.SIGNED_PATTERN % kept == fmt.signed(value)
    assert kept == value or kept == 0.0 and math.copysign(1.0, kept) == 1.0
    assert fmt.zero_as_written(None) is None and math.isnan(fmt.zero_as_written(math.nan))


@pytest.mark.parametrize(("value", "written"), [
    (1 / 3, "0.333"), (-0.0004, "0.000"), (-1e-12, "0.000"), (0.9996, "1.000"),
    (math.inf, fmt.MISSING),
])
def test_a_figure_rounding_to_zero_is_written_without_a_minus(value, written):
    assert fmt.figure(value) == written


def test_an_interval_around_zero_reads_as_the_difference_would():
    assert fmt.difference(-1e-9, -0.0302, 0.0004) == "+0.000 [-0.030, +0.000]"


@pytest.mark.parametrize(("value", "written"), [
    (0.4712, "0.47"), (0.0, "0.00"), (1.0, "1.00"), (None, fmt.MISSING), (math.nan, fmt.MISSING),
])
def test_a_weight_has_two_decimals_and_none_is_missing(value, written):
    """The prediction-powered lambda: '—' when there is none, never 'None'."""
    assert fmt.weight(value) == written
    if written != fmt.MISSING:
        assert fmt.WEIGHT_PATTERN % value == written


@pytest.mark.parametrize(("part", "whole", "written"), [
    (244, 270, "90.4%"), (1, 1230, "0.1%"), (1, 5000, "<0.1%"), (0, 12, "0.0%"),
    (12, 12, "100.0%"), (0, 0, fmt.MISSING),
])
def test_a_share_of_a_whole_never_rounds_a_part_away(part, whole, written):
    assert fmt.percent_of(part, whole) == written


def test_the_patterns_take_their_decimals_from_the_one_setting():
    assert fmt.FIGURE_PATTERN == f"%.{fmt.DECIMALS}f"
    assert fmt.SIGNED_PATTERN == f"%+.{fmt.DECIMALS}f"
    assert fmt.CONTRIBUTION_PATTERN == f"%+.{fmt.DECIMALS + 1}f"
