"""The presentation's slides as files for a projector: one 1920 x 1080 PNG a slide, and one
PDF of them all (a 16:9 page a slide, its text kept as text). The slides are the ones the
presentation mode shows (dashboard/views/slides.py); this module only lays each one out.

Each slide is one Vega-Lite composite: its lines as text marks above its chart, the slide's
title on top and its number at the foot, every text at least MIN_TEXT_PX (18 pt at 1920 x
1080), the runs in the Okabe-Ito palette (chart_base.run_scale). It is compiled to Vega with
a fixed canvas (`autosize: none`, 1920 x 1080): whatever did not fit would be cut at the
edge, and `text_boxes` (the Vega scene's text items and their bounds) is how the tests check
that nothing is. vl-convert renders the PNG and each PDF page; pypdf joins the pages.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import altair as alt
import pandas as pd
import vl_convert as vlc

from dashboard.views.slides import (
    HEIGHT,
    INK,
    MIN_TEXT_PX,
    SOFT,
    TEXT_PX,
    TITLE_PX,
    WIDTH,
    Slide,
    styled,
)

MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 80, 56, 64  # pixels around the slide's content
LINE_PX = round(TEXT_PX * 1.4)  # a line of the slide's words, with its leading
# characters of a line at TEXT_PX: a character of the sans-serif vl-convert draws with is
# about 0.5 of the font size on average; the tests measure the drawn lines against the slide's width
WRAP_CHARS = int((WIDTH - 2 * MARGIN_X) / (TEXT_PX * 0.5))
FONT = "Liberation Sans, Arial, Helvetica, sans-serif"


def wrapped(lines: Sequence[str]) -> list[str]:
    """The slide's lines cut at word boundaries to fit its width; a blank line between two."""
    out: list[str] = []
    for i, line in enumerate(lines):
        if i:
            out.append("")
        out += textwrap.wrap(line, WRAP_CHARS) or [""]
    return out


def _words(lines: Sequence[str]) -> alt.Chart:
    """The slide's lines as text marks, one a row, at fixed pixel positions."""
    rows = wrapped(lines)
    frame = pd.DataFrame({"text": rows, "y": [i * LINE_PX for i in range(len(rows))]})
    return alt.Chart(frame).mark_text(
        align="left", baseline="top", fontSize=TEXT_PX, color=INK, font=FONT,
    ).encode(x=alt.value(0), y=alt.Y("y:Q", scale=None), text="text:N").properties(
        # as narrow as can be: the lines' own extent is what the layout measures (a wide
        # block would add to the width of a chart whose labels sit left of its plot)
        width=1, height=max(LINE_PX, len(rows) * LINE_PX))


MIN_PLOT = 240  # pixels: a plot is never made narrower or lower than this to fit
TITLE_BAND = round(TITLE_PX * 1.25) + 36  # the title's line and the space below it


class DoesNotFit(ValueError):
    """A slide's content is larger than the slide (a chart or a line too wide)."""


def _composite(slide: Slide) -> dict:
    parts = [_words(slide.lines)] if slide.lines else []
    if slide.chart is not None:
        parts.append(slide.chart)
    if not parts:
        parts = [_words([""])]
    composite = styled(alt.vconcat(*parts, spacing=44).properties(background="white"), FONT)
    return composite.to_dict()


def spec(slide: Slide, number: int, total: int, footer: str = "") -> dict:
    """The slide's Vega spec on a fixed 1920 x 1080 canvas: the title at the top left, the
    lines and the chart below it, the footer and the slide's number at the bottom right.
    Vega lays the content out once as it would alone (its axes' labels and legends
    included) to learn its size and where its origin falls; the content is then placed
    within the margins. `usermeta.content` holds the content's box on the canvas (x1, y1,
    x2, y2); DoesNotFit when it would cross a margin (nothing is ever cut or shrunk)."""
    top = MARGIN_TOP + TITLE_BAND
    room = (WIDTH - 2 * MARGIN_X, HEIGHT - MARGIN_BOTTOM - top)
    composite = _composite(slide)
    vega, (ox, oy), width, height = _laid_out(composite)
    words = composite["vconcat"][0] if slide.lines else None
    if words is not None and ox > 0:
        # the words start where the chart's labels start, left of its plot
        words["encoding"]["x"] = {"value": -ox}
        vega, (ox, oy), width, height = _laid_out(composite)
    chart = composite["vconcat"][-1] if slide.chart is not None else None
    for _ in range(3):
        # the plot gives up what the content needs beyond the room (no text is made
        # smaller); its labels keep their room, so the words keep their place
        over = {"width": width - room[0], "height": height - room[1]}
        shrunk = False
        for axis, size in over.items():
            if (chart is not None and size > 0 and isinstance(chart.get(axis), (int, float))
                    and chart[axis] > MIN_PLOT):
                chart[axis] = max(MIN_PLOT, chart[axis] - size)
                shrunk = True
        if not shrunk:
            break
        vega, (ox, oy), width, height = _laid_out(composite)
    if width > room[0] or height > room[1]:
        raise DoesNotFit(f"slide {number} ({slide.key}) needs {round(width)} x {round(height)} px; "
                         f"it has {room[0]} x {room[1]}")
    # the title above the content's top left corner and the footer at the box's bottom
    # right: with the content inside, they are the box's corners, and the margins around
    # them make the canvas 1920 x 1080 exactly (Vega sizes it to what it draws: a legend
    # at the right of a plot sits where Vega puts it)
    x0, y0 = -ox, -oy - TITLE_BAND
    foot = f"{footer} · {number} / {total}" if footer else f"{number} / {total}"
    vega.setdefault("marks", []).extend([
        _text("slide_title", slide.title, x0, y0, TITLE_PX, INK, align="left",
              baseline="top", weight="bold"),
        _text("slide_footer", foot, x0 + WIDTH - 2 * MARGIN_X,
              y0 + HEIGHT - MARGIN_TOP - MARGIN_BOTTOM, MIN_TEXT_PX, SOFT, align="right",
              baseline="bottom"),
    ])
    scene = vlc.vega_to_scenegraph(vega)
    right, bottom = WIDTH - MARGIN_X - scene["width"], HEIGHT - MARGIN_TOP - scene["height"]
    if right < MARGIN_X - 1 or bottom < MARGIN_BOTTOM - 1:  # the title wider than the slide
        raise DoesNotFit(f"slide {number} ({slide.key}): its title or footer is wider than "
                         "the slide")
    vega["padding"] = {"left": MARGIN_X, "top": MARGIN_TOP, "right": right, "bottom": bottom}
    vega["usermeta"] = {"content": (MARGIN_X, top, MARGIN_X + width, top + height)}
    return vega


