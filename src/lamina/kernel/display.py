"""Values and figures as the MIME bundles a notebook shows.

Every value has its `text/plain` (the text the REPL echoes); a report (a table, a model, a
regression fit) adds the `text/html` its `html()` gives. A figure is a PNG.
"""
from __future__ import annotations

import base64

from ..printing import format_value
from ..stats.figures import png_bytes
from ..values import LibObject


def value_bundle(value) -> dict:
    data = {"text/plain": format_value(value, quote_strings=True)}
    if isinstance(value, LibObject):
        html = value.html()
        if html:
            data["text/html"] = html
    return data


def figure_bundle(fig) -> dict:
    png = png_bytes(fig)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    return {
        "data": {"image/png": base64.b64encode(png).decode("ascii"),
                 "text/plain": f"<figure {width}x{height}>"},
        "metadata": {"image/png": {"width": width, "height": height}},
    }
