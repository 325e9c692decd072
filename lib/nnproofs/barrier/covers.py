"""Covers of the sphere :math:`S^{n-1}` (and of the ball :math:`B^n`, for the control without spherization)."""

from __future__ import annotations

import functools
import math

import torch

from ..validate import positive_int
from . import costs
from .model import _device, _float64


def _candidates(n: int, count: int, *, ball: bool, device) -> torch.Tensor:
    """``count`` deterministic quasi-random points on S^{n−1} (or in B^n): scrambled Sobol → Gaussian → normalised."""
    engine = torch.quasirandom.SobolEngine(n + int(ball), scramble=True, seed=0)
    u = engine.draw(count, dtype=torch.float64).clamp(1e-12, 1 - 1e-12).to(device)
    g = math.sqrt(2.0) * torch.erfinv(2 * u[:, :n] - 1)
    points = g / g.norm(dim=1, keepdim=True)
    return points * u[:, n:] ** (1.0 / n) if ball else points


@functools.lru_cache(maxsize=64)
def _centroidal_cover(n: int, cells: int, ball: bool) -> torch.Tensor:
    """A centroidal Voronoi cover of S^{n−1} or B^n on the CPU (cached: it depends on ``(n, K)`` only).

    :func:`weighted_kmeans` with unit weights on ``max(2048, 16K)`` quasi-random candidates: farthest
    points, then at most 30 Lloyd steps (centre = mean of its candidates, normalised on the sphere).
    Farthest points alone crowd the boundary of the ball, which steepens the measured rate at small ``K``.
    """
    candidates = _candidates(n, max(2048, 16 * cells), ball=ball, device="cpu")
    return weighted_kmeans(candidates, torch.ones(len(candidates), dtype=torch.float64), cells, sphere=not ball,
                           iterations=30)


def sphere_cover(n: int, cells: int, *, device=None) -> torch.Tensor:
    """``cells`` centres on the unit sphere S^{n−1} with covering radius ``O(K^{−1/(n−1)})``.

    Parameters
    ----------
    n : int
        Dimension of the ambient space.
    cells : int
        The number ``K`` of centres (ignored for ``n = 1``).
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    tensor (K, n), float64
        ``n = 1``: S⁰ = {+1, −1} itself (covering radius 0); ``n = 2``: the centres of ``K`` equal
        sectors, angles ``(k + ½)2π/K`` (radius ``2 sin(π/2K)``); ``n = 3``: the Fibonacci lattice;
        ``n ≥ 4``: a centroidal Voronoi cover of quasi-random points.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> centres = barrier.sphere_cover(3, 10)
    >>> tuple(centres.shape), bool(torch.allclose(centres.norm(dim=1), torch.ones(10, dtype=torch.float64)))
    ((10, 3), True)

    Notes
    -----
    Deterministic. Budget: ``31·max(2048, 16K)·K·(n+1)`` multiply-adds for ``n ≥ 4`` (``K·n`` below)
    within ``budget.work()``.
    """
    n, cells, device = positive_int("n", n), positive_int("cells", cells), _device(device)
    costs.refuse("n and cells", (n, cells), **dict(zip(("work", "memory"), costs.cover(n, cells))))
    if n == 1:
        return torch.tensor([[1.0], [-1.0]], dtype=torch.float64, device=device)
    k = torch.arange(cells, dtype=torch.float64, device=device)
    if n == 2:
        angle = (k + 0.5) * 2 * math.pi / cells
        return torch.stack([angle.cos(), angle.sin()], dim=1)
    if n == 3:
        z = 1 - (2 * k + 1) / cells
        phi = k * math.pi * (3 - math.sqrt(5.0))
        rho = (1 - z**2).sqrt()
        return torch.stack([rho * phi.cos(), rho * phi.sin(), z], dim=1)
    return _centroidal_cover(n, cells, False).to(device=device, copy=True)


