"""The figure primitives every PNG plot of ours uses (the report's, the arena's): a figure with fixed margins,
an atomic PNG write, asymmetric error bars from value/ci columns, and the imports they need (done ahead in a
child that plots while its parent computes: core/background.py's `prepared`).

Light on purpose: matplotlib is imported only where a figure is made, so a command can fork its plotting child
before it imports anything heavy."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgebench.core.files import atomic_path
from judgebench.core.text import visible

if TYPE_CHECKING:
    import pandas as pd


def import_plotting() -> None:
    """What `figure` and `save_png` import (a plotting child imports it while its parent reads)."""
    import matplotlib.backends.backend_agg  # noqa: F401  (what figure and savefig use)
    import matplotlib.figure  # noqa: F401


def figure(width: float = 6.4, height: float = 4.0, left_chars: int = 6):
    """A figure with fixed margins; `left_chars` is the longest y tick label.

    Margins are set by hand rather than by a layout engine: constrained layout draws
    every figure twice, which doubled the report's time."""
    from matplotlib.figure import Figure  # imported here: keep the CLI start fast

    fig = Figure(figsize=(width, height), dpi=100)
    left = (0.35 + 0.075 * left_chars) / width
    fig.subplots_adjust(left=min(left, 0.7), right=1 - 0.3 / width, bottom=0.65 / height,
                        top=1 - 0.45 / height)
    return fig, fig.add_subplot()


def save_png(fig: Any, path: Path) -> None:
    """The figure as a PNG at `path`, written atomically."""
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")


def error_bars(frame: pd.DataFrame) -> list[list[float]]:
    """Asymmetric error bars (below, above) from value/ci columns; 0 where unknown."""
    value = frame["value"].astype(float)
    low = (value - frame["ci_low"].astype(float)).fillna(0).clip(lower=0)
    high = (frame["ci_high"].astype(float) - value).fillna(0).clip(lower=0)
    return [low.tolist(), high.tolist()]


def literal(text: str) -> str:
    """User text (model names, slice values, exams) drawn as it is: a `$` escaped (a model name with two of them was
    parsed as math, and one like `$\\frac{x$` ended the plot with a ValueError), and a control character shown as
    its escape (matplotlib has no glyph for ESC, and its warning printed the raw byte to the terminal)."""
    return visible(text).replace("$", r"\$")