def _laid_out(composite: dict) -> tuple[dict, tuple[float, float], float, float]:
    """The composite compiled to Vega and laid out alone: the spec, the origin's offset
    (what the axes' labels take left of and above it) and the content's size."""
    vega = vlc.vegalite_to_vega(composite)
    vega["autosize"], vega["padding"] = "pad", 0
    scene = vlc.vega_to_scenegraph(vega)
    return vega, tuple(scene["origin"]), scene["width"], scene["height"]


def _text(name: str, text: str, x: float, y: float, size: int, colour: str, *, align: str,
          baseline: str, weight: str = "normal") -> dict:
    """A text mark at a fixed place, in the root's coordinates."""
    return {"type": "text", "name": name, "encode": {"enter": {
        "x": {"value": x}, "y": {"value": y}, "align": {"value": align},
        "baseline": {"value": baseline}, "text": {"value": text},
        "fontSize": {"value": size}, "fontWeight": {"value": weight},
        "font": {"value": FONT}, "fill": {"value": colour}}}}


def png(vega: dict) -> bytes:
    return vlc.vega_to_png(vega, scale=1)


def pdf_page(vega: dict) -> bytes:
    return vlc.vega_to_pdf(vega, scale=1)


def pdf(specs: Sequence[dict]) -> bytes:
    """One PDF, a page a slide, in order."""
    from pypdf import PdfReader, PdfWriter  # the export's only user: not loaded with the page

    writer = PdfWriter()
    for vega in specs:
        for page in PdfReader(io.BytesIO(pdf_page(vega))).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def specs(slides: Sequence[Slide], footer: str = "") -> list[dict]:
    return [spec(s, i, len(slides), footer) for i, s in enumerate(slides, start=1)]


def file_names(slides: Sequence[Slide]) -> list[str]:
    """slide-01-compared.png, ...: in order, named by kind."""
    return [f"slide-{i:02d}-{s.key}.png" for i, s in enumerate(slides, start=1)]


def write(slides: Sequence[Slide], out: Path, footer: str = "") -> list[Path]:
    """Every slide as a PNG and all of them as slides.pdf in the folder `out` (made if
    missing); the paths written, the PDF last."""
    out.mkdir(parents=True, exist_ok=True)
    made = specs(slides, footer)
    paths = []
    for name, vega in zip(file_names(slides), made, strict=True):
        path = out / name
        path.write_bytes(png(vega))
        paths.append(path)
    path = out / "slides.pdf"
    path.write_bytes(pdf(made))
    paths.append(path)
    return paths


def texts(vega: dict) -> Iterator[dict]:
    """Every text drawn on the slide, from Vega's scene graph: its text, font size and
    anchor on the canvas (x, y in pixels), its alignment and angle."""
    scene = vlc.vega_to_scenegraph(vega)
    ox, oy = scene["origin"]  # where the root's (0, 0) falls on the canvas
    yield from _texts(scene["scenegraph"], ox, oy)


def _texts(node: dict, dx: float, dy: float) -> Iterator[dict]:
    group = node.get("marktype") == "group"
    for item in node.get("items", []) or []:
        if node.get("marktype") == "text" and item.get("text") not in (None, "", []):
            yield {"text": item["text"], "size": item.get("fontSize"),
                   "x": (item.get("x") or 0) + dx, "y": (item.get("y") or 0) + dy,
                   "align": item.get("align"), "angle": item.get("angle") or 0,
                   "mark": node.get("name")}
        # a group's children are drawn in its coordinates, offset by its x and y
        yield from _texts(item, dx + ((item.get("x") or 0) if group else 0),
                          dy + ((item.get("y") or 0) if group else 0))
