"""What every chart shares: the palette, the scales, widths, titles and finishing touches.

Shared base: every chart takes its title from `title`, its 0-1 score axis from `UNIT` and
`unit_axis`, its run colours from `run_scale` (a fixed domain, every loaded run in load order,
keeps a run's colour the same in every view whichever runs are shown) and its last touches
from `finish`. Titles and axes name the metric and K.

Widths: every chart fits the page's main column at a 1280-pixel screen with the sidebar open
(`PAGE_WIDTH`); run names are never cut (`labelLimit=0` wherever one is written) and long
lines of text are wrapped to the chart's width. Colours: runs take the Okabe-Ito palette,
which readers with any common colour-vision deficiency tell apart, on screens, projectors and
paper; text that is not a run's takes its grey from the chart's background (`MUTED`), so it
reads in the light and in the dark theme.
"""

from __future__ import annotations

import textwrap

import altair as alt

from metrics import QUERY_CLASSES
from metrics import format as fmt

# Okabe & Ito (2008), "Color universal design": black left out (it vanishes on the dark
# theme), the others ordered so that the first four differ most, in hue and in lightness
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#999999")
RUN_PALETTE = OKABE_ITO
# the engine's query classes, best to worst, each in a hue of its own: blue and bluish green
# for a relevant id within K, reddish purple and vermilion for none; four Okabe-Ito colours
# that stay apart under each common colour-vision deficiency (two shades of one blue, as
# "full" and "partial" were, read as one class)
CLASS_COLOURS = dict(zip(QUERY_CLASSES, ("#0072B2", "#009E73", "#CC79A7", "#D55E00"),
                         strict=True))
SCORE_SCHEME = "viridis"  # perceptually even, colour-blind safe, dark at 0 and light at 1
# a figure and a difference as metrics.format writes them, in d3-format (what Vega reads)
SCORE_FORMAT = f".{fmt.DECIMALS}f"
SIGNED_FORMAT = f"+.{fmt.DECIMALS}f"
UNIT = alt.Scale(domain=[0, 1], nice=False)
UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1]
# a 0-1 scale with room for a mark drawn at 0 or 1 (a point's radius), ticks still 0 to 1
PADDED_UNIT = alt.Scale(domain=[-0.04, 1.04], nice=False, zero=False)
TITLE_FONT_SIZE = 15
# secondary text (subtitles, notes in a plot): a grey picked from the chart's background,
# 6:1 or more against Streamlit's light and dark backgrounds and the report's white
MUTED = alt.ExprRef("luminance(background) > 0.5 ? '#5c6270' : '#a3a8b3'")
# width and height size the plot, axes and legends around it (Streamlit's default for a
# fixed-size layer, "fit", would squeeze them into the given size)
PAD = alt.AutoSizeParams(type="pad")
PAGE_WIDTH = 800  # pixels: the main column at 1280 px with the sidebar open is 818
TITLE_LIMIT = 1200  # pixels: a subtitle is wrapped to the chart's width, never cut
CHAR_WIDTH = 7  # pixels a character of a 11-12 px label takes at most, on average
ROW_HEIGHT = 22  # pixels per query in the heatmap
PANEL_MARGIN = 36  # pixels a heatmap panel takes beyond its cells (spacing, slanted labels)
FACET_SPACING = 20  # Vega-Lite's default between facet panels
Y_AXIS = 60  # pixels a 0-1 axis takes with its title


def run_scale(run_names: list[str] | tuple[str, ...]) -> alt.Scale:
    """Fixed run -> colour mapping; pass every loaded run (hidden ones too) in load order."""
    names = list(run_names)
    colours = [RUN_PALETTE[i % len(RUN_PALETTE)] for i in range(len(names))]
    return alt.Scale(domain=names, range=colours)


def text_width(text: str) -> int:
    """A generous estimate of a label's width in pixels."""
    return len(str(text)) * CHAR_WIDTH


def legend_columns(names: list[str], width: int) -> int:
    """How many entries of a legend fit side by side in `width` pixels (symbol and padding
    beside each name)."""
    item = max((text_width(n) for n in names), default=0) + 40
    return max(1, min(len(names), width // item))


def run_colour(runs: alt.Scale, shown: list[str], title: str = "Run", *,
               orient: str = "right", width: int = PAGE_WIDTH, legend: bool = True
               ) -> alt.Color:
    """The colour channel of runs; its legend names every run whole (to the right, or above
    or below the chart in as many columns as fit `width`), each in its full colour."""
    if not legend:
        return alt.Color("run:N", scale=runs, legend=None)
    options = {"columns": legend_columns(shown, width)} if orient in ("top", "bottom") else {}
    # symbolOpacity: a legend shared by several layers takes the first one's opacity, and
    # the faint interval bands under the lines faded it
    return alt.Color("run:N", scale=runs, legend=alt.Legend(
        title=title, values=shown, labelLimit=0, orient=orient, symbolOpacity=1, **options))


def wrap(lines: str | list[str], width: int = PAGE_WIDTH) -> list[str]:
    """Lines of text no wider than `width` pixels (at a subtitle's size)."""
    chars = max(20, int(width / 6.2))
    lines = [lines] if isinstance(lines, str) else lines
    return [part for line in lines for part in (textwrap.wrap(line, chars) or [""])]


def chart_title(text: str, subtitle: str | list[str] = "", width: int | None = PAGE_WIDTH
           ) -> alt.Title:
    """Every chart's title: left-aligned, the metric and K in the text, the reading below,
    wrapped to `width` pixels, in a grey that follows the theme."""
    subtitle = wrap(subtitle, width or PAGE_WIDTH) if subtitle else ""
    return alt.Title(text, subtitle=subtitle, anchor="start",
                     fontSize=TITLE_FONT_SIZE, subtitleColor=MUTED, subtitleFontSize=12,
                     limit=TITLE_LIMIT)


def finish(chart):
    """The last touch of every chart: drawn as SVG, whatever its number of rows (Streamlit
    switches large charts to a canvas, whose text a reader's tools and the tests cannot
    read)."""
    return chart.properties(usermeta={"embedOptions": {"renderer": "svg"}})


def figures(*fields: str) -> list[alt.Tooltip]:
    """Tooltips of a mean and its interval bounds ("mean", "low", "high"), as figures."""
    return [alt.Tooltip(f"{name}:Q", title=name.capitalize(), format=SCORE_FORMAT)
            for name in fields]


def mean_by_run(runs: alt.Scale, shown: list[str], **legend) -> tuple[alt.Y, alt.Color]:
    """The panels of a metric against K or over time: the mean on the 0-1 scale, a colour
    per run."""
    return (alt.Y("mean:Q", scale=UNIT, axis=unit_axis("Mean at K")),
            run_colour(runs, shown, **legend))


def unit_axis(title: str) -> alt.Axis:
    return alt.Axis(title=title, format=".1f", tickCount=5, grid=True)


def panels(n: int, least: int = 210, most: int = 300, width: int = PAGE_WIDTH,
            columns: int = 3) -> tuple[int, int]:
    """(columns, panel width) for n facet panels, at most `columns` a row, each `least` to
    `most` pixels wide, within `width` pixels."""
    columns = max(1, min(n, columns, (width - Y_AXIS) // (least + FACET_SPACING)))
    panel = (width - Y_AXIS - FACET_SPACING * (columns - 1)) // columns
    return columns, int(min(most, panel))


