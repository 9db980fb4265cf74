"""An Altair chart as the Vega-Lite spec the browser draws, its datasets under names that stay
the same from one rerun to the next.

Streamlit's own conversion (st.altair_chart) names each dataset by a hash of its content, and
the spec refers to it by that name, so any change of the data changes the spec, and the
browser then builds the chart again from nothing (a new Vega view). Named by position instead
("data-0", "data-1", ... in the order the spec meets them), a chart whose spec is unchanged
keeps its view, and Streamlit's browser side replaces only the datasets whose bytes changed.
So a chart meant to redraw cheaply keeps what changes (the chosen K) in data, and in as small
a dataset as it can: on the K sweep at 4 runs x 2,000 queries, a change of K waited 0.38 s
with the view built again, 0.27 s with every row replaced in place, 0.13 s with one row
(benchmarks/browser.py, medians).

A chart whose words depend on such data reads them with `text_from`, and names the frame it
reads with `named` (a name of its own, not a position another layer could take).

The browser's spec is converted without Altair's check against the Vega-Lite schema: the
check costs more than the conversion (0.25 s of Compare's 0.9 s rerun on the sample, every
chart rebuilt at a new K), and what it checks is the code's shape, not the data: the tests
check every chart each page sends (tests/dashboard/app_pages/test_app.py), and the image
exports, made once on a click, keep the check.

Altair reads its data transformer and theme from global settings: every conversion, the
dashboard's and the image exports', takes CONVERTING first, so that one thread's
settings never apply to another's chart.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import altair as alt
import pandas as pd

CONVERTING = threading.Lock()
_TRANSFORMER = "dashboard_named_by_position"
_NAME = "vega_dataset"  # DataFrame.attrs key: the frame's own dataset name (`named`)


def named(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The frame, drawn as the dataset `name`, so that `text_from` can read it. The name is
    set on the frame itself (its attrs): pass a frame of the chart's own, not a shared one."""
    frame.attrs[_NAME] = name
    return frame


def text_from(before: str, dataset: str, field: str, after: str = "") -> alt.ExprRef:
    """Words (a title) holding the first row's `field` of the `named` dataset: the browser
    reads the value from the data, so a new value redraws the chart in place."""
    rows = f"data({json.dumps(dataset)})"
    value = f"(length({rows}) ? {rows}[0][{json.dumps(field)}] : '')"  # no row: no error
    return alt.ExprRef(f"{json.dumps(before)} + {value} + {json.dumps(after)}")


def shown_spec(figure: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart's Vega-Lite spec with its data frames under "datasets", named by position
    (Streamlit sends each frame as Arrow). Altair's default theme is off, as Streamlit's
    conversion leaves it, so that the app's theme applies."""
    return _converted(figure, plain=True, validate=False)


def exported_spec(figure: alt.TopLevelMixin) -> dict[str, Any]:
    """The same spec, Altair's theme kept and the datasets written out as values, for an
    image rendered outside the browser (the data is ours: no row limit)."""
    spec = _converted(figure, plain=False, validate=True)
    spec["datasets"] = {name: alt.to_values(data)["values"] if isinstance(data, pd.DataFrame)
                        else data for name, data in spec["datasets"].items()}
    return spec


def _converted(figure: alt.TopLevelMixin, *, plain: bool, validate: bool) -> dict[str, Any]:
    frames: dict[str, Any] = {}
    names: dict[int, str] = {}  # one frame met twice keeps one name

    def name_of(data: Any) -> dict[str, str]:
        name = names.get(id(data))
        if name is None:
            own = data.attrs.get(_NAME) if isinstance(data, pd.DataFrame) else None
            name = own or f"data-{len(frames)}"
            if name in frames:  # a frame derived from a named one carries its attrs
                raise ValueError(f"two datasets of one chart are named {name!r}")
            names[id(data)] = name
            frames[name] = data
        return {"name": name}

    with CONVERTING:
        alt.data_transformers.register(_TRANSFORMER, name_of)
        themes = alt.theme
        theme = (themes.enable("none") if plain and themes.active == "default"
                 else contextlib.nullcontext())
        with theme, alt.data_transformers.enable(_TRANSFORMER):
            spec = figure.to_dict(validate=validate)
    spec["datasets"] = {**spec.get("datasets", {}), **frames}
    return spec
