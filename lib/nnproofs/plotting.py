"""The book's log-log figure: measured points, the predicted rate as a reference line, the fit.

The reference line has the theorem's slope :math:`\\alpha` and is drawn *above* the data, a factor
``REFERENCE_OFFSET`` over the highest point once the slope is taken out,

.. math:: y_{\\rm ref}(x) = \\mathrm{REFERENCE\\_OFFSET} \\cdot \\max_i \\big(y_i (x/x_i)^{\\alpha}\\big),

so that it never hides the points it is compared with, and drawn on top of them; it is labelled beside its
right end. When the theorem's bound is known with its constant, ``bound`` draws it too. The legend, outside
the axes, gives each series' fitted slope.

A page shows a figure at most :data:`PAGE_WIDTH_PX` wide (the text column at a 1400 px window): a wider
figure is scaled down, and its text with it. :func:`text_sizes_on_page` measures what a reader gets; the
book's aim is at least :data:`MIN_TEXT_PT` for every text, and :func:`show` shows a figure only then.
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.text import Text

from .rates import RateCheck

STYLE = {
    "figure.figsize": (6.4, 4.2),
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 11,
}
REFERENCE_OFFSET = 2.0  # the reference line runs this factor above the highest point
PAGE_WIDTH_PX = 717  # the book's text column at a 1400 px window: a wider figure is shown scaled down to it
MIN_TEXT_PT = 8.0  # the smallest text a reader should get, in CSS points (1 pt = 96/72 px)


def new_axes(ncols: int = 1, **kwargs):
    """A figure in the book's style with ``ncols`` axes side by side; returns ``(fig, axes)``."""
    plt.rcParams.update(STYLE)
    width, height = STYLE["figure.figsize"]
    kwargs.setdefault("figsize", (width, height) if ncols == 1 else (min(4.8 * ncols, 12.8), height * 0.9))
    return plt.subplots(1, ncols, layout="constrained", **kwargs)


def text_sizes_on_page(fig, page_width_px: float = PAGE_WIDTH_PX) -> list[tuple[float, str]]:
    """``(size in CSS points, text)`` of every visible text of ``fig`` as a page shows it.

    The figure is saved as the notebook does (``bbox_inches="tight"``, at ``fig.dpi``), so it is
    ``w`` pixels wide; a page shows it at ``min(1, page_width_px / w)`` of that, and a text of ``f`` points
    then measures ``f · dpi/96 · scale`` CSS points.
    """
    fig.canvas.draw()
    width_px = fig.get_tightbbox(fig.canvas.get_renderer()).width * fig.dpi
    scale = min(1.0, page_width_px / width_px)
    return [(text.get_fontsize() * fig.dpi / 96 * scale, text.get_text()) for text in fig.findobj(Text)
            if text.get_visible() and text.get_text().strip() and _drawn(text)]


def show(fig=None) -> None:
    """Show ``fig`` (default: the current figure) if every text of it measures at least
    :data:`MIN_TEXT_PT` on the page (:func:`text_sizes_on_page`).

    Raises
    ------
    ValueError
        Naming the texts that a reader would get smaller than that, with their sizes.
    """
    fig = plt.gcf() if fig is None else fig
    small = sorted((round(size, 1), text) for size, text in text_sizes_on_page(fig) if size < MIN_TEXT_PT)
    if small:
        raise ValueError(
            f"fig: {len(small)} texts would show smaller than {MIN_TEXT_PT} pt in a {PAGE_WIDTH_PX} px "
            f"column, the smallest {small[:3]}; enlarge their fonts or narrow the figure")
    plt.show()


def _drawn(text: Text) -> bool:
    """Whether ``text`` is drawn: itself and every artist above it visible (tick labels of hidden ticks are not)."""
    artist = text
    while artist is not None:
        if not artist.get_visible():
            return False
        artist = getattr(artist, "axes", None) if artist is not getattr(artist, "axes", None) else None
    return True


def loglog_check(
    check: RateCheck,
    ax=None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    label: str = "measured",
    reference: bool = True,
    bound: tuple[str, Callable[[np.ndarray], np.ndarray]] | None = None,
    color: str | None = None,
    marker: str = "o",
):
    """Draw ``check.y`` against ``check.x`` on log-log axes with the predicted slope; return ``ax``.

    ``reference`` draws the predicted slope offset above the data (module docstring) and writes
    "slope α" beside it; ``bound = (label, b)`` draws the theorem's bound ``b(x)`` with its constant.
    Axis labels are set only when given, so several checks can share one axes.
    """
    if not isinstance(check, RateCheck):
        raise TypeError(f"check must be a RateCheck, got {type(check).__name__}")
    if ax is None:
        _, ax = new_axes()
    x, y = np.asarray(check.x), np.asarray(check.y)
    (points,) = ax.loglog(x, y, marker=marker, linestyle="-", color=color,
                          label=f"{label} (fitted slope {check.fit.slope:.2f})")
    xs = np.geomspace(x.min(), x.max(), 50)
    if bound is not None:
        name, b = bound
        ax.loglog(xs, b(xs), color="0.45", linewidth=1.0, label=name, gid="bound")
    if reference:
        level = REFERENCE_OFFSET * np.max(y * (x / xs[-1]) ** -check.expected)
        ax.loglog(xs, level * (xs / xs[-1]) ** check.expected, linestyle=(0, (4, 3)), color=points.get_color(),
                  linewidth=1.2, gid="reference", zorder=points.get_zorder() + 1)
        ax.annotate(f"slope {check.expected:g}", (xs[-1], level), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=9, color=points.get_color(), annotation_clip=False)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    legend_outside(ax)
    return ax


def legend_outside(ax, **kwargs):
    """The axes' legend to the right of it, outside the data (the book's place for legends)."""
    return ax.legend(**{"loc": "upper left", "bbox_to_anchor": (1.0, 1.0), "fontsize": 9, **kwargs})
