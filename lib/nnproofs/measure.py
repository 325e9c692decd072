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
ERROR_NORMS = ("L2", "Linf", "H1")  # interpolation_error: Monte Carlo L2, sample maximum, Monte Carlo H1 semi-norm


def evaluate_target(f: Callable, x: torch.Tensor, name: str = "f") -> torch.Tensor:
    """``f(x)`` as a finite float64 ``(n,)`` tensor on ``x``'s device, or an error naming ``name``."""
    values = f(x)
    if not isinstance(values, torch.Tensor):
        raise TypeError(f"{name} must return a torch.Tensor, got {type(values).__name__}")
    if values.shape not in ((x.shape[0],), (x.shape[0], 1)):
        raise ValueError(f"{name} must return shape ({x.shape[0]},) for input {tuple(x.shape)}, got {tuple(values.shape)}")
    values = values.reshape(-1).to(device=x.device, dtype=torch.float64)
    if not bool(torch.isfinite(values).all()):
        raise ValueError(f"{name} returned non-finite values (NaN or inf) on [0, 1]^{x.shape[1]}")
    return values


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


def stratified_points(cells: int, minimum: int = 2048, *, seed: int = 0, device=None) -> torch.Tensor:
    """Uniform random points of :math:`[0, 1)`, the same number in every one of ``cells`` equal cells: ``(n, 1)``, float64.

    :math:`\\max(1, \\lceil \\text{minimum}/\\text{cells}\\rceil)` points per cell (``seed``): every cell is sampled, so an
    error localised in one cell enters a mean over the points with its weight :math:`1/\\text{cells}` (a stratified
    Monte Carlo estimate), and there are at least ``minimum`` points when the cells are few.
    """
    positive_int("cells", cells)
    positive_int("minimum", minimum)
    device = book_device.device() if device is None else torch.device(device)
    per_cell = max(1, -(-minimum // cells))
    left = torch.arange(cells, dtype=torch.float64, device=device).repeat_interleave(per_cell)[:, None]
    return (left + uniform_points(cells * per_cell, 1, seed=seed, device=device)) / cells


def cell_lp_error(model: Callable, f: Callable, *, cells: int, p: int = 1, nodes: int = 8,
                  block: int = 4096) -> float:
    """:math:`\\|f - \\text{model}\\|_{L_p(0, 1)}` by :func:`cell_quadrature`: exact cell by cell for piecewise polynomials.

    ``model`` and ``f`` map ``(n, 1)`` float64 tensors to ``(n,)`` or ``(n, 1)`` values; the
    ``cells·nodes`` points are evaluated in blocks of ``block``.
    """
    positive_int("p", p)
    positive_int("block", block)
    x, weights = cell_quadrature(cells, nodes)
    total = 0.0
    with torch.no_grad():
        for start in range(0, x.shape[0], block):
            chunk = x[start : start + block]
            error = model(chunk).reshape(-1) - f(chunk).reshape(-1)
            total += float((weights[start : start + block] * error.abs().pow(p)).sum())
    return total ** (1.0 / p)


def target_gradient(f: Callable, x: torch.Tensor) -> torch.Tensor:
    """:math:`\\nabla f(x)`, ``(n, d)``: by autograd if ``f`` is differentiable in torch, else central differences."""
    try:
        with torch.enable_grad():
            xr = x.detach().clone().requires_grad_(True)
            values = evaluate_target(f, xr)
            if values.requires_grad:
                (grad,) = torch.autograd.grad(values.sum(), xr, allow_unused=True)
                if grad is not None:
                    return grad.detach()
    except RuntimeError:  # f leaves torch (e.g. through numpy): differentiate numerically below
        pass
    h = 1e-6
    columns = []
    for j in range(x.shape[1]):
        up, down = x.clone(), x.clone()
        up[:, j] = (x[:, j] + h).clamp(max=1.0)
        down[:, j] = (x[:, j] - h).clamp(min=0.0)
        columns.append((evaluate_target(f, up) - evaluate_target(f, down)) / (up[:, j] - down[:, j]))
    return torch.stack(columns, dim=1)


GRADIENT_CHUNK = 512  # points differentiated at once: autograd keeps every intermediate of the forward pass


def values_and_gradient(network: Callable, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:math:`\\Phi(x)` ``(n,)`` and :math:`\\nabla\\Phi(x)` ``(n, d)`` of a scalar network, by one forward and backward pass per ``GRADIENT_CHUNK`` points.

    Exact almost everywhere for a ReLU network (torch takes :math:`\\rho'(0) = 0` at the kinks).
    """
    values, gradients = [], []
    with torch.enable_grad():
        for start in range(0, x.shape[0], GRADIENT_CHUNK):
            xr = x[start : start + GRADIENT_CHUNK].detach().clone().requires_grad_(True)
            out = network(xr).reshape(-1)
            (grad,) = torch.autograd.grad(out.sum(), xr)
            values.append(out.detach())
            gradients.append(grad)
    return torch.cat(values), torch.cat(gradients)


def network_gradient(network: Callable, x: torch.Tensor) -> torch.Tensor:
    """:math:`\\nabla\\Phi(x)`, ``(n, d)``, of a scalar network by automatic differentiation (:func:`values_and_gradient`)."""
    return values_and_gradient(network, x)[1]


def interpolation_error(interpolant: Callable, f: Callable, x: torch.Tensor, norm: str, *,
                        f_values: torch.Tensor | None = None, f_gradient: torch.Tensor | None = None) -> float:
    """Error of ``interpolant`` against ``f`` on the sample ``x``: RMS, maximum or RMS of the gradient.

    ``norm`` is ``L2``, ``Linf`` (the sample maximum) or ``H1``. ``L2``/``H1`` are Monte Carlo
    estimates of :math:`\\|f - I\\|_{L_2}` and :math:`|f - I|_{H^1}`
    on :math:`[0,1]^d`; for ``H1`` the interpolant must offer ``.gradient``.
    """
    if norm not in ERROR_NORMS:
        raise ValueError(f"norm={norm!r} is not allowed; use one of {', '.join(ERROR_NORMS)}")
    if norm == "H1":
        grad_f = target_gradient(f, x) if f_gradient is None else f_gradient
        return float((interpolant.gradient(x) - grad_f).pow(2).sum(1).mean().sqrt())
    error = interpolant(x) - (evaluate_target(f, x) if f_values is None else f_values)
    return float(error.pow(2).mean().sqrt()) if norm == "L2" else float(error.abs().max())
