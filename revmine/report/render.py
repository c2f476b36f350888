"""What both reports share: the Jinja2 environment (autoescaped: review comments are untrusted text),
histograms drawn as inline SVG by a template macro, and the atomic write of ``report.html``."""

from __future__ import annotations

import datetime
import platform
from pathlib import Path
from typing import Any

import jinja2
import numpy as np

from ..io.store import write_text
from ..package import __version__

REPORT_NAME = "report.html"

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("revmine.report", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_ENV.filters["num"] = lambda n: f"{n:,}" if isinstance(n, int) else "" if n is None else f"{n:,.4g}"


def histogram(values: np.ndarray, bins: int = 20) -> dict[str, Any]:
    """Counts of finite ``values`` in equal-width bins, for the template's ``histogram`` macro."""
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    if finite.size == 0:
        return {"n": 0, "bars": [], "max": 0, "lo": None, "hi": None}
    lo, hi = float(finite.min()), float(finite.max())
    counts, edges = np.histogram(finite, bins=bins if hi > lo else 1, range=(lo, hi if hi > lo else lo + 1))
    top = int(counts.max())
    return {"n": int(finite.size), "max": top, "lo": lo, "hi": hi, "ticks": sorted({0, top // 2, top}),
            "median": float(np.median(finite)),
            "bars": [{"count": int(c), "lo": float(a), "hi": float(b)} for c, a, b in zip(counts, edges, edges[1:])]}


def environment() -> dict[str, str]:
    """The versions a report was made with."""
    import pyarrow

    return {"revmine": __version__, "python": platform.python_version(), "pyarrow": pyarrow.__version__,
            "jinja2": jinja2.__version__, "numpy": np.__version__}


def render(template: str, **context: Any) -> str:
    """The page ``template`` makes of ``context``, with the time and versions every page's footer gives."""
    return _ENV.get_template(template).render(generated=datetime.datetime.now(datetime.timezone.utc)
                                              .strftime("%Y-%m-%d %H:%M UTC"), versions=environment(), **context)


def write_report(out: Path, template: str, **context: Any) -> Path:
    """Render ``template`` into ``out/report.html`` (written atomically) and return its path."""
    return write_text(out / REPORT_NAME, render(template, **context))
