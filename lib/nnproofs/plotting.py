"""The book's log-log figure: measured points, the predicted rate as a reference line, the fit.

The reference line has the theorem's slope and passes through the log-centroid of the measured
points, :math:`(\\exp\\overline{\\log x}, \\exp\\overline{\\log y})`, so it sits on the data
whatever the constant; the legend gives the fitted slope beside the predicted one.
"""

from __future__ import annotations

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
    color: str | None = None,
    marker: str = "o",
):
    """Draw ``check.y`` against ``check.x`` on log-log axes with the predicted slope; return ``ax``.

    The reference line is dark and dashed and drawn on top, so it stays visible where it coincides
    with the data. Axis labels are set only when given, so several checks can share one axes.
    """
    if not isinstance(check, RateCheck):
        raise TypeError(f"check must be a RateCheck, got {type(check).__name__}")
    if ax is None:
        _, ax = new_axes()
    x, y = np.asarray(check.x), np.asarray(check.y)
    (points,) = ax.loglog(x, y, marker=marker, linestyle="-", color=color,
                          label=f"{label} (fitted slope {check.fit.slope:.2f})")
    if reference:
        cx, cy = np.exp(np.log(x).mean()), np.exp(np.log(y).mean())
        xs = np.array([x.min(), x.max()])
        ax.loglog(xs, cy * (xs / cx) ** check.expected, linestyle=(0, (4, 3)), color="0.2", linewidth=1.2,
                  zorder=3, label=f"predicted slope {check.expected:g}", gid="reference")
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.legend()
    return ax
