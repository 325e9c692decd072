"""Measuring errors: non-dyadic grids, seeded random points and chunked sup-norms in float64.

Piecewise-linear constructions are often *exact* at dyadic points :math:`j 2^{-m}` (Yarotsky's
square interpolates :math:`x^2` there), so an error measured on a dyadic grid can read zero.
:func:`nondyadic_grid` shifts a uniform grid by the golden ratio's fractional part
:math:`\\theta = (\\sqrt5 - 1)/2`, which is irrational and has no short binary expansion.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from . import device as book_device
from .validate import positive_int

GOLDEN_SHIFT = (math.sqrt(5.0) - 1.0) / 2.0


def nondyadic_grid(n: int, a: float = 0.0, b: float = 1.0, *, device=None) -> torch.Tensor:
    """``n`` points ``a + (b − a)(i + θ)/n``, ``i = 0..n−1``, as a float64 column of shape ``(n, 1)``."""
    positive_int("n", n)
    if not (math.isfinite(a) and math.isfinite(b) and a < b):
        raise ValueError(f"need finite a < b, got a={a!r}, b={b!r}")
    i = torch.arange(n, dtype=torch.float64, device=device)
    return (a + (b - a) * (i + GOLDEN_SHIFT) / n)[:, None]


def sup_error(
    approx: Callable[[torch.Tensor], torch.Tensor],
    target: Callable[[torch.Tensor], torch.Tensor],
    points: torch.Tensor,
    *,
    chunk: int = 1 << 16,
) -> float:
    """``max_i |approx(x_i) − target(x_i)|`` over the rows of ``points`` (shape ``(n, d)``), in chunks.

    Both callables receive a ``(k, d)`` float64 tensor and return ``(k,)`` or ``(k, 1)`` values.
    A non-finite value anywhere raises a ValueError rather than yielding NaN.
    """
    if not isinstance(points, torch.Tensor) or points.ndim != 2 or points.shape[0] == 0:
        raise ValueError(f"points must be a non-empty (n, d) tensor, got {getattr(points, 'shape', type(points).__name__)}")
    positive_int("chunk", chunk)
    worst = 0.0
    with torch.no_grad():
        for start in range(0, points.shape[0], chunk):
            x = points[start : start + chunk]
            values = {"approx": approx(x).reshape(-1), "target": target(x).reshape(-1)}
            for label, v in values.items():
                if v.numel() != x.shape[0]:
                    raise ValueError(f"{label} must return one value per point, got {v.numel()} values for {x.shape[0]} points")
            diff = (values["approx"] - values["target"]).abs()
            if not torch.isfinite(diff).all():
                raise ValueError("the error is not finite at some point (NaN or inf in approx or target)")
            worst = max(worst, float(diff.max()))
    return worst


INPUTS = ("sphere", "ball")  # input laws D: uniform on the unit sphere S^{d-1}, uniform on the unit ball


def input_law(inputs) -> str:
    """``inputs`` if it names one of ``INPUTS``, else a ValueError."""
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {inputs!r}")
    return inputs


def sample_inputs(n: int, d: int, inputs: str = "sphere", *, generator: torch.Generator | None = None,
                  device=None) -> torch.Tensor:
    """``n`` points of :math:`D`: uniform on :math:`S^{d-1}` (``"sphere"``) or on the unit ball (``"ball"``), float64 ``(n, d)``.

    A normalised standard Gaussian vector is uniform on the sphere; times :math:`U^{1/d}`, :math:`U` uniform on
    :math:`[0, 1]`, it is uniform on the ball. Drawn from ``generator`` (on its device), else on ``device``.
    """
    n, d, inputs = positive_int("n", n), positive_int("d", d), input_law(inputs)
    device = generator.device if generator is not None else (device or book_device.device())
    g = torch.randn(n, d, dtype=torch.float64, device=device, generator=generator)
    x = g / g.norm(dim=1, keepdim=True)
    if inputs == "ball":
        x = x * torch.rand(n, 1, dtype=torch.float64, device=device, generator=generator) ** (1.0 / d)
    return x


def uniform_points(n: int, d: int, *, seed: int = 0, device=None) -> torch.Tensor:
    """``n`` uniform random points of :math:`[0,1)^d` (float64, fixed ``seed``): off every dyadic grid of level < 40 a.s."""
    positive_int("n", n)
    positive_int("d", d)
    device = book_device.device() if device is None else torch.device(device)
    generator = torch.Generator(device=device).manual_seed(seed)
    return torch.rand(n, d, generator=generator, dtype=torch.float64, device=device)


def significant(count: int, digits: int = 2) -> int:
    """The integer ``count`` rounded to ``digits`` significant digits (half away from zero), e.g. 26954 → 27000.

    For counts that move by a few units between machines (nonzero weights that are differences of
    quantised float64 values), printed at a resolution that this spread cannot cross.
    """
    positive_int("digits", digits)
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"count must be an int, got {count!r} ({type(count).__name__})")
    if count == 0:
        return 0
    unit = 10 ** max(len(str(abs(count))) - digits, 0)
    rounded = (abs(count) + unit // 2) // unit * unit
    return rounded if count > 0 else -rounded


def cell_quadrature(cells: int, nodes: int = 8, *, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """Composite Gauss–Legendre rule on :math:`[0, 1]` split into ``cells`` equal cells: points ``(cells·nodes, 1)``, weights.

    :math:`\\int_0^1 g \\approx \\sum_k \\sum_q w_q\\, g(x_{k,q})` with ``nodes`` Gauss points per cell
    :math:`[k/K, (k+1)/K]`: exact for polynomials of degree :math:`2\\,\\text{nodes} - 1` on every cell,
    so the error of a piecewise-polynomial network is integrated cell by cell, however localised;
    the nodes lie strictly inside the cells (off a cell's boundary by at least :math:`0.0198/K` for 8 nodes).
    """
    positive_int("cells", cells)
    positive_int("nodes", nodes)
    device = book_device.device() if device is None else torch.device(device)
    reference, weights = np.polynomial.legendre.leggauss(nodes)  # on [-1, 1]
    t = torch.as_tensor((reference + 1) / 2, dtype=torch.float64, device=device)
    w = torch.as_tensor(weights / 2, dtype=torch.float64, device=device)
    left = torch.arange(cells, dtype=torch.float64, device=device)[:, None]
    return ((left + t) / cells).reshape(-1, 1), (w / cells).repeat(cells)
