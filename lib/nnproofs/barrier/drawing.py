"""Figures of chapter 4: the cost along a path, the functions along it, spherization and merging in the plane."""

from __future__ import annotations

import math

import numpy as np
import torch

from ..validate import finite_real
from .evaluation import Profile
from .costs import MAX_DRAWN
from .model import _choice, forward
from .paths import Path

COVER_COLORS = {"grid": "C1", "adaptive": "C2"}  # one colour per cover in every figure of the chapter


def _axes(name: str, value, count: int):
    """``value`` checked as ``count`` matplotlib axes (one Axes when ``count`` is 1), or new ones when ``None``."""
    from matplotlib.axes import Axes

    from ..plotting import new_axes

    if value is None:
        return new_axes(count)[1]
    found = [value] if count == 1 else value
    if (count > 1 and not isinstance(value, (list, tuple, np.ndarray))) or len(found) != count or not all(
            isinstance(a, Axes) for a in found):
        raise TypeError(f"{name} must be None or {'a matplotlib Axes' if count == 1 else f'{count} matplotlib Axes'},"
                        f" got {type(value).__name__}")
    return value


def _drawn(name: str, value, count: int) -> None:
    if count > MAX_DRAWN:
        raise ValueError(f"{name}: {count} elements to draw, more than MAX_DRAWN = {MAX_DRAWN} (a figure shows no more)")


def draw_profile(path_profile: Profile, ax=None, *, t: float | None = None, label: str | None = None,
                 color: str = "C1"):
    """Draw the cost along a path with its segment boundaries, each segment labelled by its kind.

    Parameters
    ----------
    path_profile : Profile
        From :func:`profile`.
    ax : matplotlib Axes, optional
        Where to draw (new axes when ``None``).
    t : float, optional
        Path time to mark with a dashed line.
    label : str, optional
        Legend label of the curve.
    color : str
        The curve's colour (the book gives each cover one colour: ``COVER_COLORS``).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> barrier.draw_profile(barrier.profile(path, x, y, loss="huber", lam=1e-3))  # doctest: +SKIP

    Notes
    -----
    Budget: at most ``MAX_DRAWN`` segments drawn.
    """
    if not isinstance(path_profile, Profile):
        raise TypeError(f"path_profile must be a Profile, got {type(path_profile).__name__}")
    _drawn("path_profile", path_profile, len(path_profile.kinds))
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be None or a str, got {type(label).__name__}")
    if not isinstance(color, str):
        raise TypeError(f"color must be a matplotlib colour name (a str), got {type(color).__name__}")
    ax = _axes("ax", ax, 1)
    ax.plot(path_profile.t, path_profile.cost, color=color, label=label)
    for b in path_profile.boundaries[1:-1]:
        ax.axvline(b, color="0.8", linewidth=0.8)
    low, high = float(path_profile.cost.min()), float(path_profile.cost.max())
    pad = 0.05 * (high - low) if high > low else 0.05 * abs(high) + 1e-12
    ax.set_ylim(low - pad, high + 4 * pad)
    for i, kind in enumerate(path_profile.kinds):
        ax.text((i + 0.5) / len(path_profile.kinds), high + 3.5 * pad, kind, rotation=90, fontsize=10, ha="center",
                va="top", color="0.4")
    if t is not None:
        ax.axvline(finite_real("t", t), color="k", linestyle="--")
    ax.set(xlabel="path time $t$", title="cost along the path")
    return ax


def draw_path_state(path: Path, path_profile: Profile, t: float, axes=None, *, legend: bool = True):
    """Draw the path at time ``t``: the functions of both ends and of ``γ(t)``, and the cost profile.

    Parameters
    ----------
    path : Path
        A path between networks with ``n ≤ 2`` inputs.
    path_profile : Profile
        Its profile (:func:`profile`).
    t : float
        The path time in ``[0, 1]``.
    axes : two matplotlib Axes, optional
        Where to draw (new ones when ``None``).
    legend : bool
        Draw the left legend outside its axes.

    Returns
    -------
    (left, right) : matplotlib Axes
        Left: ``f_A``, ``f_B`` and ``f_{γ(t)}`` (``n = 1``: on ``[−1, 1]``; ``n = 2``: at angle ``φ`` on the
        unit circle). Right: :func:`draw_profile` with the marker at ``t``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> path = barrier.constructive_path(A, B, x)
    >>> fig, axes = plt.subplots(1, 2)
    >>> left, right = barrier.draw_path_state(path, barrier.profile(path, x, y, loss="huber", lam=1e-3), 0.5, axes)
    >>> plt.close(fig)

    Notes
    -----
    On ℝ² the unit circle determines a bias-free network, since ``f(x) = ‖x‖ f(x/‖x‖)``.
    Budget: ``721 × 3`` network evaluations, at most ``MAX_DRAWN`` segments.
    """
    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    _drawn("path", path, len(path.segments))
    t = finite_real("t", t)
    if not 0 <= t <= 1:
        raise ValueError(f"t must be in [0, 1], got {t!r}")
    n = path.segments[0].W0.shape[1]
    if n > 2:
        raise ValueError(f"draw_path_state draws networks with n <= 2 inputs, got n = {n}")
    left, right = _axes("axes", axes, 2)
    device = path.segments[0].W0.device
    if n == 1:
        grid = torch.linspace(-1, 1, 401, dtype=torch.float64, device=device)
        points, xlabel = grid[:, None], "$x$"
    else:
        grid = torch.linspace(0, 2 * math.pi, 721, dtype=torch.float64, device=device)
        points, xlabel = torch.stack([grid.cos(), grid.sin()], 1), r"angle $\varphi$ on the unit circle"
    W, a = path.evaluate([0.0, 1.0, t])
    values = forward(W, a, points).cpu().numpy()
    abscissa = grid.cpu().numpy()
    left.plot(abscissa, values[0], color="C0", linewidth=4, alpha=0.45, label="$f_A$ (wide)")
    left.plot(abscissa, values[1], color="C5", linewidth=1.5, linestyle=":", label="$f_B$ (dotted)")
    left.plot(abscissa, values[2], color="k", linewidth=1, label=r"$f_{\gamma(t)}$")
    left.set(xlabel=xlabel, title="the networks")
    if not isinstance(legend, bool):
        raise TypeError(f"legend must be a bool, got {type(legend).__name__}")
    if legend:
        from ..plotting import legend_outside

        legend_outside(left, fontsize=10)
    draw_profile(path_profile, right, t=t)
    return left, right


