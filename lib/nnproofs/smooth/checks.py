"""The public checks of Definition ``def-smooth-gadgets`` and Theorem ``thm-constant-depth``, with their tolerances.

:func:`check_gadget_rate` (the square and product gadgets against their error model) and
:func:`check_constant_depth_rate` (one-sided, with a round-off floor, read at the asymptotic end; verdicts PASSED,
INCONCLUSIVE or FAILED); :func:`evaluation_points`, :func:`round_off_floor`, :func:`local_slopes`,
:func:`affine_maps`, :func:`chebyshev_smoothness` and :func:`default_Ks` are what they read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
import torch
from torch import nn

from .. import device as book_device
from .. import budget
from ..measure import evaluate_target, sup_error
from ..rates import RateCheck, fit_loglog, rate_check
from ..validate import as_finite_array, positive_int
from . import gadgets as sg
from . import evaluation
from .evaluation import (SUP_CONVERGENCE, declared, default_density, evaluation_points, parameter_bits, point_count,
                         read_network, sampled_sup)
from .gadgets import product_gadget, square_gadget
from .inputs import degree, device_of, dimension, finite_values, sizes, target
from .network import PARAMETER_BOUND, constant_depth_network
from .smoothness import CLASS_MARGIN, local_fit_error, read_class

EPS = sg.EPS
GADGET_SLOPE_TOL = 0.1  # the gadget's error is c δ² (1 + O(δ²)): slope 2 up to ~0.01 for δ <= 0.1; 0.1 leaves room
END_INTERVALS = 2  # the verdict reads the local slopes over the last two intervals of K above the floor
END_INTERVALS_K3 = 3  # for k = 3, three: a target 0.3 short of C^4 has local slopes that swing by up to 1.7 between
#                       neighbouring intervals at K <= 8 (|x - a|^3.7, a = 0.2..0.83: -6.64..-8.34), and in-class ones
#                       by up to 1.5 (tanh(30(x - 0.4)), Runge's); two intervals can both land on steep swings
END_SLOPE_TOL = 0.4  # see check_constant_depth_rate: in-class spread + 2 s.e. <= 0.38 (measured), a shortfall of
#                      0.3 in Hölder smoothness lowers the slope by 0.6 (measured 0.60 and 0.66); 0.4 lies between
# The float64 floor of the construction relative to the half-oscillation (max f - min f)/2 (the construction
# removes the mid-range of f and adds it back as the output bias, so an offset does not lift the floor); measured
# on polynomials of degree <= k that the construction reproduces exactly in exact arithmetic, K = 2..16: at most
# 3.4e-10 for GELU and SiLU, whose σ(b) = 0; at most 3.3e-6 for softplus, tanh and sigmoid, whose σ(b) ≠ 0 makes
# the gadgets' δ ≈ ε^(1/5)). OUTPUT_ROUNDING ε max|f| is added: the output bias m and f itself round to that.
ROUND_OFF_FLOOR = {"gelu": 1e-9, "silu": 1e-9, "softplus": 5e-6, "tanh": 5e-6, "sigmoid": 5e-6}
OUTPUT_ROUNDING = 4.0
FLOOR_MARGIN = 10.0  # an interval is read when its larger-K error is >= 10 x the floor: round-off (<= 1/15 of the
#                      floor constant) then moves that error by <= 1/150, its local slope by <= 0.03 for K'/K >= 5/4
FLOOR_PASS = 1.0  # the floor path (no interval read) PASSES only errors within 1 x η: in-class builds at their floor
#                  measured at most 0.66 η (tanh, softplus, sigmoid, k = 2, 3, K = 5..16, sin 3x + x²/2; GELU 0.34 η on
#                  polynomials); a build one degree short at 3-9 η or an output offset of 8.6 η is no longer at the floor
STEEPENING = 0.05  # local slopes that steepen by more than this at every step of the end are pre-asymptotic: once
#                    asymptotic, neighbouring in-class local slopes differ by <= 0.03 (measured, tests/test_smooth.py)
STEADY_SHORTFALL = 0.05  # steady end slopes (within STEEPENING) short of the rate by more than 5% are not PASSED:
#   a settled slower rate (a near miss at k = 0 lies within END_SLOPE_TOL, 20% of the rate there): INCONCLUSIVE
SWING = 2.0  # in-class local slopes deviate from the rate by up to 2 at small K before they settle (measured at most
#              1.2 steeper, tanh(30(x - 0.4)) at k = 2); a drop steeper than the rate by SWING + tol is not read as the rate
FALL_SHARE = 0.5  # errors whose fitted slope over all the sizes read is flatter than half the rate, -(k + 1), do not
#                   fall at this rate overall: FAILED whatever the end slopes (in-class builds measured at least 0.68 of
#                   the rate: tanh(30(x - 0.4)) at k = 3, tanh, K = 2..4: -5.4; tests/test_smooth_soundness.py)
BETWEEN = 8  # the most sizes between the end sizes read that the check adds (a lower bound of the error at each)
UNRESOLVED_SHARE = 0.1  # f's own local interpolation at the largest K erring by this share of its half-oscillation:
#                        the mesh has not resolved f (INCONCLUSIVE, not FAILED, when f is read in the class)
HIDDEN_SHARE = 0.01  # a singular part below the class reading's resolution may move no error read by more than 1%
#                      (a local slope by <= 0.09 for K'/K >= 5/4); otherwise the class is not shown: INCONCLUSIVE
FLOAT64_BITS = 40  # parameters whose 80% carry >= 40 bits are read as float64 ones: the construction's carry >= 45
#                   (the 20% quantile, K = 2..16, k = 0..3, all five σ: softplus 45 at K <= 5, the others >= 50);
#                   weights rounded to float32 and stored as float64 carry <= 24 (tests/test_smooth_soundness.py)
DEFAULT_DELTAS = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3)


def check_gadget_rate(activation: str, deltas: Sequence[float] = DEFAULT_DELTAS, *, base: float | None = None,
                      stencil: str = "central", points: int = 2001, device=None) -> RateCheck:
    """Check that the square gadget's sup error on ``[-1, 1]`` decays like ``δ²`` (Definition ``def-smooth-gadgets``).

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    deltas : sequence of float
        At least two distinct ``δ`` in ``[MIN_DELTA, 1]`` (default :data:`DEFAULT_DELTAS`).
    base : float, optional
        The base point ``b`` (default :func:`base_point`, where ``|σ''|`` is largest); ``σ''(b)`` must not vanish.
    stencil : str
        ``"central"`` (the gadget) or ``"forward"`` (the one-sided negative control).
    points : int
        Equispaced points on ``[-1, 1]``, endpoints included (the error ``∝ x⁴`` peaks at ``±1``).
    device : str or torch.device, optional
        Where to evaluate (default ``BOOK_DEVICE``).

    Returns
    -------
    RateCheck
        The slope of the square gadget's sup error against ``δ``, expected ``2 ± GADGET_SLOPE_TOL``, with the
        error-model requirements and, in ``notes``, the product gadget's errors and slope.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.check_gadget_rate("gelu").verdict
    'PASSED'

    Notes
    -----
    Central stencil: each sup error must equal the model's leading term ``δ²|σ⁽⁴⁾(b)|/(12|σ''(b)|)`` within the next
    Taylor term plus a round-off bound, and the product gadget (a ``41 x 41`` grid of ``[-1, 1]²``) four times it;
    one-sided stencil: at most its first-order Taylor bound plus round-off. Choose ``δ`` above the round-off floor
    ``~ε|σ(b)|/δ²`` and below where the remainder at radius 2 exceeds ``GADGET_SLOPE_TOL/2`` of the leading term
    (``notes`` names such ``δ``). Details: the chapter's section "How the checks decide".
    """
    name = sg.activation_name(activation)
    deltas = as_finite_array("deltas", deltas, positive=True, min_size=2).tolist()
    if len(set(deltas)) < 2:
        raise ValueError(f"deltas needs at least two distinct values to fit a rate, got {deltas}")
    if max(deltas) > 1 or min(deltas) < sg.MIN_DELTA:
        raise ValueError(f"deltas must be in [{sg.MIN_DELTA:g}, 1] (below, float64 round-off swamps the gadget), got"
                         f" {min(deltas)!r} .. {max(deltas)!r}")
    points = positive_int("points", points)
    if points < 3:
        raise ValueError(f"points must be >= 3, got {points}")
    budget.refuse_beyond("points", points, cost=float(points) * len(deltas) * 2000, limit=budget.work(),
                         unit="multiply-adds")  # a gadget of <= 8 neurons per point and δ, with sympy's error model
    device = device_of(device)
    base_ = sg.base_point(name, 2) if base is None else sg.check_base_point(name, 2, base)
    forward = stencil == "forward"
    x = torch.linspace(-1.0, 1.0, points, dtype=torch.float64, device=device)[:, None]
    side = torch.linspace(-1.0, 1.0, 41, dtype=torch.float64, device=device)
    xy = torch.stack(torch.meshgrid(side, side, indexing="ij"), -1).reshape(-1, 2)
    square_errors, product_errors, models, slack, product_slack, outside = [], [], [], [], [], []
    for delta in deltas:
        square_errors.append(sup_error(square_gadget(name, delta, base=base_, stencil=stencil, device=device),
                                       lambda t: t[:, 0] ** 2, x))
        product_errors.append(sup_error(product_gadget(name, delta, base=base_, stencil=stencil, device=device),
                                        lambda t: t[:, 0] * t[:, 1], xy))
        rounding = sg.rounding_bound(name, 2, delta, base_, forward=forward)
        if forward:
            models.append(0.0)
            slack.append(sg.truncation_bound(name, 2, delta, base_, forward=True) + rounding)
            continue
        leading, rest = sg.square_error_model(name, delta, base_)
        leading_2, rest_2 = sg.square_error_model(name, delta, base_, radius=2.0)
        if 2 * rest_2 > GADGET_SLOPE_TOL * leading_2:  # error A δ²(1 + O(δ²)): local slope 2 + O(2 rest/leading)
            outside.append(delta)
        models.append(leading)
        slack.append(rest + rounding)
        product_slack.append(0.5 * (rest_2 + sg.rounding_bound(name, 2, delta, base_, radius=2.0)))
    product_slope = float(np.polyfit(np.log(deltas), np.log(product_errors), 1)[0])
    if forward:
        model_held = {"sup error <= first-order Taylor bound + round-off bound for every δ":
                      all(e <= b for e, b in zip(square_errors, slack))}
    else:
        model_held = {
            "sup error = δ²|σ⁽⁴⁾(b)|/(12|σ''(b)|) within the Taylor remainder + round-off bound, every δ": all(
                abs(e - m) <= b for e, m, b in zip(square_errors, models, slack)),
            "product gadget: sup error = 4x that within its remainder + round-off bound, every δ": all(
                abs(e - 4 * m) <= b for e, m, b in zip(product_errors, models, product_slack)),
        }
    notes = {"base point b": base_, "σ''(b)": sg.derivative(name, 2, base_), "error model |A|": models,
             "allowed deviation": slack, "product errors": product_errors, "product slope": product_slope}
    if outside:
        notes["δ outside the asymptotic regime"] = (
            f"{outside}: there the Taylor remainder of the squares at radius 2 (the product gadget's) exceeds"
            f" {GADGET_SLOPE_TOL / 2:g} of the leading term, so the slope may leave 2 ± {GADGET_SLOPE_TOL:g} for that"
            f" reason alone; use smaller δ (the defaults are {list(DEFAULT_DELTAS)})")
    return rate_check(
        f"{name} square gadget ({stencil}): sup_[-1,1] |sq_δ(x) − x²| ∝ δ²",
        deltas,
        square_errors,
        expected=2.0,
        tolerance=GADGET_SLOPE_TOL,
        quantity="slope of the square gadget's sup error against δ",
        requirements={
            **model_held,
            f"product gadget: slope against δ within 2 ± {GADGET_SLOPE_TOL:g}": abs(product_slope - 2.0) <= GADGET_SLOPE_TOL,
        },
        notes=notes,
    )


def round_off_floor(activation: str, f: Callable, x: torch.Tensor) -> float:
    """The float64 floor ``η`` of the construction for ``f`` on the points ``x``.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    x : torch.Tensor
        Non-empty ``(n, d)`` float64 points.

    Returns
    -------
    float
        ``η = ROUND_OFF_FLOOR[σ] · (max f - min f)/2 + OUTPUT_ROUNDING · ε · max|f|``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> x = torch.linspace(0, 1, 11, dtype=torch.float64)[:, None]
    >>> smooth.round_off_floor("gelu", lambda t: t[:, 0], x) < 1e-9
    True

    Notes
    -----
    The constants are measured on polynomials the construction reproduces exactly (:data:`ROUND_OFF_FLOOR`); the
    network removes the mid-range of ``f``, so an offset ``f + c`` moves ``η`` by ``ε|c|`` only.
    """
    if not callable(f):
        raise TypeError(f"f must be a callable mapping an (n, d) tensor to (n,) values, got {type(f).__name__}")
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.shape[0] == 0 or x.dtype != torch.float64:
        raise ValueError(f"x must be a non-empty (n, d) float64 tensor, got {getattr(x, 'shape', type(x).__name__)}")
    with torch.no_grad():
        values = finite_values("f", evaluate_target(f, x))
    spread = 0.5 * float(values.max() - values.min())
    size = float(values.abs().max())
    return ROUND_OFF_FLOOR[sg.activation_name(activation)] * (spread if spread > 0 else 1.0) + OUTPUT_ROUNDING * EPS * size


def local_slopes(Ks: Sequence[int], errors: Sequence[float]) -> list[float]:
    """The local slopes ``log(e_{i+1}/e_i) / log(K_{i+1}/K_i)``, one per interval of sizes.

    Parameters
    ----------
    Ks : sequence of int
        The sizes, distinct (any order).
    errors : sequence of float
        One positive error per size.

    Returns
    -------
    list of float
        The slopes for the sizes in increasing order.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.local_slopes([2, 4], [1.0, 0.25])
    [-2.0]

    Notes
    -----
    The rate check reads its verdict from these, over the last intervals above the round-off floor.
    """
    Ks = sizes("Ks", Ks, 1)
    errors = as_finite_array("errors", errors, positive=True, min_size=2).tolist()
    if len(errors) != len(Ks):
        raise ValueError(f"errors must have one entry per K: {len(errors)} errors for {len(Ks)} sizes")
    order = np.argsort(Ks)
    K = np.asarray(Ks, dtype=float)[order]
    e = np.maximum(np.asarray(errors, dtype=float)[order], np.finfo(np.float64).tiny)
    return (np.diff(np.log(e)) / np.diff(np.log(K))).tolist()


def _polynomial_degree_at_most(Ks: Sequence[int], counts: Sequence[int], degree: int) -> bool:
    """Whether the integers ``counts`` at the sizes ``Ks`` lie on a polynomial of degree ``<= degree``:
    the divided differences of order ``degree + 1`` vanish, computed exactly in rationals."""
    points = sorted(zip(Ks, counts))
    table = [Fraction(c) for _, c in points]
    xs = [K for K, _ in points]
    for order in range(1, degree + 2):
        table = [(table[i + 1] - table[i]) / (xs[i + order] - xs[i]) for i in range(len(table) - 1)]
    return all(v == 0 for v in table)


def check_constant_depth_rate(f: Callable, *, k: int, Ks: Sequence[int], activation: str = "gelu", d: int = 1,
                              build: Callable[..., nn.Module] = constant_depth_network,
                              points_per_cell: int | None = None, device=None, every_layer: bool = False) -> RateCheck:
    """Check Theorem ``thm-constant-depth`` on ``f``: ``sup |f - f̂_K| = O(K^{-2(k+1)})`` at constant depth.

    Parameters
    ----------
    f : callable
        The target, mapping an ``(n, d)`` float64 tensor of points of ``[0, 1]^d`` to ``(n,)`` values.
    k : int
        The local degree, ``0 <= k <= 3``; the theorem needs ``f`` in ``C^{k+1}``.
    Ks : sequence of int
        The coarse cells per axis, at least two distinct sizes ``>= 2`` (at most 64); see :func:`default_Ks`.
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    d : int
        The dimension, 1 or 2.
    build : callable
        ``build(f, *, k, K, activation, d, device)`` returning an ``nn.Sequential`` of exactly ``nn.Linear`` and
        activation modules (nested ones flattened); default :func:`constant_depth_network`.
    points_per_cell : int, optional
        The sampling density ``p`` per axis of every fine cell (default :func:`nnproofs.smooth.evaluation.default_density`).
    device : str or torch.device, optional
        Where to build and evaluate (default ``BOOK_DEVICE``).
    every_layer : bool
        In ``d = 1``, resolve every unit of the later σ layers between the samples to :data:`~nnproofs.smooth.evaluation.STEP`
        (:func:`~nnproofs.smooth.evaluation.deeper_points`): slow (many times the points on the construction, whose
        gadget units are steep by design). By default only the cells where a later unit skips σ's nonlinear zone
        between its two ends are bisected, which resolves the construction's own units; a ``build`` of your own
        then cannot PASS (INCONCLUSIVE): pass ``every_layer=True`` to certify it.

    Returns
    -------
    RateCheck
        ``verdict`` PASSED, FAILED or INCONCLUSIVE (with the reason in ``inconclusive``); ``measured`` is the
        largest local slope over the end intervals read; ``requirements`` and ``notes`` as in :meth:`report`.

    Raises
    ------
    TypeError, ValueError
        Naming the parameter, for bad input, for a module that cannot be read as affine maps and an activation,
        and for ``Ks`` whose estimated work (:func:`work_estimate`) exceeds :func:`nnproofs.budget.work`.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> check = smooth.check_constant_depth_rate(smooth.chapter_target, k=1, Ks=smooth.default_Ks(1))
    >>> check.verdict
    'PASSED'

    Notes
    -----
    The output is computed from the affine maps read (``F.linear`` and ``σ``), never through ``forward`` or hooks
    (rule 9); the sup is sampled at densities ``p`` and ``2p``, plus every first-layer unit where σ is not linear
    (:func:`~nnproofs.smooth.evaluation.first_layer_points`), and must agree within :data:`SUP_CONVERGENCE` (rule
    11; ``d = 2`` is always INCONCLUSIVE, its sup not shown to converge); up to :data:`BETWEEN` sizes between the
    end sizes are measured too, and errors at the floor PASS only within ``FLOOR_PASS · η``. The verdict is one-sided, read over the last
    :data:`END_INTERVALS` intervals above ``FLOOR_MARGIN`` times the round-off floor (:func:`round_off_floor`; times
    ``2^(53 - b)`` for parameters carrying ``b <`` :data:`FLOAT64_BITS` bits, :func:`parameter_bits`), with
    tolerance :data:`END_SLOPE_TOL`; ``f`` must be read in the class by :func:`read_class`. Rules, tolerances and
    their calibration: the chapter's section "How the checks decide" and ``tests/test_smooth.py``.
    """
    k, d, name = degree(k), dimension(d), sg.activation_name(activation)
    Ks = sizes("Ks", Ks, 2)
    if not callable(build):
        raise TypeError(f"build must be a callable (f, *, k, K, activation, d, device) -> nn.Sequential, got {type(build).__name__}")
    p = default_density(d) if points_per_cell is None else positive_int("points_per_cell", points_per_cell)
    if type(every_layer) is not bool:
        raise TypeError(f"every_layer must be True or False, got {type(every_layer).__name__}")
    named = ("Ks", Ks) if points_per_cell is None else ("Ks, points_per_cell", (Ks, p))
    budget.refuse_beyond(*named, cost=work_estimate(Ks, k=k, d=d, points_per_cell=p), limit=budget.work(),
                         unit="multiply-adds")
    device = device_of(device)
    f = target(f, d, device)
    sups, rmss, params, depths, biggest, floors, changes, read_as = [], [], [], [], [], [], [], set()
    dtypes, uncertified, bits = set(), [], []
    for K in Ks:
        reading = _built(build, f, k=k, K=K, activation=name, d=d, device=device)
        depths.append(len(reading.maps))
        read_as.update(reading.activations)
        dtypes.add(str(reading.dtype).replace("torch.", ""))
        sampled = sampled_sup(reading, f, K, d, p=p, device=device, every_layer=every_layer)
        sups.append(max(sampled.sup, sampled.doubled))
        changes.append(sampled.change)
        uncertified.append(K) if sampled.unresolved else None
        rmss.append(sampled.rms)
        floors.append(round_off_floor(name, f, evaluation_points(K, d, p=p, device=device)))
        params.append(reading.parameters)
        bits.append(parameter_bits(reading))
        biggest.append(max(float(w.abs().max()) for w, _ in reading.maps))
    counted, counted_depths = dict(zip(Ks, params)), list(depths)
    while len(counted) < 2 * d + 3:  # parameters only: two divided differences of order 2d + 1 must vanish
        K = max(counted) + 1
        reading = _built(build, f, k=k, K=K, activation=name, d=d, device=device)
        counted_depths.append(len(reading.maps))
        read_as.update(reading.activations)
        counted[K] = reading.parameters
    floor = max(floors)
    # the errors are read above the build's own floor: η for float64 parameters, 2^(53 - b) η for float64 parameters
    # that carry b < FLOAT64_BITS bits (rounded coarser than float64: their round-off scales with their rounding; maps
    # of another dtype fail a requirement below); the floor path (errors within η: reproduced to round-off) keeps η
    coarse = dtypes == {"float64"} and min(bits) < FLOAT64_BITS
    read_floor = floor * (2.0 ** (53 - min(bits)) if coarse else 1.0)
    order = np.argsort(Ks)
    sorted_K = [Ks[i] for i in order]
    sorted_e = [sups[i] for i in order]
    slopes = local_slopes(Ks, sups)
    expected = -2.0 * (k + 1)
    kind = read_class(f, k=k, d=d, device=device)
    change = {K: changes[i] for i, K in enumerate(Ks)}
    overall = _overall_slope(sorted_K, sorted_e, read_floor, [change[K] < SUP_CONVERGENCE for K in sorted_K])
    verdict = _end_verdict(sorted_K, sorted_e, slopes, read_floor, expected,
                           END_INTERVALS_K3 if k == 3 else END_INTERVALS, kind.in_class is True, at_floor=floor)
    between = _between(build, f, dict(k=k, activation=name, d=d, device=device), sorted_K, sorted_e, verdict["end"],
                       p, every_layer) if d == 1 and not verdict["inconclusive"] and verdict["end"] else {}
    for K, (_, _, _, reading) in between.items():  # the networks evaluated are the networks counted (rule 9)
        counted_depths.append(len(reading.maps))
        read_as.update(reading.activations)
        dtypes.add(str(reading.dtype).replace("torch.", ""))
        counted[K] = reading.parameters
    rise = {K: e for K, (e, line, below, _) in between.items() if e > below}
    above_line = {K: e for K, (e, line, below, _) in between.items() if e > line}
    # no interval read (every error within η): the verdict rests on the larger of the two densities' sups, and the sup
    # of round-off does not converge, so only the hidden share below is read there
    at_floor = verdict.get("floor", False)
    unsettled = sorted({K for i in verdict["end"] for K in sorted_K[i:i + 2] if change[K] >= SUP_CONVERGENCE})
    inconclusive = verdict["inconclusive"] or kind.why
    hidden = _hidden_share(kind, k, sorted_K, sorted_e, floor if at_floor else read_floor, at_floor=at_floor)
    if not inconclusive and kind.in_class is True and hidden[0] > HIDDEN_SHARE:
        inconclusive = (f"the class reading cannot resolve what matters here: it sees singular parts c|x − a|^β"
                        f" (β = {hidden[2]:g}) down to c = {hidden[3]:.2g}, and one just below that could"
                        f" move the {'round-off floor' if at_floor else 'error'} at K = {hidden[1]} by {hidden[0]:.1%}"
                        f" (> {HIDDEN_SHARE:.0%}); f is not shown to be in the class at these errors")
    unresolved = kind.in_class is True and d == 1 and _unresolved_by_the_mesh(f, k, max(Ks), device)
    if not inconclusive and unresolved:
        inconclusive = (f"the mesh does not resolve f yet: at K = {max(Ks)} f's own interpolation of degree {k} on"
                        f" the fine cells errs by at least {UNRESOLVED_SHARE:g} of f's half-oscillation, so f has"
                        " features narrower than the fine cells at these K; use larger K")
    if not inconclusive and d == 2:
        inconclusive = ("d = 2: the crossings of two bands are sampled at one point per axis only, where the error"
                        " changes within a quarter of a half-band; on some smooth targets the sampled sup moves by more"
                        " than 10% from one density to the next (sin(3x₁x₂) + x₂ at K = 3, tests/test_smooth_soundness.py)"
                        " even where one doubling does not, so the sup is not shown to converge: the rate is measured,"
                        " not verified")
    if not inconclusive and above_line:
        inconclusive = (f"between the end sizes the errors leave the rate's line: at K = {sorted(above_line)} they lie"
                        f" above the power law through their neighbours by more than the swing allowed (a factor"
                        f" (K_(i+1)/K_i)^{SWING:g}); the sizes given may sit on the low points of errors that swing")
    if not inconclusive and uncertified:
        inconclusive = (f"the sup is not certified at K = {uncertified}: the σ layers' units are not resolved between"
                        f" samples within the budget of points (the first layer's at steps of {evaluation.STEP:g} in"
                        " their pre-activation; no later unit may skip σ's nonlinear zone between two points; see"
                        " 'How the checks decide')")
    if not inconclusive and d == 1 and build is not constant_depth_network and not every_layer \
            and verdict["measured"] <= expected + END_SLOPE_TOL:
        inconclusive = ("a build of your own: the default evaluation bisects where a later unit lies beyond σ's"
                        " nonlinear zone on opposite sides of two samples (the construction's steps do), but a unit that"
                        " leaves the zone and comes back between two samples (a spike narrower than the cells) is"
                        " resolved only with every_layer=True; pass it to certify this build")
    if not inconclusive and unsettled:
        inconclusive = (f"the sampled sup has not converged: doubling the points per cell and across the bands changed"
                        f" it by {max(change[K] for K in unsettled):.1%} at K = {unsettled} (>= {SUP_CONVERGENCE:.0%});"
                        " pass a larger points_per_cell")
    count_K = sorted(counted)
    n_fit = fit_loglog(count_K, [counted[K] for K in count_K])
    where = "[0, 1]" if d == 1 else f"{len(kind.readings) // 2} lines of [0, 1]²"
    requirements = {
        f"every activation is the declared σ = {name} (read: {', '.join(sorted(read_as)) or 'none'})":
            read_as <= {declared(name)},
        f"the affine maps are float64 (read: {', '.join(sorted(dtypes))}): the gadgets divide by δ² ≈ 1e-10":
            dtypes == {"float64"},
        "the same number of affine maps for every K (constant depth)": len(set(counted_depths)) == 1,
        f"N is a polynomial of degree <= {2 * d} in K (exact divided differences at K = {count_K})":
            _polynomial_degree_at_most(count_K, [counted[K] for K in count_K], 2 * d),
        f"fitted slope of log N against log K <= {2 * d} (N = O(K^{2 * d}))": n_fit.slope <= 2 * d + 1e-12,
        f"f in C^{k + 1}: every Hölder exponent read on {where} (Chebyshev, interpolation) >= "
        f"{k + 1 - CLASS_MARGIN:g}": kind.in_class is not False,
    }
    # measured, so they speak only where the exact requirements hold (a float32 or ReLU network's errors are noise,
    # and a target outside the class need not have errors that fall)
    exact = all(requirements.values())
    # where the end verdict found every local slope read steepening to the rate (a steep in-class target at small
    # K: tanh(400(x - 0.4)) at k = 0, 1), too slow a fall overall is that approach, INCONCLUSIVE, not FAILED
    approaching = verdict["inconclusive"].startswith("pre-asymptotic: the local slopes") or unresolved
    requirements[f"the errors fall overall: fitted slope over the sizes read whose sup converged <= "
                 f"{FALL_SHARE * expected:g}, {FALL_SHARE:g} x the rate"] = \
        overall <= FALL_SHARE * expected or not exact or approaching
    if coarse and ROUND_OFF_FLOOR[name] * 2.0 ** (53 - min(bits)) > 1 / FLOOR_MARGIN:
        # a floor 2^(53 - b) η above a tenth of f's half-oscillation excuses any error: it cannot excuse errors of
        # f's own size that do not fall (no float64 build errs so), so those fail
        requirements[f"parameters of {min(bits)} bits (the build's floor 2^{53 - min(bits)} η lies above"
                     f" 1/{FLOOR_MARGIN:g} of f's half-oscillation): the errors over all sizes fall with a fitted slope"
                     f" <= {FALL_SHARE * expected:g}"] = \
            fit_loglog(sorted_K, sorted_e).slope <= FALL_SHARE * expected or not exact
    if between:
        requirements[f"the errors between the end sizes (K = {sorted(between)}, a lower bound each) stay below the"
                     " error at the smaller end size"] = not rise or not exact or unresolved
    n_slope = float(np.polyfit(np.log(np.array(params, dtype=float)), np.log(np.maximum(sups, 1e-300)), 1)[0])
    return rate_check(
        f"constant depth, {name}, k = {k}, d = {d}: sup|f − f̂_K| = O(K^(−2(k+1)))",
        Ks,
        np.maximum(sups, np.finfo(np.float64).tiny),
        expected=expected,
        tolerance=END_SLOPE_TOL,
        sense="<=",
        measured=verdict["measured"],
        quantity=verdict["quantity"],
        requirements=requirements,
        inconclusive=inconclusive if all(requirements.values()) else "",  # exact requirements decide
        notes={"local slopes": slopes, "intervals read (K)": [(sorted_K[i], sorted_K[i + 1]) for i in verdict["end"]],
               "round-off floor η": floor, f"parameters carry >= {FLOAT64_BITS} bits": min(bits) >= FLOAT64_BITS, "affine maps": depths, "parameters N": params,
               "N counted at K": count_K, "slope of log N against log K": n_fit.slope, "max |weight|": biggest,
               "RMS error": rmss, "slope over the sizes read": round(overall, 2), "slope against N": n_slope, "predicted slope against N": -(k + 1) / d,
               # rounded: their last digits follow round-off, which differs between machines
               "errors between the end sizes": {K: float(f"{e:.3g}") for K, (e, _, _, _) in between.items()},
               "points per cell": p, "sup change on doubling": [round(c, 3) for c in changes],
               "Hölder exponent of f (least read)": None if kind.exponent is None else round(kind.exponent, 1),
               "class resolution c": float(f"{kind.resolution:.1g}"),  # one digit: round-off sets it
               "class reading": {key: round(r.exponent, 1) if r.read else r.why for key, r in kind.readings.items()}},
    )


def _built(build: Callable, f: Callable, **kw):
    """``build``'s network for ``kw``, read (:func:`read_network`); an error inside ``build`` is reported as build's."""
    try:
        net = build(f, **kw)
    except (TypeError, ValueError, ArithmeticError, RuntimeError, IndexError, KeyError) as error:
        kind = ValueError if isinstance(error, (ValueError, ArithmeticError, RuntimeError, IndexError, KeyError)) \
            else TypeError
        raise kind(f"build failed for K = {kw['K']}: {type(error).__name__}: {error}") from error
    try:
        reading = read_network(net, name="build")
        if reading.maps[0][0].shape[1] != kw["d"]:
            raise ValueError(f"build returned a network whose first affine map takes {reading.maps[0][0].shape[1]}"
                             f" inputs; it must take the d = {kw['d']} coordinates of x")
        return reading
    except (TypeError, ValueError) as error:
        size = ""
        if "non-finite" in str(error):  # the construction's weights scale with f: name f's size when it overflows them
            values = f(evaluation_points(2, kw["d"], p=2, device=kw["device"])).abs().max()
            size = (f"; f reaches |f| = {float(values):.3g} on [0, 1]^{kw['d']}, and the construction's weights scale"
                    " with f (times 1/δ² in the gadgets): rescale f")
        raise type(error)(f"{error} (for K = {kw['K']}){size}") from None


def _between(build: Callable, f: Callable, kw: dict, Ks: list[int], errors: list[float], end: list[int],
             p: int, every_layer: bool = False) -> dict:
    """Every integer size strictly inside the end intervals read (at most :data:`BETWEEN` of them, evenly spread):
    ``{K': (e', line, below, reading)}`` with ``e'`` a lower bound of its sup error (the sampled points, no zoom),
    ``line`` the power law through the neighbouring end errors times ``(K_(i+1)/K_i)^SWING``, ``below`` the
    error at the smaller neighbour ``K_i`` (d = 1) and the network read (its maps are counted like the others)."""
    inside = [(K, i) for i in end for K in range(Ks[i] + 1, Ks[i + 1])]
    if len(inside) > BETWEEN:
        inside = [inside[round(j * (len(inside) - 1) / (BETWEEN - 1))] for j in range(BETWEEN)]
    out = {}
    for K, i in inside:
        reading = _built(build, f, K=K, **kw)
        x = evaluation_points(K, 1, p=p, device=kw["device"])
        x, values, _, _ = evaluation.resolved_values(reading, x, every_layer=every_layer)
        error = float((values - finite_values("f", f(x).reshape(-1))).abs().max())
        slope = math.log(errors[i + 1] / errors[i]) / math.log(Ks[i + 1] / Ks[i])
        line = errors[i] * (K / Ks[i]) ** slope * (Ks[i + 1] / Ks[i]) ** SWING
        out[K] = (error, line, errors[i], reading)
    return out


def work_estimate(Ks: Sequence[int], *, k: int, d: int, points_per_cell: int) -> float:
    """Multiply-adds of :func:`check_constant_depth_rate` from the sizes alone (Python numbers, before anything is
    built): for every ``K``, the points at densities ``p`` and ``2p`` (:func:`nnproofs.smooth.evaluation.point_count`)
    times the bound ``N <= c (K + 2)^{2d}`` of :data:`PARAMETER_BOUND`."""
    c = PARAMETER_BOUND[d][k]
    return float(sum(
        (point_count(K, d, points_per_cell) + point_count(K, d, 2 * points_per_cell)) * c * (K + 2) ** (2 * d)
        for K in Ks))


def _hidden_share(kind, k: int, Ks: list[int], errors: list[float], floor: float, *, at_floor: bool = False
                  ) -> tuple[float, int | None, float, float]:
    """The largest share of a measured error (sizes read, sorted) that a singular part ``c|x - a|^β`` at the class
    reading's resolution ``c(β)`` could make, ``E_k(β) c(β) h^β / e_K`` with ``h = 1/K²`` (:func:`local_fit_error`:
    the network blends local fits of degree ``k``, so it adds at most their error), over every ``β`` of
    ``kind.resolutions``; with the ``K``, ``β`` and ``c(β)`` where it is largest. On the floor path (``at_floor``:
    every error within η, none read) the share of ``floor`` itself at every ``K``: a part that the reading cannot see
    must not be able to stand above the round-off that the verdict rests on."""
    read = range(len(Ks)) if at_floor else [i for i in range(len(Ks)) if errors[i] >= FLOOR_MARGIN * floor]
    shares = {(Ks[i], beta, c): local_fit_error(k, beta) * c * float(Ks[i]) ** (-2 * beta)
              / (floor if at_floor else errors[i]) for beta, c in kind.resolutions if math.isfinite(c) for i in read}
    if not shares:
        return 0.0, None, math.nan, math.inf
    worst = max(shares, key=shares.get)
    return (shares[worst], *worst)


def _overall_slope(Ks: list[int], errors: list[float], floor: float, converged: list[bool]) -> float:
    """The fitted slope of ``log e`` against ``log K`` over both sizes of every interval read (its larger-K error at
    least ``FLOOR_MARGIN`` times the floor, as :func:`_end_verdict` reads them; sizes sorted) whose sampled sup has
    converged (an unconverged one is a lower bound and could fall more); ``-inf`` when fewer than two remain."""
    read = sorted({j for i in range(len(Ks) - 1) if errors[i + 1] >= FLOOR_MARGIN * floor for j in (i, i + 1)})
    read = [i for i in read if converged[i]]
    if len(read) < 2:
        return -math.inf
    return fit_loglog([Ks[i] for i in read], [errors[i] for i in read]).slope


def _end_verdict(Ks: list[int], errors: list[float], slopes: list[float], floor: float, expected: float,
                 intervals: int, in_class: bool, *, at_floor: float) -> dict:
    """What :func:`check_constant_depth_rate` reads at the asymptotic end (sizes sorted): the measured end slope,
    the intervals read above ``floor`` (the build's), and why the data cannot decide (empty when they can); errors
    all within ``at_floor`` (η of float64) are reproduced to round-off."""
    read = [i for i in range(len(slopes)) if errors[i + 1] >= FLOOR_MARGIN * floor]
    end = read[-intervals:]
    above = f"{FLOOR_MARGIN:g}x the round-off floor"
    eta = f"η = {floor:.2g}" if floor <= at_floor else (
        f"the build's floor {floor:.2g} = {floor / at_floor:.3g} η: its parameters carry fewer than {FLOAT64_BITS} bits")
    if max(errors) <= FLOOR_PASS * at_floor:  # reproduced to round-off: the one-sided bound holds (rule 2)
        return {"measured": expected, "end": [], "inconclusive": "", "floor": True,
                "quantity": f"every error within the round-off floor η = {at_floor:.2g}: reproduced to round-off, the bound"
                            " holds at the floor (rule 2; no interval of K is read: no slope is measured, the rate is reported)"}
    quantity = f"largest local slope against K over the last {intervals} intervals above {above}"
    needed = intervals  # a single interval never decides a PASS (rule 13); k = 3 needs its three (END_INTERVALS_K3)
    if len(read) < needed:
        measured = max(slopes[i] for i in read) if read else slopes[0]
        # every slope read no steeper than -2k + tol: worse than a construction one degree short, whatever K adds
        worse = bool(read) and min(slopes[i] for i in read) > expected + 2 + END_SLOPE_TOL
        return {"measured": measured, "end": read, "quantity": quantity,
                "inconclusive": "" if worse else f"too few sizes above the floor: {len(read)} interval(s) of K end"
                f" above {above} ({eta}), {needed} needed; use smaller K or more sizes"}
    measured = max(slopes[i] for i in end)
    why = ""
    if min(slopes[i] for i in end) < expected - SWING - END_SLOPE_TOL:
        why = (f"pre-asymptotic: the end slopes {[round(slopes[i], 2) for i in end]} fall faster than the rate"
               f" {expected:g} by more than {SWING + END_SLOPE_TOL:g} (in-class slopes settle within {SWING:g}): the"
               " errors at the smaller K are not on the asymptotic line, or they swing between sizes; use more and"
               " larger K")
    elif measured <= expected + END_SLOPE_TOL and end[-1] < len(slopes) - 1:
        why = (f"the largest sizes are not read: the errors at K = {Ks[end[-1] + 2:]} lie within {above} ({eta}),"
               f" so the intervals read, {[(Ks[i], Ks[i + 1]) for i in end]}, are not the asymptotic end; use smaller K")
    elif measured > expected + END_SLOPE_TOL and _steepening_to_the_rate([slopes[i] for i in read], expected, in_class):
        reached = ("the last one meets the rate" if slopes[read[-1]] <= expected + END_SLOPE_TOL else
                   f"f is in the class and the last one beats {expected + 2:g}, the rate one degree lower")
        why = (f"pre-asymptotic: the local slopes {[round(slopes[i], 2) for i in read]} steepen by more than"
               f" {STEEPENING:g} at every step and {reached}; use larger K")
    elif measured > expected + END_SLOPE_TOL and in_class and min(slopes[i] for i in end) <= expected + 2 - END_SLOPE_TOL \
            and not _steady([slopes[i] for i in end]):
        # one degree short stays near -2k (measured -2.0, -4.0, -6.0); in-class slopes flatten or swing at small K;
        # steady end slopes are asymptotic (STEEPENING), so steady ones short of the rate are not excused
        why = (f"pre-asymptotic: f is read in the class and the end slopes {[round(slopes[i], 2) for i in end]} flatten"
               f" or swing, one beating {expected + 2:g} (the rate one degree lower) by the tolerance; in-class local"
               f" slopes swing by up to {SWING:g} at small K before they settle; use larger K")
    if not why and measured <= expected + END_SLOPE_TOL and measured > expected * (1 - STEADY_SHORTFALL) \
            and _steady([slopes[i] for i in end]):
        why = (f"the end slopes {[round(slopes[i], 2) for i in end]} are steady (asymptotic, {STEEPENING:g}) and short"
               f" of the rate {expected:g} by more than {STEADY_SHORTFALL:.0%}: a settled slower rate, or an approach"
               " slower than the sizes show; use larger K")
    return {"measured": measured, "end": end, "quantity": quantity, "inconclusive": why}


def _unresolved_by_the_mesh(f: Callable, k: int, K: int, device) -> bool:
    """Whether ``f``'s own interpolation of degree ``k`` at Chebyshev points of each of the ``K²`` fine cells
    (d = 1) errs, at 16 points per cell, by at least :data:`UNRESOLVED_SHARE` of ``f``'s half-oscillation there:
    a property of ``f`` and the mesh, not of the build (a broken build on a resolved ``f`` still fails)."""
    nodes = 0.5 - 0.5 * np.cos((2 * np.arange(k + 1) + 1) * np.pi / (2 * k + 2))
    t = (np.arange(16) + 0.5) / 16
    basis = np.stack([np.prod([np.ones_like(t)] + [(t - nodes[m]) / (nodes[j] - nodes[m])
                                                   for m in range(k + 1) if m != j], axis=0)
                      for j in range(k + 1)], axis=1)  # (16, k + 1) Lagrange basis
    left = np.arange(K * K)[:, None] / (K * K)
    points = np.concatenate([left + nodes / (K * K), left + t / (K * K)], axis=1)
    values = finite_values("f", f(torch.tensor(points.reshape(-1, 1), dtype=torch.float64, device=device))
                           .reshape(-1)).cpu().numpy().reshape(K * K, -1)
    at_nodes, at_t = values[:, :k + 1], values[:, k + 1:]
    spread = 0.5 * float(np.ptp(values))
    return spread > 0 and float(np.abs(at_nodes @ basis.T - at_t).max()) >= UNRESOLVED_SHARE * spread


def _steady(slopes: list[float]) -> bool:
    """Whether neighbouring local slopes differ by at most :data:`STEEPENING`: asymptotic, not flattening or swinging."""
    return all(abs(later - earlier) <= STEEPENING for earlier, later in zip(slopes, slopes[1:]))


def _steepening_to_the_rate(slopes: list[float], expected: float, in_class: bool) -> bool:
    """Whether the local slopes read, in order of ``K``, steepen by more than :data:`STEEPENING` at every step and the
    last one is within the tolerance of the rate (or, for ``f`` in the class by :func:`chebyshev_smoothness`, beats
    ``expected + 2 = -2k``, the rate of one degree less, by the tolerance): an in-class target approaching its rate,
    not yet over the whole end. A single interval has no step; slopes that oscillate, or that steepen but stay short
    of the rate at the largest ``K`` on a target not shown to be in the class, are not called pre-asymptotic."""
    steps = zip(slopes, slopes[1:])
    reached = expected + 2 - END_SLOPE_TOL if in_class else expected + END_SLOPE_TOL
    return len(slopes) > 1 and all(later < earlier - STEEPENING for earlier, later in steps) and slopes[-1] <= reached


def default_Ks(k: int, d: int = 1, activation: str = "gelu") -> list[int]:
    """The chapter's sizes ``K`` for degree ``k``, dimension ``d`` and activation ``σ``, sized for :func:`chapter_target`.

    Parameters
    ----------
    k : int
        The local degree, ``0 <= k <= 3``.
    d : int
        The dimension, 1 or 2.
    activation : str
        The activation; its round-off floor sets the largest useful ``K``.

    Returns
    -------
    list of int
        Increasing sizes for ``BOOK_SCALE`` (ci or full), each within :func:`nnproofs.budget.work`.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.default_Ks(1)  # at BOOK_SCALE=ci
    [4, 6, 8, 12, 16]

    Notes
    -----
    The chapter's target stays at least ``FLOOR_MARGIN`` times above the round-off floor (1e-9 for GELU and SiLU,
    5e-6 for the others, relative to half the oscillation of ``f``) at the largest ``K`` read, with at least two
    intervals above it; for softplus, tanh and sigmoid at ``k = 3`` it reaches the floor by ``K = 3``
    (INCONCLUSIVE). Another target reaches its floor at other sizes: the check's INCONCLUSIVE reason and
    ``notes["intervals read (K)"]`` say whether to use smaller or larger ``K``. ``d = 2``: ``K = 2, 3, 4`` at ci for
    ``k <= 1``, ``K = 2, 3`` for ``k >= 2`` (one interval: INCONCLUSIVE), up to 7 at full scale.
    """
    k, d, name = degree(k), dimension(d), sg.activation_name(activation)
    if d == 2:
        return book_device.sizes(ci=[2, 3, 4] if k < 2 else [2, 3], full=[3, 4, 5, 6, 7] if k < 2 else [3, 4, 5, 6])
    if name in ("gelu", "silu"):
        full = {0: [8, 12, 16, 24, 32, 48, 64], 1: [8, 12, 16, 24, 32, 48, 64], 2: [6, 8, 12, 16, 24, 32],
                3: [4, 6, 8, 10, 12]}[k]
        return book_device.sizes(ci=[4, 6, 8, 12, 16] if k < 3 else [4, 5, 6, 8], full=full)
    ci = {0: [4, 6, 8, 12, 16], 1: [4, 6, 8, 12], 2: [3, 4, 5], 3: [2, 3, 4]}[k]
    full = {0: [8, 12, 16, 24, 32, 48, 64], 1: [4, 6, 8, 10, 12], 2: [3, 4, 5], 3: [2, 3, 4]}[k]
    return book_device.sizes(ci=ci, full=full)
