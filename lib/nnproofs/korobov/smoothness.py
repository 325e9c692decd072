"""Chapter 2: the target's second differences along lines, a test of class membership that no grid can hide.

The surpluses of a sparse grid (:func:`nnproofs.korobov.checks.scaled_surplus_maxima`) see a kink
only through the grid's own nodes: a kink *at* a dyadic node, or within round-off of one, makes
every surplus decay as for a smooth target. :func:`second_differences` measures
:math:`\\max|\\Delta^2_{h,j} f|/h^2` on lines across the whole cube with steps :math:`h` that do not
depend on any grid: bounded (it tends to :math:`\\max|\\partial_j^2 f|`) for a target with bounded
second derivatives, as every :math:`X^m_\\infty`, :math:`m \\ge 2`, is; growing like :math:`1/h` at a
kink and like :math:`h^{-3/2}` at a square root.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable

import torch

from .. import device as book_device
from ..measure import evaluate_target
from ..validate import positive_int

STEPS = (1e-2, 1e-3, 1e-4, 1e-5)  # h; the finest line step is STEPS[-1], every coarser h is a multiple of it
LINES = 4  # lines along each coordinate, at uniform random positions of the other coordinates
# Growth of max|Δ²_h f|/h² over the last decade of h (1e-4 -> 1e-5) allowed: 2. Bounded second derivatives give 1
# (measured 1.00 on every in-class target of the chapter and its tests, d = 1..5); a kink gives 10 asymptotically
# (measured 5.7 to 9.8: the nearest line point lies within h/2 of the kink), a square root 10^(3/2) (12 to 28),
# |x - a|^(3/2), outside X^2_inf, 10^(1/2) (2.7 to 3.1).
SECOND_DIFFERENCE_GROWTH = 2.0


def _maxima(f: Callable, d: int, device: str) -> tuple[float, ...]:
    generator = torch.Generator().manual_seed(0)
    step = STEPS[-1]
    points = int(round(1 / step))
    maxima = [0.0] * len(STEPS)
    for j in range(d):
        x = torch.rand(LINES, 1, d, generator=generator, dtype=torch.float64).repeat(1, points, 1)
        offset = torch.rand(LINES, 1, generator=generator, dtype=torch.float64) * step  # off every dyadic node
        x[:, :, j] = offset + step * torch.arange(points, dtype=torch.float64)
        x = x.reshape(-1, d).to(device)
        raw = f(x[:1])
        if isinstance(raw, torch.Tensor) and raw.dtype != torch.float64:
            raise TypeError(f"f must return float64 values (its second differences at h = {step:g} are read), "
                            f"got {raw.dtype}")
        values = evaluate_target(f, x).reshape(LINES, points)
        for i, h in enumerate(STEPS):
            s = int(round(h / step))
            second = values[:, 2 * s:] - 2 * values[:, s:-s] + values[:, : -2 * s]
            maxima[i] = max(maxima[i], float(second.abs().max()) / h**2)
    return tuple(maxima)


_cached_maxima = functools.lru_cache(maxsize=32)(_maxima)


def second_differences(f: Callable[[torch.Tensor], torch.Tensor], d: int) -> tuple[list[float], float]:
    """:math:`M(h) = \\max_j \\max_{\\text{lines}} |f(x + h e_j) - 2 f(x) + f(x - h e_j)|/h^2` for :math:`h` in ``STEPS``, and its last growth.

    Along each coordinate :math:`j`, ``LINES`` lines cross :math:`[0,1]^d` at uniform random positions of
    the other coordinates (fixed seed); on each, :math:`f` is evaluated with step
    :math:`h_{\\min} = 10^{-5}` from a random offset, and every second difference of step :math:`h` is
    taken over the whole line, so a kink anywhere on the line, dyadic or not, lies within
    :math:`h_{\\min}/2` of a point. For :math:`|\\partial_j^2 f| \\le C`, :math:`M(h) \\le C`; a jump
    :math:`J` of :math:`\\partial_j f` gives :math:`M(h) \\ge J/(2h)`. Returned: :math:`[M(h)]` and the
    growth :math:`M(10^{-5})/M(10^{-4})` (1 when both vanish); round-off adds
    :math:`4\\varepsilon\\max|f|/h^2 \\approx 10^{-5}\\max|f|` at the finest step, which is why ``f`` must
    return float64 (float32 values would add :math:`2.4\\cdot 10^{3}\\max|f|`: a TypeError). Cached per target
    object, as :func:`nnproofs.korobov.super_checks._network_b_errors` (unhashable targets are not).

    What passes: a kink whose jump of slope is below about :math:`10^{-5}` times
    :math:`\\max|\\partial_j^2 f|` (:math:`M` is then dominated by the smooth part down to
    :math:`10^{-5}`), and a kink confined to a part of the cube that no line crosses. Mixed
    derivatives are not tested here (their differences reach round-off near :math:`h = 10^{-3}`): the
    surplus decay of the checks speaks of those.
    """
    positive_int("d", d)
    compute = _cached_maxima if isinstance(f, Hashable) else _maxima
    maxima = list(compute(f, d, str(book_device.device())))
    growth = maxima[-1] / maxima[-2] if maxima[-2] > 0 else (float("inf") if maxima[-1] > 0 else 1.0)
    return maxima, growth