def draw_directions(path: Path, ax=None, *, side: str = "A", legend: bool = True):
    """Draw spherization and merging of one network of a path on ℝ² (its first layer, in the plane).

    Parameters
    ----------
    path : Path
        From :func:`constructive_path`, between networks on ℝ².
    ax : matplotlib Axes, optional
        Where to draw (new axes when ``None``).
    side : {"A", "B"}
        Which network.
    legend : bool
        Draw the legend outside the axes (:func:`nnproofs.plotting.legend_outside`).

    Returns
    -------
    matplotlib Axes
        Each neuron ``w_j`` a dot (area ∝ ``|a_j|``), a grey segment to ``w_j/‖w_j‖`` on the unit circle, a
        coloured chord from there to its cell centre ``u_{k(j)}``; crosses at the cover's centres.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> fig, ax = plt.subplots()
    >>> ax = barrier.draw_directions(barrier.constructive_path(A, B, x, cover="grid"), ax)
    >>> plt.close(fig)

    Notes
    -----
    Budget: at most ``MAX_DRAWN`` neurons.
    """
    if not isinstance(path, Path) or "canonical" not in path.info:
        raise TypeError(f"path must be a Path from constructive_path, got {type(path).__name__}")
    side = _choice("side", side, ("A", "B"))
    W, a = path.start if side == "A" else path.end
    if W.shape[1] != 2:
        raise ValueError(f"draw_directions draws networks with n = 2 inputs, got n = {W.shape[1]}")
    canonical = path.info["canonical"][0 if side == "A" else 1]
    _drawn("path", path, W.shape[0])
    ax = _axes("ax", ax, 1)
    W, a = W.cpu().numpy(), a.cpu().numpy()
    norms = np.linalg.norm(W, axis=1)
    on_sphere = W / np.where(norms > 0, norms, 1.0)[:, None]
    centres = canonical.centres.cpu().numpy()
    target = centres[canonical.assignment.cpu().numpy()]
    angle = np.linspace(0, 2 * math.pi, 361)
    ax.plot(np.cos(angle), np.sin(angle), color="0.75", linewidth=0.8)
    for w, s_, u in zip(W, on_sphere, target):
        ax.plot([w[0], s_[0]], [w[1], s_[1]], color="0.6", linewidth=0.8)
        ax.plot([s_[0], u[0]], [s_[1], u[1]], color="C3", linewidth=1.5)
    size = 300 * np.abs(a) / max(float(np.abs(a).max()), 1e-300)
    ax.scatter(W[:, 0], W[:, 1], s=size, color="C0", zorder=3)
    ax.scatter(centres[:, 0], centres[:, 1], marker="x", color="k", zorder=4)
    # legend entries of one readable size (the neurons' areas vary; a shrunk legend loses the crosses)
    ax.scatter([], [], s=40, color="C0", label=r"neurons $w_j$ (area $\propto |a_j|$)")
    ax.scatter([], [], s=40, marker="x", color="k", label="cell centres $u_k$")
    ax.plot([], [], color="0.6", label="spherize (exact)")
    ax.plot([], [], color="C3", label="merge (certified)")
    ax.set_aspect("equal")
    ax.set(xlim=(-1.15, 1.15), ylim=(-1.15, 1.15), xlabel="$w_1$", ylabel="$w_2$")
    if not isinstance(legend, bool):
        raise TypeError(f"legend must be a bool, got {type(legend).__name__}")
    if legend:
        from ..plotting import legend_outside

        legend_outside(ax, fontsize=10)
    return ax
