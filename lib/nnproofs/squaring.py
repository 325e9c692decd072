"""The prelude's claim: Yarotsky's ReLU square, executed (Theorem ``thm-yarotsky-square``).

For :math:`m \\ge 1` the network :math:`f_m(x) = x - \\sum_{s=1}^m g_s(x)/4^s` of depth :math:`m`
and width 5 (:func:`nnproofs.gadgets.yarotsky_square`) satisfies

.. math:: \\sup_{x\\in[0,1]} |f_m(x) - x^2| = 2^{-2m-2}, \\qquad f_m \\text{ has } 2^m \\text{ linear pieces on } [0, 1].

:func:`check_yarotsky_square` measures both for any builder ``m -> network`` and fits the decay
of the error against the resolution :math:`2^m`: slope :math:`-2`, i.e. the error shrinks by the
factor 4 per added layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from . import device as book_device
from .gadgets import sawtooth_series, yarotsky_square
from .ledger import claim
from .measure import nondyadic_grid, sup_error
from .networks import architecture
from .pieces import linear_pieces
from .rates import RateCheck, rate_check
from .validate import positive_int

MAX_M = 20  # beyond this, 2^(-2m-2) nears float64 round-off of x^2 (2^-53) and a 1% check loses meaning
ERROR_RTOL = 0.01  # the theorem's equality, allowed 1%: the grid's deficit is <= 4^-6 = 2.4e-4 (see grid_size)
SLOPE_TOL = 0.02  # fitted slope -2 +- 0.02, i.e. decay factor 4 within 2.8% per layer


def default_ms() -> list[int]:
    """The depths the prelude measures: 1..10 at ``ci`` scale, 1..18 at ``full`` scale."""
    return list(range(1, book_device.sizes(ci=10, full=18) + 1))


def check_yarotsky_square(
    ms: Sequence[int],
    *,
    build: Callable[[int], nn.Module] = yarotsky_square,
    grid_size: int | None = None,
    device: torch.device | None = None,
) -> RateCheck:
    """Check Yarotsky's theorem on the networks ``build(m)`` for every ``m`` in ``ms``.

    Requirements: ``sup |build(m)(x) − x²| = 2^{-2m-2}`` within 1% for every ``m`` (measured on a
    non-dyadic grid of ``grid_size`` points, default ``2^(max(ms) + 6)``, so the grid misses the
    error's maxima at the dyadic midpoints by a relative ``≤ 4^-6``), and exactly ``2^m`` linear
    pieces on ``[0, 1]`` (counted exactly, :func:`nnproofs.pieces.linear_pieces`). Rate: the
    log-log slope of the error against ``2^m`` is ``−2 ± 0.02``.
    """
    if isinstance(ms, (str, bytes)) or not isinstance(ms, Sequence):
        raise TypeError(f"ms must be a sequence of ints, got {type(ms).__name__}")
    ms = [positive_int(f"ms[{i}]", m) for i, m in enumerate(ms)]
    if len(set(ms)) < 2:
        raise ValueError(f"ms needs at least two distinct depths to fit a rate, got {ms}")
    if max(ms) > MAX_M:
        raise ValueError(f"ms must be <= {MAX_M} (float64 cannot resolve 2^(-2m-2) beyond), got {max(ms)}")
    if not callable(build):
        raise TypeError(f"build must be a callable m -> torch.nn.Module, got {type(build).__name__}")
    device = book_device.device() if device is None else torch.device(device)
    grid_size = positive_int("grid_size", grid_size) if grid_size is not None else 2 ** (max(ms) + 6)
    x = nondyadic_grid(grid_size, device=device)
    errors, pieces, params = [], [], []
    for m in ms:
        net = build(m)
        dtypes = {p.dtype for p in net.parameters()}
        if dtypes != {torch.float64}:
            raise ValueError(f"build({m}) has parameters of dtype {sorted(map(str, dtypes))}; the check measures"
                             " errors down to 2^(-2m-2) and needs float64")
        net = net.to(device)
        errors.append(sup_error(net, lambda t: t**2, x))
        pieces.append(linear_pieces(net, 0.0, 1.0))
        params.append(architecture(net).parameters)
    ratios = [e / 2.0 ** (-2 * m - 2) for e, m in zip(errors, ms)]
    resolution = [2.0**m for m in ms]
    check = rate_check(
        "Yarotsky square: sup|f_m − x²| = 2^(−2m−2), 2^m pieces",
        resolution,
        errors,
        expected=-2.0,
        tolerance=SLOPE_TOL,
        quantity="slope of sup error against 2^m",
        requirements={
            f"sup error / 2^(−2m−2) in [{1 - ERROR_RTOL:g}, {1 + ERROR_RTOL:g}] for every m": all(
                abs(r - 1.0) <= ERROR_RTOL for r in ratios
            ),
            "exactly 2^m linear pieces on [0, 1] for every m": all(p == 2**m for p, m in zip(pieces, ms)),
        },
        notes={"m": ms, "error ratio to 2^(-2m-2)": ratios, "linear pieces": pieces, "parameters": params,
               "grid points": grid_size},
    )
    return check


def decay_factor(check: RateCheck) -> float:
    """Error reduction per added layer implied by the fitted slope: ``2^(−slope)`` (Yarotsky: 4)."""
    return 2.0 ** (-check.fit.slope)


def square_halving_control(m: int) -> nn.Module:
    """Negative control: ``x − Σ g_s/2^s`` (the factor ``4^s`` replaced by ``2^s``)."""
    positive_int("m", m)
    return sawtooth_series([2.0**-s for s in range(1, m + 1)])


def square_last_term_dropped(m: int) -> nn.Module:
    """Negative control: depth ``m`` but the ``g_m/4^m`` term dropped, i.e. ``f_{m-1}`` plus a dead layer."""
    positive_int("m", m)
    return sawtooth_series([4.0**-s for s in range(1, m)] + [0.0])


@claim("prelude/square", chapter="book/00_prelude", label="thm-yarotsky-square",
       statement="sup|f_m − x²| = 2^(−2m−2) and 2^m pieces; error ∝ (2^m)^−2")
def _claim_square() -> RateCheck:
    return check_yarotsky_square(default_ms())


@claim("prelude/control-halving", chapter="book/00_prelude", label="thm-yarotsky-square", control=True,
       statement="control: 4^s replaced by 2^s must be rejected")
def _control_halving() -> RateCheck:
    return check_yarotsky_square(default_ms(), build=square_halving_control)


@claim("prelude/control-dropped", chapter="book/00_prelude", label="thm-yarotsky-square", control=True,
       statement="control: last sawtooth term dropped must be rejected")
def _control_dropped() -> RateCheck:
    return check_yarotsky_square(default_ms(), build=square_last_term_dropped)
