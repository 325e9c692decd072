"""The book's log-log figure: measured points, the predicted rate as a reference line, the fit.

The reference line has the theorem's slope :math:`\\alpha` and is drawn *above* the data, a factor
``REFERENCE_OFFSET`` over the highest point once the slope is taken out,

.. math:: y_{\\rm ref}(x) = \\mathrm{REFERENCE\\_OFFSET} \\cdot \\max_i \\big(y_i (x/x_i)^{\\alpha}\\big),

so that it never hides the points it is compared with; it is labelled beside its right end. When the
theorem's bound is known with its constant, ``bound`` draws it too. The legend, outside the axes, gives
each series' fitted slope.
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np

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


def new_axes(ncols: int = 1, **kwargs):
    """A figure in the book's style with ``ncols`` axes side by side; returns ``(fig, axes)``."""
    plt.rcParams.update(STYLE)
    width, height = STYLE["figure.figsize"]
    kwargs.setdefault("figsize", (width, height) if ncols == 1 else (min(4.8 * ncols, 12.8), height * 0.9))
    return plt.subplots(1, ncols, layout="constrained", **kwargs)


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
                  linewidth=1.2, gid="reference")
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
