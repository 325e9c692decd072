"""Chapter 2, the public checks of Networks B and C (``thm-korobov-super``, ``thm-korobov-sobolev``).

:func:`check_super_approximation` (:math:`L_p` error against the nominal :math:`WL`),
:func:`check_super_approximation_derivative` (Network B's derivative off its bands) and
:func:`check_partitioned_network` (Network C's derivative everywhere) build the networks for each
:math:`(W, L)` and return a :class:`nnproofs.rates.RateCheck`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Sequence

import torch

from .. import budget
from .. import device as book_device
from ..measure import (cell_quadrature, evaluate_target, significant, stratified_points, target_gradient,
                       uniform_points, values_and_gradient)
from ..rates import fit_loglog, rate_check, RateCheck
from ..validate import nonnegative_int, positive_int
from .bit_table import PROBE_BAND
from .network_b import band_profile, super_approximation_network
from .network_c import partitioned_network
from .smoothness import read_class, require_reading, verdict
from .sizes import (NONZERO_KEY, PARAMETER_DIGITS, require_coefficient_scale, require_count, require_smoothness,
                    require_wl)


NORMS_P = (1, 2)  # L_p norms of Network B's error that check_super_approximation measures
GAUSS_NODES = 8  # Gauss-Legendre points per cell for Network B's L_p error in d = 1
MAX_CHECK_DIMENSION = 2  # n^(d-1) is the asymptotic logarithm; at n <= 12 it over-corrects the slope for d >= 3
BAND_SHARE = 0.5  # the bands may contribute at most half of ||f - Phi||_p^p
# Monte Carlo points of the d = 2 error, at least: the relative standard error of ||e||_p is CV(|e|^p)/(p sqrt(N)),
# with CV(|e|^p)/p at most 1.45 measured (a Gaussian bump, p = 2, levels 4..10); from 1024 points it is <= 4.5%,
# which moves the slope over WL = 4..16 by about 0.05 (one standard deviation), a quarter of the tolerance.
MIN_SAMPLES = 1024
SLOPE_TOLERANCE = 0.2  # of the slope against W·L
STEEPENING = 0.05  # local slopes that steepen by more than this at every step, the last meeting the rate: pre-asymptotic


@functools.lru_cache(maxsize=32)
def _network_b_errors(f: Callable, m: int, W: int, L: int, d: int, coefficient_bits: int | None, samples: int,
                      device: str, coefficient_scale: float = 1.0) -> dict:
    """Network B for one ``(W, L)``, built and measured for every ``p`` in ``NORMS_P`` (:func:`check_super_approximation`).

    Cached (the 32 latest): the :math:`L_1` and :math:`L_2` checks of one target share the network and
    its values, the costly part. The key is the target object itself, so a target must not change
    its values between calls (a redefined function is a new key; an unhashable one is not cached);
    ``device`` (``BOOK_DEVICE``'s, where everything is built) is part of the key.
    """
    network = super_approximation_network(f, m=m, W=W, L=L, d=d, coefficient_bits=coefficient_bits,
                                          coefficient_scale=coefficient_scale)
    if d == 1:  # Gauss-Legendre on every cell: the network is a polynomial there, off the bands
        x, weights = cell_quadrature(network.K, GAUSS_NODES)
    else:
        x = uniform_points(samples, d, seed=2)
        weights = torch.full((samples,), 1.0 / samples, dtype=torch.float64, device=x.device)
    f_values = evaluate_target(f, x)
    with torch.no_grad():
        values, in_band = network.evaluate(x)
    reference = network.interpolant(x)
    off = ~in_band
    f_max = float(f_values.abs().max())
    if d == 1:
        in_bands = band_profile(network, f).error_integrals
    else:  # a priori: |f - Phi| <= M + max|f| on bands of measure band_measure
        in_bands = {p: (network.clip_level + f_max) ** p * network.band_measure for p in NORMS_P}
    return {
        "sampled": {p: float((weights * (values - f_values).abs().pow(p)).sum()) for p in NORMS_P},
        "in the bands": {p: in_bands[p] for p in NORMS_P},
        "interpolant": {p: float((weights * (reference - f_values).abs().pow(p)).sum()) for p in NORMS_P},
        "distance": float((values - reference)[off].abs().max()),
        "interpolant sup off the bands": float((reference - f_values)[off].abs().max()),
        "error_bound": network.error_bound, "max |f|": f_max, "band fraction": float(in_band.double().mean()),
        "n^(d-1)": float(network.level ** (d - 1)), "interpolant object": network.interpolant,
        "resources": {"W": W, "L": L, "K": network.K, "J": network.J, "s": network.s, "width": network.width,
                      "depth": network.depth, NONZERO_KEY: significant(network.nonzero_parameters, PARAMETER_DIGITS),
                      "stored bits": network.stored_bits},
    }


def check_super_approximation(f: Callable[[torch.Tensor], torch.Tensor], *, m: int, WL: Sequence[tuple[int, int]],
                              d: int = 1, coefficient_bits: int | None = None, samples: int = 4096,
                              p: int = 1, coefficient_scale: float = 1.0) -> RateCheck:
    """Theorem ``thm-korobov-super``: :math:`\\|f - \\Phi_{W,L}\\|_{L_p} \\approx C (WL)^{-2m} n^{d-1}`, :math:`n = \\log_2 (WL)^2`.

    For every ``(W, L)`` in ``WL`` Network B (:func:`super_approximation_network`) is built and its
    :math:`L_p` error (``p`` 1 or 2) measured in two parts,

    .. math:: \\|f - \\Phi\\|_{L_p}^p \\approx \\sum_{k=0}^{K-1}\\sum_{q=1}^{8} w_q\\,|f - \\Phi|^p(x_{k,q})
              + \\int_{\\Omega_\\varepsilon} |f - \\Phi|^p:

    off the bands Network B is a polynomial of degree :math:`m - 1` on every cell :math:`[k/K, (k+1)/K)`
    (up to its products' :math:`4^{-s}`), so the first term is an 8-point Gauss–Legendre rule on every
    cell (:func:`nnproofs.measure.cell_quadrature`, ``GAUSS_NODES``): an error localised in one cell,
    at a kink of :math:`f`, is integrated, where a Monte Carlo sample with fewer points than cells
    would miss it. The nodes lie inside the cells, never in the bands, which are integrated
    separately across their width (:func:`band_profile`, ``error_integrals``). ``measured`` is the
    log-log slope against the *nominal* :math:`WL`; expected :math:`-2m`, tolerance 0.2. ``samples``
    is used in :math:`d = 2` only (at least ``MIN_SAMPLES`` = 1024). An error below round-off counts as
    the round-off level (:math:`f = 0` fails the round-off requirement).

    In :math:`d = 2` (:math:`m = 2`, :class:`SparseSuperApproximationNetwork`) the theorem's
    logarithms are the sparse grid's :math:`n^{d-1}` (:math:`\\|f - I_n f\\| = O(4^{-n} n^{d-1})`,
    ``thm-sparse-grid-interp``), so ``measured`` is the slope of :math:`\\|f - \\Phi\\|_{L_p} / n^{d-1}`
    (the raw slope is in the notes). :math:`d \\ge 3` is refused (``MAX_CHECK_DIMENSION``): at the
    levels that can be built :math:`n^{d-1}` over-corrects: in :math:`d = 3` at ``WL`` = 4, 8, 16 the
    chapter's target gives the slope :math:`-4.32` while the network stays within 0.19% of its
    interpolant, so the check would not test the theorem. The :math:`d = 2` network is bilinear on
    :math:`(WL)^4` cells, too many to visit: its error is a Monte Carlo mean over ``samples`` uniform
    random points (fixed seed), which suits targets whose error is spread over the square, not errors
    localised in a few cells. The bands, :math:`d(n-1)\\delta/2` in measure, are not sampled and not
    integrated: the requirement bounds their share a priori by
    :math:`(M + \\max|f|)^p |\\Omega_\\varepsilon|` (:math:`M` the clip level).

    Requirements: off the bands the network stays within 5% of the interpolant's own error
    (the bit-stored coefficients and the products cost almost nothing) and within its a-priori
    bound; the bands contribute at most half of :math:`\\|f - \\Phi\\|_p^p` (their share is
    :math:`O(\\delta)` with :math:`\\delta = 2^{-46}`, the thinnest float64 allows; for :math:`p = 2`
    it overtakes :math:`(WL)^{-4p}` near :math:`WL = 64`, which is why the theorem's :math:`\\delta`
    shrinks with :math:`WL` and :math:`p`); the interpolant's error lies above round-off (a target
    that the degree-:math:`(m-1)` basis reproduces, such as :math:`x(1-x)` for :math:`m = 3`, has no
    rate to measure); and :math:`f` is in the class, read by
    :func:`nnproofs.korobov.smoothness.read_class` (:math:`m`, the finest network's interpolant) as in every
    check of the chapter: surpluses decaying like :math:`2^{-m|\\mathbf l|_1}`, coordinate differences of every
    order up to :math:`m` and (:math:`d = 2`) mixed differences bounded. The slope alone cannot decide that in
    :math:`L_1`: :math:`|x - a|` times a bubble, outside :math:`X^2_1` (its second derivative is a Dirac mass),
    keeps the slope :math:`-4.00` because its kink costs :math:`K^{-2}` in one cell, and for :math:`m = 3` a
    jump of :math:`f''` keeps :math:`-6`; the surpluses miss both at a dyadic node, the differences do not. The
    criteria are of :math:`X^m_\\infty`: a target of :math:`X^m_p` whose :math:`m`-th derivative is unbounded
    but :math:`p`-integrable (:math:`|x - a|^{3/2}` in :math:`L_1`) is refused.

    Pre-asymptotic false rejections in :math:`d = 2`. At the chapter's sizes ``WL`` = (2, 2), (2, 4), (4, 4)
    (:math:`n = 4, 6, 8`) targets with features of width about 0.3 have not reached the rate:
    :math:`\\prod_j 4x_j(1-x_j)\\,e^{-|x - 0.4|^2/0.1}` gives the slopes :math:`-3.72` (:math:`p = 1`) and
    :math:`-3.80` (:math:`p = 2`), :math:`\\sin(3\\pi x_1)\\sin(3\\pi x_2)` :math:`-3.66` and :math:`-3.70`,
    all requirements holding; at (2, 4), (4, 4), (4, 8) they pass (:math:`-3.85, -3.88, -3.82, -3.85`).
    When the slope misses the rate, every requirement holds and the local slopes steepen by more than
    ``STEEPENING`` = 0.05 at every step, the last one meeting the rate, the verdict is INCONCLUSIVE
    (chapter 1's rule): the Gaussian bump (local slopes :math:`-3.63, -3.81` and :math:`-3.74, -3.85`)
    and :math:`\\sin(3\\pi x_1)\\sin(3\\pi x_2)` for :math:`p = 2` (:math:`-3.59, -3.80`); for :math:`p = 1`
    (:math:`-3.54, -3.77`) it stays FAILED. No target outside the class measured here has local slopes that
    steepen to the rate (the square root's, :math:`-3.58, -3.75`, stop short), and the rule needs every
    requirement anyway. The surplus reading alone failing, every other requirement holding, is INCONCLUSIVE too
    (:func:`nnproofs.korobov.smoothness.verdict`).

    Network B's values (every :math:`p`) are cached per target and size (:func:`_network_b_errors`).
    ``coefficient_bits`` and ``coefficient_scale`` build controls (:func:`super_approximation_network`): a
    fixed number of bits (broken: the rate stalls) and stored coefficients times :math:`c` (near miss:
    :math:`\\Phi \\approx c\\,I_n f`, rejected for :math:`|c - 1| \\ge 0.1` by the distance to the
    interpolant, the a-priori bound and the slope). The actual width, depth, nonzero parameters and stored bits are in the
    notes: the width grows like :math:`W\\log(WL)` and the depth like :math:`L + \\log(WL)` (the
    theorem's logarithmic factors), plus a fixed cost of the cell location, so the slope against actual
    width × depth differs from the nominal one (chapter 2.2 measures it). Budget: ``samples`` × 512 d bytes
    within ``budget.memory()``; the sizes of :func:`nnproofs.korobov.sizes.require_wl` and ``MAX_STORED_BITS``.
    """
    d = require_reading(f, d)
    if d > MAX_CHECK_DIMENSION:
        raise ValueError(f"d={d}: at the levels that can be built (n <= 12) dividing the error by n^(d-1) "
                         f"over-corrects for d >= 3 (a network that tracks its interpolant fails the slope), so the "
                         f"check would not test the theorem; allowed: d <= {MAX_CHECK_DIMENSION}")
    require_smoothness(m)
    require_wl(WL)
    if require_count("samples", samples, bytes_each=8 * 64 * d) < MIN_SAMPLES and d > 1:
        raise ValueError(f"samples={samples}: the d = {d} error is a Monte Carlo mean; use at least {MIN_SAMPLES} points")
    coefficient_scale = require_coefficient_scale(coefficient_scale)
    if coefficient_bits is not None:
        positive_int("coefficient_bits", coefficient_bits)
    if isinstance(p, bool) or p not in NORMS_P:
        raise ValueError(f"p={p!r} is not allowed; use one of {', '.join(map(str, NORMS_P))}")
    f_max = 0.0
    errors, interpolation, tracking, within_bound, resources, band, shares, logs = [], [], [], [], [], [], [], []
    sizes = []
    for W, L in WL:
        measure = _network_b_errors if isinstance(f, Hashable) else _network_b_errors.__wrapped__
        size = measure(f, m, W, L, d, coefficient_bits, samples, str(book_device.device()), coefficient_scale)
        sizes.append(size)
        f_max = max(f_max, size["max |f|"])
        resolution = 100 * 2.0**-52 * max(1.0, f_max)
        sampled, in_bands = size["sampled"][p], size["in the bands"][p]
        error = (sampled + in_bands) ** (1.0 / p) if d == 1 else sampled ** (1.0 / p)
        errors.append(max(error, resolution))  # an error below round-off is not a measurement
        shares.append(in_bands / (sampled + in_bands) if sampled + in_bands > 0 else 0.0)
        interpolation.append(size["interpolant"][p] ** (1.0 / p))
        tracking.append(size["distance"] / max(size["interpolant sup off the bands"], resolution))
        within_bound.append(size["distance"] <= size["error_bound"])
        band.append(size["band fraction"])
        resources.append(dict(size["resources"]))
        logs.append(size["n^(d-1)"])
    reading = read_class(f, d=d, m=m, interpolant=max(sizes, key=lambda size: size["resources"]["K"])["interpolant object"])
    wl = [float(W * L) for W, L in WL]
    raw = {} if d == 1 else {f"L{p} error": errors, f"slope of the L{p} error itself": fit_loglog(wl, errors).slope,
                             "n^(d-1)": logs}
    y = [e / g for e, g in zip(errors, logs)]
    requirements = {
        "off the bands, sup|network − interpolant| <= 5% of sup|interpolant − f|": all(t <= 0.05 for t in tracking),
        "off the bands, sup|network − interpolant| within the quantisation + product bound": all(within_bound),
        f"the bands contribute at most {BAND_SHARE:g} of the error^p at every size": all(
            share <= BAND_SHARE for share in shares),
        "the interpolant's error is resolved above round-off (> 100·2^-52·max|f|)": min(interpolation) > resolution,
        **reading.requirements,
    }
    local = local_slopes(wl, y)
    slope = fit_loglog(wl, y).slope
    return rate_check(
        f"Network B (d = {d}, m = {m}): L{p} error{'' if d == 1 else ' / n^(d-1)'} against nominal W·L",
        wl,
        y,
        expected=-2.0 * m,
        tolerance=SLOPE_TOLERANCE,
        quantity=f"slope of the L{p} error{'' if d == 1 else ' / n^(d-1)'} against nominal W·L",
        requirements=requirements,
        inconclusive=verdict(requirements, reading, abs(slope + 2.0 * m) <= SLOPE_TOLERANCE,
                             steepening(local, -2.0 * m)),
        notes={"(W, L)": [tuple(p) for p in WL], f"L{p} error": errors, "local slopes": local, **raw,
               f"interpolant L{p} error": interpolation,
               "share of the bands in the error^p": shares, "network − interpolant, relative": tracking,
               "band fraction of the sample": band, **reading.notes,
               "resources": resources},
    )


def local_slopes(x: Sequence[float], y: Sequence[float]) -> list[float]:
    """:math:`\\log(y_{i+1}/y_i)/\\log(x_{i+1}/x_i)` between neighbouring sizes, in increasing :math:`x`."""
    pairs = sorted(zip(x, y))
    return [math.log(b / a) / math.log(u / t) for (t, a), (u, b) in zip(pairs, pairs[1:]) if u != t]


def steepening(slopes: list[float], expected: float) -> str:
    """Why a slope that misses the rate is pre-asymptotic, or ``""``: the local ``slopes`` steepen by more than
    ``STEEPENING`` at every step and the last one meets the rate (chapter 1's rule; :func:`verdict` requires
    every other requirement too)."""
    steeper = len(slopes) > 1 and all(later < earlier - STEEPENING for earlier, later in zip(slopes, slopes[1:]))
    if not steeper or abs(slopes[-1] - expected) > SLOPE_TOLERANCE:
        return ""
    return (f"pre-asymptotic: the local slopes {[round(v, 2) for v in slopes]} steepen by more than {STEEPENING:g} at "
            f"every step and the last one meets the rate; use larger W·L")


def _evaluation_work(samples: int, network) -> int:
    """Multiply-adds of a derivative check at one size: values and gradients (by automatic differentiation) at
    ``max(samples, K)`` points, about 8 per nonzero parameter (measured: 86 s of CPU for 10^6 points on
    Network C at WL = 4, 8, where this estimate is 1.5e11)."""
    return 8 * max(samples, network.K) * network.nonzero_parameters


PRODUCTS = ("W1", "Lp")  # product depth of Network B for its derivative: (m-1) n + 4, or the L_p default
DERIVATIVE_SAMPLES = 2048  # at least this many points, and at least one in every cell, for the derivative errors
# At most this many: 64 times the default, where the stratified estimates' relative noise is far below the slope's
# tolerance; more would cost minutes (10^6 points took 9 to 25 s on Network B at WL = 4, 8) and decide nothing new.
MAX_DERIVATIVE_SAMPLES = 64 * DERIVATIVE_SAMPLES


def check_super_approximation_derivative(f: Callable[[torch.Tensor], torch.Tensor], *, m: int,
                                         WL: Sequence[tuple[int, int]], products: str = "W1",
                                         samples: int = DERIVATIVE_SAMPLES, seed: int = 3) -> RateCheck:
    """Network B's derivative off its bands, :math:`d = 1`: :math:`\\|(f - \\Phi_{W,L})'\\|_{L_2(\\Omega\\setminus\\Omega_\\varepsilon)} \\approx C (WL)^{-2(m-1)}`.

    The rate of Theorem ``thm-korobov-sobolev``, measured where Network B is the stored
    interpolant: ``measured`` is the log-log slope of :math:`\\|\\Phi' - f'\\|_{L_2}` against the nominal
    :math:`WL`, expected :math:`-2(m-1)`, tolerance 0.2 as for the values. The norm is a stratified
    Monte Carlo estimate over :func:`nnproofs.measure.stratified_points`: the same number of uniform
    random points in every one of the :math:`K` cells, at least ``samples`` in all (``seed``), so that
    every cell is sampled and an error that sits in one cell, at a kink of :math:`f`, enters with its
    weight :math:`1/K`, where a sample with fewer points than cells would miss it. Not a Gauss rule: the
    derivative of Yarotsky's products is a sawtooth with :math:`2^s` pieces across each cell, which
    fixed nodes alias (two Gauss nodes per cell overstate the error of :math:`m = 2` by more than 5%).
    The points in a band, none in practice, are left out. Derivatives by automatic differentiation
    (:meth:`SuperApproximationNetwork.gradient`), :math:`f'` by :func:`target_gradient`.

    Products. The derivative of :math:`\\tilde\\times_s` is accurate to :math:`2\\cdot 2^{-s}` only, and
    the chain rule multiplies it by :math:`K = 2^n`, so ``products="W1"`` builds Network B with
    :math:`s = (m-1)n + 4` (error :math:`\\approx K^{-(m-1)}/16`); ``products="Lp"`` keeps the
    default :math:`s = \\lceil mn/2\\rceil + 4`, enough for the values but, for :math:`m = 3`, not for
    the derivative (negative control). For :math:`m = 2` both are :math:`n + 4`.

    Requirements: off the bands the derivative error is within 5% of the interpolant's own
    (:math:`\\|(f - I_n f)'\\|`), which fails when the products are too shallow; and :math:`f` is in the class,
    read by :func:`nnproofs.korobov.smoothness.read_class` (order :math:`m`) as in every check of the chapter: a
    kink at a node keeps the slope :math:`-2`, a jump of :math:`f''` the slope :math:`-4` for :math:`m = 3`.
    Pre-asymptotic data give INCONCLUSIVE as in :func:`check_super_approximation`. Budget: ``samples`` at most
    ``MAX_DERIVATIVE_SAMPLES``, and 8 multiply-adds per nonzero parameter and point within ``budget.work()``. The notes hold
    :func:`band_profile` of every network: inside the bands the variation of :math:`\\Phi` does not
    decrease with :math:`WL`, which is why Network B alone does not prove the :math:`W^1_p` rate.
    """
    require_reading(f, 1)
    require_smoothness(m)
    require_wl(WL)
    if products not in PRODUCTS:
        raise ValueError(f"products={products!r} is not allowed; use one of {', '.join(PRODUCTS)}")
    if require_count("samples", samples, bytes_each=8 * 64) > MAX_DERIVATIVE_SAMPLES:
        raise ValueError(f"samples={samples}: allowed at most {MAX_DERIVATIVE_SAMPLES} (MAX_DERIVATIVE_SAMPLES)")
    nonnegative_int("seed", seed)
    errors, interpolation, bands, depths, points = [], [], [], [], []
    finest, work = (0, None), 0
    for W, L in WL:
        level = 2 * int(round(math.log2(W * L)))
        depth = (m - 1) * level + 4 if products == "W1" else None
        network = super_approximation_network(f, m=m, W=W, L=L, product_depth=depth)
        work += _evaluation_work(samples, network)
        budget.refuse_beyond("samples", samples, cost=work, limit=budget.work(), unit="multiply-adds")
        x = stratified_points(network.K, samples, seed=seed, device=network.interpolant.points.device)
        points.append(x.shape[0])
        f_gradient = target_gradient(f, x)
        off = ~network.in_band(x)
        errors.append(float((network.gradient(x) - f_gradient)[off].pow(2).mean().sqrt()))
        interpolation.append(float((network.interpolant.gradient(x) - f_gradient)[off].pow(2).mean().sqrt()))
        bands.append(band_profile(network, f))
        depths.append(network.s)
        finest = max(finest, (network.K, network.interpolant), key=lambda pair: pair[0])
    reading = read_class(f, d=1, m=m, interpolant=finest[1])
    requirements = {"off the bands, ‖Φ' − f'‖ <= 1.05 ‖(I_n f)' − f'‖ for every (W, L)": all(
        e <= 1.05 * i for e, i in zip(errors, interpolation)), **reading.requirements}
    wl = [float(W * L) for W, L in WL]
    return rate_check(
        f"Network B (d = 1, m = {m}) off its bands: derivative error against nominal W·L",
        wl,
        errors,
        expected=-2.0 * (m - 1),
        tolerance=SLOPE_TOLERANCE,
        quantity="slope of the off-band L2 derivative error (every cell sampled) against nominal W·L",
        requirements=requirements,
        inconclusive=verdict(requirements, reading, abs(fit_loglog(wl, errors).slope + 2.0 * (m - 1)) <= SLOPE_TOLERANCE,
                             steepening(local_slopes(wl, errors), -2.0 * (m - 1))),
        notes={"(W, L)": [tuple(p) for p in WL], "product depth s": depths, "derivative error": errors,
               **reading.notes,
               "points (every cell sampled)": points,
               "interpolant derivative error": interpolation,
               "variation of Φ over the bands": [b.variation for b in bands],
               "sup |Φ − f| in the bands": [b.sup_error for b in bands],
               "largest slope in the bands": [b.max_slope for b in bands],
               "band measure": [b.band_measure for b in bands]},
    )




def check_partitioned_network(f: Callable[[torch.Tensor], torch.Tensor], *, WL: Sequence[tuple[int, int]],
                              shift: bool = True, samples: int = DERIVATIVE_SAMPLES, seed: int = 3) -> RateCheck:
    """Theorem ``thm-korobov-sobolev`` in :math:`d = 1`, :math:`m = 2`: :math:`|f - \\Phi_C|_{W^1_2} \\approx C(WL)^{-2}`, everywhere.

    For every ``(W, L)`` Network C (:func:`partitioned_network`) is built; ``measured`` is the
    log-log slope of :math:`\\|\\Phi_C' - f'\\|_{L_2}` against the nominal :math:`WL`, expected
    :math:`-2(m-1) = -2`, tolerance 0.2. Unlike :func:`check_super_approximation_derivative` nothing is
    excluded: :math:`\\Phi_C` has no bands. The norms are stratified Monte Carlo estimates over
    :func:`nnproofs.measure.stratified_points` (the same number of uniform random points in every one of
    the :math:`K` cells, at least ``samples``, ``seed``): every cell is sampled, so an error localised in
    one cell, at a kink of :math:`f`, enters with its weight :math:`1/K`. (A Gauss rule per cell would not
    be exact here: the partition has kinks at every eighth of a cell and the products' derivative is a
    sawtooth.)

    Requirements: the derivative and the value errors are within 5% of the interpolant's own; and
    the bands are hidden: on points across every band of both local networks
    (:meth:`PartitionedNetwork.band_samples`, bands probed at width :math:`2^{-30}`),
    :math:`|\\Phi_C - I_n f|` stays within ``error_bound``, which fails when a band falls where its
    partition function is not zero (negative control ``shift=False``); and :math:`f` is in :math:`X^2`, read by
    :func:`nnproofs.korobov.smoothness.read_class` as in every check of the chapter (a kink at a node keeps the
    slope). Budget: ``samples`` at most ``MAX_DERIVATIVE_SAMPLES``, and 8 multiply-adds per nonzero parameter
    and point within ``budget.work()``.
    """
    require_reading(f, 1)
    require_wl(WL)
    if require_count("samples", samples, bytes_each=8 * 64) > MAX_DERIVATIVE_SAMPLES:
        raise ValueError(f"samples={samples}: allowed at most {MAX_DERIVATIVE_SAMPLES} (MAX_DERIVATIVE_SAMPLES)")
    nonnegative_int("seed", seed)
    errors, interpolation, values, values_interpolant, hidden, resources = [], [], [], [], [], []
    finest, work = (0, None), 0
    for W, L in WL:
        network = partitioned_network(f, W=W, L=L, shift=shift)
        work += _evaluation_work(samples, network)
        budget.refuse_beyond("samples", samples, cost=work, limit=budget.work(), unit="multiply-adds")
        interpolant = network.interpolant
        x = stratified_points(network.K, samples, seed=seed, device=interpolant.points.device)
        f_values, f_gradient = evaluate_target(f, x), target_gradient(f, x)
        network_values, network_gradient = values_and_gradient(network, x)
        errors.append(float((network_gradient - f_gradient).pow(2).mean().sqrt()))
        interpolation.append(float((interpolant.gradient(x) - f_gradient).pow(2).mean().sqrt()))
        values.append(float((network_values - f_values).pow(2).mean().sqrt()))
        probe = network.band_samples()
        with torch.no_grad():
            hidden.append(float((network(probe, band=PROBE_BAND) - interpolant(probe)).abs().max()) / network.error_bound)
        values_interpolant.append(float((interpolant(x) - f_values).pow(2).mean().sqrt()))
        resources.append({"W": W, "L": L, "K": network.K, "t": network.t, "width": network.width,
                          "depth": network.depth, NONZERO_KEY: significant(network.nonzero_parameters, PARAMETER_DIGITS),
                          "stored bits": network.stored_bits})
        finest = max(finest, (network.K, interpolant), key=lambda pair: pair[0])
    reading = read_class(f, d=1, m=2, interpolant=finest[1])
    requirements = {
        "‖Φ' − f'‖ <= 1.05 ‖(I_n f)' − f'‖ for every (W, L)": all(e <= 1.05 * i for e, i in zip(errors, interpolation)),
        "‖Φ − f‖ <= 1.05 ‖I_n f − f‖ for every (W, L)": all(v <= 1.05 * i for v, i in zip(values, values_interpolant)),
        "across every band of both local networks, |Φ − I_n f| <= error_bound": all(h <= 1.0 for h in hidden),
        **reading.requirements,
    }
    wl = [float(W * L) for W, L in WL]
    return rate_check(
        f"Network C (d = 1, m = 2, {'staggered' if shift else 'unshifted'} local networks): W1 error against nominal W·L",
        wl,
        errors,
        expected=-2.0,
        tolerance=SLOPE_TOLERANCE,
        quantity="slope of the L2 derivative error (everywhere, every cell sampled) against nominal W·L",
        requirements=requirements,
        inconclusive=verdict(requirements, reading, abs(fit_loglog(wl, errors).slope + 2.0) <= SLOPE_TOLERANCE,
                             steepening(local_slopes(wl, errors), -2.0)),
        notes={"(W, L)": [tuple(p) for p in WL], "derivative error": errors, **reading.notes,
               "interpolant derivative error": interpolation, "L2 error": values,
               "interpolant L2 error": values_interpolant, "max |Φ − I_n f| in the bands / error_bound": hidden,
               "resources": resources},
    )
