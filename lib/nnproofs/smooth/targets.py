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
    """The chapter's target: ``f(x) = sin(2πx_1) + e^{x_1}/2`` for ``d = 1``, and for ``d = 2``
    ``f(x) = sin(2πx_1) cos(πx_2) + e^{x_1 x_2}/2``; ``x`` has shape ``(n, d)``."""
    if _points(x).shape[1] == 1:
        return torch.sin(2 * math.pi * x[:, 0]) + 0.5 * torch.exp(x[:, 0])
    return torch.sin(2 * math.pi * x[:, 0]) * torch.cos(math.pi * x[:, 1]) + 0.5 * torch.exp(x[:, 0] * x[:, 1])


def convex_target(x: torch.Tensor) -> torch.Tensor:
    """``f(x) = e^x`` on ``[0, 1]``: ``f'' >= 1`` (the chapter's target for the ReLU floor, ``μ = 1``)."""
    _points(x, (1,))
    return torch.exp(x[:, 0])


def learning_target(x: torch.Tensor) -> torch.Tensor:
    """``f(x) = sin(2πx) e^{-x}`` on ``[0, 1]``: the target of the learning curves."""
    _points(x, (1,))
    return torch.sin(2 * math.pi * x[:, 0]) * torch.exp(-x[:, 0])


def holder_target(alpha: float, centre: float = 0.37) -> Callable[[torch.Tensor], torch.Tensor]:
    """``f(x) = |x_1 - centre|^α``: Hölder smooth of order exactly ``α`` (in ``C^{⌊α⌋}``, not in ``C^{⌈α⌉}``
    for non-integer ``α``), the target just outside the class of Theorem ``thm-constant-depth`` when
    ``α < k + 1``. ``centre`` defaults to a point that is not a breakpoint of any grid used here."""
    alpha, centre = finite_real("alpha", alpha), finite_real("centre", centre)
    if alpha <= 0:
        raise ValueError(f"alpha must be > 0 (a Hölder exponent), got {alpha!r}")
    if not 0 < centre < 1:
        raise ValueError(f"centre must be in (0, 1), got {centre!r}")

    def f(x: torch.Tensor) -> torch.Tensor:
        return (x[:, 0] - centre).abs() ** alpha

    f.__name__ = f"holder_{alpha:g}"
    return f