def ball_cover(n: int, cells: int, *, device=None) -> torch.Tensor:
    """``cells`` centres in the unit ball B^n with covering radius ``O(K^{−1/n})``.

    Parameters
    ----------
    n : int
        Dimension.
    cells : int
        The number ``K`` of centres.
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    tensor (K, n), float64
        A centroidal Voronoi cover of quasi-random points in the ball.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> centres = barrier.ball_cover(2, 8)
    >>> tuple(centres.shape), bool((centres.norm(dim=1) <= 1).all())
    ((8, 2), True)

    Notes
    -----
    The cover of the negative control without spherization (``spherization="none"``). Deterministic and
    cached per ``(n, K)``. Budget: ``31·max(2048, 16K)·K·(n+1)`` multiply-adds within ``budget.work()``.
    """
    n, cells, device = positive_int("n", n), positive_int("cells", cells), _device(device)
    costs.refuse("n and cells", (n, cells), **dict(zip(("work", "memory"), costs.cover(n, cells, ball=True))))
    return _centroidal_cover(n, cells, True).to(device=device, copy=True)


def weighted_kmeans(points: torch.Tensor, weights: torch.Tensor, cells: int, *, sphere: bool = True,
                    iterations: int = 60) -> torch.Tensor:
    """Centres of ``weights``-weighted k-means of ``points`` (spherical k-means when ``sphere``).

    Parameters
    ----------
    points : tensor (m, n)
        The points (the first-layer weights ``w̃_j``).
    weights : tensor (m,)
        Their weights (``|ã_j|``; the absolute value is taken).
    cells : int
        The largest number of centres ``K``.
    sphere : bool
        Normalise the centres onto the unit sphere after each step.
    iterations : int
        The largest number of Lloyd steps.

    Returns
    -------
    tensor (K', n), float64
        ``K' ≤ cells`` centres (fewer when no weighted distance is left).

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> points = torch.tensor([[1.0, 0.0], [0.8, 0.6], [-1.0, 0.0], [-0.8, -0.6]], dtype=torch.float64)
    >>> tuple(barrier.weighted_kmeans(points, torch.ones(4), 2).shape)
    (2, 2)

    Notes
    -----
    Deterministic: weighted farthest-point start, then Lloyd steps until the assignment is stable. It
    minimises ``Σ_j ω_j ‖p_j − u_{k(j)}‖²`` locally, a proxy for the merge moment
    ``Σ_j ω_j ‖p_j − u_{k(j)}‖``.
    Budget: ``(iterations + 1)·m·K·n`` multiply-adds within ``budget.work()``.
    """
    cells, iterations = positive_int("cells", cells), positive_int("iterations", iterations)
    if not isinstance(sphere, bool):
        raise TypeError(f"sphere must be a bool, got {type(sphere).__name__}")
    points = _float64("points", points)
    if points.ndim != 2 or points.shape[0] < 1 or points.shape[1] < 1:
        raise ValueError(f"points must have shape (m, n) with m, n >= 1, got {tuple(points.shape)}")
    work, memory = costs.kmeans(points.shape[0], points.shape[1], min(cells, points.shape[0]), iterations)
    costs.refuse("points, cells and iterations", (tuple(points.shape), cells, iterations), work=work, memory=memory)
    weights = _float64("weights", weights).to(points.device).abs()
    if weights.shape != (points.shape[0],):
        raise ValueError(f"weights must have shape ({points.shape[0]},) to match points, got {tuple(weights.shape)}")
    chosen = [int(weights.argmax())]
    distance2 = ((points - points[chosen[0]]) ** 2).sum(1)
    for _ in range(1, min(cells, points.shape[0])):
        score = weights * distance2
        j = int(score.argmax())
        if float(score[j]) <= 0:
            break
        chosen.append(j)
        distance2 = torch.minimum(distance2, ((points - points[j]) ** 2).sum(1))
    centres = points[chosen].clone()
    assignment = None
    for _ in range(iterations):
        new_assignment = torch.cdist(points, centres).argmin(1)
        if assignment is not None and bool((new_assignment == assignment).all()):
            break
        assignment = new_assignment
        mass = torch.zeros(len(centres), dtype=points.dtype, device=points.device).index_add_(0, assignment, weights)
        sums = torch.zeros_like(centres).index_add_(0, assignment, weights[:, None] * points)
        update = sums / mass.clamp_min(torch.finfo(points.dtype).tiny)[:, None]
        keep = mass <= 0
        if sphere:
            norm = update.norm(dim=1, keepdim=True)
            keep |= norm[:, 0] <= 1e-12
            update = update / norm.clamp_min(1e-300)
        centres = torch.where(keep[:, None], centres, update)
    return centres
