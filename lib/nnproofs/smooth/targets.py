"""The chapter's targets: in the class of Theorem ``thm-constant-depth`` (smooth) and just outside it (Hölder)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..validate import finite_real


def _points(x, dims: tuple = (1, 2)) -> torch.Tensor:
    """``x`` if it is a floating ``(n, d)`` tensor with ``d`` in ``dims``, else an error naming ``x``."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be an (n, d) torch tensor, got {type(x).__name__}")
    if x.ndim != 2 or x.shape[1] not in dims or not x.dtype.is_floating_point:
        raise ValueError(f"x must be a floating (n, d) tensor with d in {dims}, got shape {tuple(x.shape)}, {x.dtype}")
    if x.is_meta:
        raise ValueError("x must hold values (a meta tensor has none)")
    if not bool(torch.isfinite(x).all()):
        raise ValueError("x must be finite (points of [0, 1]^d), got NaN or inf")
    return x


def chapter_target(x: torch.Tensor) -> torch.Tensor:
    """The chapter's target on ``[0, 1]^d``.

    Parameters
    ----------
    x : torch.Tensor
        ``(n, d)`` float64 points, ``d`` 1 or 2.

    Returns
    -------
    torch.Tensor
        ``sin(2πx_1) + e^{x_1}/2`` for ``d = 1``; ``sin(2πx_1) cos(πx_2) + e^{x_1 x_2}/2`` for ``d = 2``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> smooth.chapter_target(torch.zeros(1, 1, dtype=torch.float64)).item()
    0.5

    Notes
    -----
    Analytic: in every class ``C^{k+1}`` of Theorem ``thm-constant-depth``.
    """
    if _points(x).shape[1] == 1:
        return torch.sin(2 * math.pi * x[:, 0]) + 0.5 * torch.exp(x[:, 0])
    return torch.sin(2 * math.pi * x[:, 0]) * torch.cos(math.pi * x[:, 1]) + 0.5 * torch.exp(x[:, 0] * x[:, 1])


def convex_target(x: torch.Tensor) -> torch.Tensor:
    """``f(x) = e^x`` on ``[0, 1]``, the target of the ReLU floor.

    Parameters
    ----------
    x : torch.Tensor
        ``(n, 1)`` float64 points.

    Returns
    -------
    torch.Tensor
        ``e^{x_1}``, shape ``(n,)``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> smooth.convex_target(torch.zeros(1, 1, dtype=torch.float64)).item()
    1.0

    Notes
    -----
    ``f'' >= 1``: curvature ``μ = 1`` (:func:`check_curvature`).
    """
    _points(x, (1,))
    return torch.exp(x[:, 0])


def learning_target(x: torch.Tensor) -> torch.Tensor:
    """``f(x) = sin(2πx) e^{-x}`` on ``[0, 1]``, the target of the learning curves.

    Parameters
    ----------
    x : torch.Tensor
        ``(n, 1)`` float64 points.

    Returns
    -------
    torch.Tensor
        The values, shape ``(n,)``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> smooth.learning_target(torch.zeros(1, 1, dtype=torch.float64)).item()
    0.0

    Notes
    -----
    Analytic, so the minimax rate of the learning theorem is ``n^{-1}`` up to logarithms.
    """
    _points(x, (1,))
    return torch.sin(2 * math.pi * x[:, 0]) * torch.exp(-x[:, 0])


def holder_target(alpha: float, centre: float = 0.37) -> Callable[[torch.Tensor], torch.Tensor]:
    """``f(x) = |x_1 - centre|^α``: Hölder smooth of order exactly ``α``.

    Parameters
    ----------
    alpha : float
        The exponent ``α > 0``.
    centre : float
        The singular point, in ``(0, 1)``; the default is not a breakpoint of any grid used here.

    Returns
    -------
    callable
        ``f``, ``(n, d)`` float64 tensor to ``(n,)``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> smooth.holder_target(2.0, 0.5)(torch.zeros(1, 1, dtype=torch.float64)).item()
    0.25

    Notes
    -----
    In ``C^{⌊α⌋}``, not in ``C^{⌈α⌉}`` for non-integer ``α``: just outside the class of Theorem
    ``thm-constant-depth`` when ``α < k + 1``.
    """
    alpha, centre = finite_real("alpha", alpha), finite_real("centre", centre)
    if alpha <= 0:
        raise ValueError(f"alpha must be > 0 (a Hölder exponent), got {alpha!r}")
    if not 0 < centre < 1:
        raise ValueError(f"centre must be in (0, 1), got {centre!r}")

    def f(x: torch.Tensor) -> torch.Tensor:
        return (x[:, 0] - centre).abs() ** alpha

    f.__name__ = f"holder_{alpha:g}"
    return f
