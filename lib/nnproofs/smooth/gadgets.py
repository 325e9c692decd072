"""Smooth activations and the one-layer gadgets that chapter 1 builds from them.

For a smooth activation :math:`\\sigma` (GELU, SiLU, softplus, tanh, logistic sigmoid) and a base
point :math:`b` with :math:`\\sigma^{(a)}(b) \\ne 0`, a central finite difference of order
:math:`a` realises the monomial :math:`y^a` with one hidden layer (Definition ``def-smooth-gadgets``):

.. math::
    \\mathrm{id}_\\delta(y) = \\frac{\\sigma(b+\\delta y) - \\sigma(b-\\delta y)}{2\\delta\\sigma'(b)}, \\qquad
    \\mathrm{sq}_\\delta(y) = \\frac{\\sigma(b+\\delta y) - 2\\sigma(b) + \\sigma(b-\\delta y)}{\\delta^2\\sigma''(b)},

.. math::
    \\mathrm{cu}_\\delta(y) = \\frac{\\sigma(b+2\\delta y) - 2\\sigma(b+\\delta y) + 2\\sigma(b-\\delta y) - \\sigma(b-2\\delta y)}
                              {2\\delta^3\\sigma'''(b)},

with errors :math:`\\delta^2 y^3 \\sigma'''/(6\\sigma')`, :math:`\\delta^2 y^4\\sigma''''/(12\\sigma'')` and
:math:`\\delta^2 y^5 \\sigma^{(5)}/(4\\sigma''')` to leading order (Taylor), plus float64 round-off of
order :math:`\\varepsilon |\\sigma(b)|/\\delta^a`. Products follow by polarisation,
:math:`xy = \\tfrac14[\\mathrm{sq}(x+y) - \\mathrm{sq}(x-y)]` (four neurons). GELU, SiLU and softplus
have the form :math:`y\\,g(y)` with :math:`g(y) + g(-y) = 1`, so :math:`\\sigma(y) - \\sigma(-y) = y`
*exactly*: the identity needs no :math:`\\delta` for them. Steps (Definition ``def-smooth-step``) are
:math:`H(y) = \\sigma(y+\\tfrac12) - \\sigma(y-\\tfrac12)` for those three, :math:`(1+\\tanh y)/2` and
:math:`\\operatorname{sigmoid}(y)`; each satisfies :math:`1 - H(y) = H(-y)` and is within
:math:`\\varepsilon/2` of the Heaviside function once :math:`|y| \\ge r_\\sigma` (:func:`step_reach`).

Exact derivative values come from sympy (:func:`exact_derivative`); base points and the default
:math:`\\delta` are derived from them (:func:`base_point`, :func:`default_delta`), never typed in.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy
import torch
from scipy import optimize, special
from torch import nn

from ..validate import finite_real, positive_real
from .inputs import device_of


ACTIVATIONS = ("gelu", "silu", "softplus", "tanh", "sigmoid")
EXACT_IDENTITY = ("gelu", "silu", "softplus")  # sigma(y) - sigma(-y) = y exactly
EPS = float(np.finfo(np.float64).eps)
MAX_ORDER = 3  # monomials y^a with a <= 3: the a-th difference loses ~ a * 53/(a+2) bits to round-off
MIN_RELATIVE_DERIVATIVE = 1e-2  # |sigma^(a)(b)| below 1% of its maximum: the gadget's error is divided by it
MIN_DELTA = 1e-8  # the smallest δ a gadget accepts: its round-off ε|σ(b)|/δ² is then already of order 1
IDENTITY_SHARE = 0.1  # the identity's modelled error may be this share of the square's (see default_delta)
SOFTPLUS_THRESHOLD = 40.0  # torch's default 20 switches to y at y > 20, an error of e^-20 = 2e-9 (see module doc)
_Y = sympy.Symbol("y", real=True)

# Central stencils: order a -> (offsets j, weights c_j, constant K_a) with
#   sum_j c_j sigma(b + j delta y) = K_a delta^a y^a sigma^(a)(b) + O(delta^(a+2)),
# and the constant kappa_a of the leading error term kappa_a delta^2 y^(a+2) sigma^(a+2)(b) / sigma^(a)(b).
STENCILS = {
    1: ((1, -1), (1.0, -1.0), 2.0, 1.0 / 6.0),
    2: ((1, 0, -1), (1.0, -2.0, 1.0), 1.0, 1.0 / 12.0),
    3: ((2, 1, -1, -2), (1.0, -2.0, 2.0, -1.0), 2.0, 1.0 / 4.0),
}
# One-sided second difference sigma(b + 2 delta y) - 2 sigma(b + delta y) + sigma(b): error O(delta),
# the negative control of the square gadget (the slope in delta drops from 2 to 1).
FORWARD_STENCIL = ((2, 1, 0), (1.0, -2.0, 1.0), 1.0, None)
TRAINABLE = ("relu",) + ACTIVATIONS  # the trained comparisons also fit ReLU networks


def activation_name(activation, *, trainable: bool = False, parameter: str = "activation") -> str:
    """``activation`` lower-cased if it names one of :data:`ACTIVATIONS` (or, with ``trainable=True``, of
    :data:`TRAINABLE`), else a ValueError/TypeError naming the parameter, the value and what is allowed."""
    allowed = TRAINABLE if trainable else ACTIVATIONS
    if not isinstance(activation, str):
        raise TypeError(f"{parameter} must be a string, one of {', '.join(allowed)}; got {type(activation).__name__}")
    name = activation.strip().lower()
    if name not in allowed:
        why = (" (ReLU has no second derivative: its 'square gadget' computes delta*|y|, not y^2)" if name == "relu"
               else " (the gadgets read exact derivatives of these five)" if not trainable else "")
        smooth = "a smooth activation, " if not trainable else ""
        raise ValueError(f"{parameter}={activation!r} is not allowed; use {smooth}one of {', '.join(allowed)}{why}")
    return name


def expression(activation: str) -> sympy.Expr:
    """The activation as a sympy expression in ``y``."""
    y = _Y
    return {
        "gelu": y * (1 + sympy.erf(y / sympy.sqrt(2))) / 2,
        "silu": y / (1 + sympy.exp(-y)),
        "softplus": sympy.log(1 + sympy.exp(y)),
        "tanh": sympy.tanh(y),
        "sigmoid": 1 / (1 + sympy.exp(-y)),
    }[activation_name(activation)]


def module(activation: str) -> nn.Module:
    """The torch module of ``activation`` (exact GELU; softplus with threshold 40, see :data:`SOFTPLUS_THRESHOLD`)."""
    name = activation_name(activation)
    if name == "gelu":
        return nn.GELU()
    if name == "silu":
        return nn.SiLU()
    if name == "softplus":
        return nn.Softplus(threshold=SOFTPLUS_THRESHOLD)
    return nn.Tanh() if name == "tanh" else nn.Sigmoid()


MAX_DERIVATIVE = 12  # derivatives of σ up to this order (the gadgets' error models use <= 6)


def _derivative_order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, int) or not 0 <= order <= MAX_DERIVATIVE:
        raise ValueError(f"order must be an int in 0..{MAX_DERIVATIVE}, got {order!r}")
    return order


def exact_derivative(activation: str, order: int, at=0) -> sympy.Expr:
    """``σ^(order)(at)`` as an exact sympy expression.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    order : int
        The order of the derivative, ``0 <= order <= 12``.
    at : number or sympy.Expr
        Where to evaluate it.

    Returns
    -------
    sympy.Expr
        The exact value.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.exact_derivative("silu", 1, 0)
    1/2

    Notes
    -----
    The derivatives are cached per activation and order.
    """
    _derivative_order(order)
    if isinstance(at, bool) or not isinstance(at, (int, float, sympy.Expr)) or (
            isinstance(at, float) and not np.isfinite(at)):
        raise TypeError(f"at must be a finite number or a sympy expression, got {at!r}")
    value = _derivative_expression(activation_name(activation), order).subs(_Y, sympy.nsimplify(at))
    return sympy.simplify(value)


@functools.lru_cache(maxsize=None)
def _derivative_expression(activation: str, order: int) -> sympy.Expr:
    """``σ^(order)`` as a sympy expression, differentiated once from the cached ``σ^(order-1)``."""
    if order == 0:
        return expression(activation)
    return sympy.diff(_derivative_expression(activation, order - 1), _Y)


@functools.lru_cache(maxsize=None)
def _numeric(activation: str, order: int):
    """``σ^(order)`` as a vectorised numpy function (float64)."""
    return sympy.lambdify(_Y, _derivative_expression(activation, order), modules=[{"erf": special.erf}, "numpy"])


def derivative(activation: str, order: int, at: float) -> float:
    """``σ^(order)(at)`` in float64.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    order : int
        The order of the derivative, ``0 <= order <= 12``.
    at : float
        Where to evaluate it.

    Returns
    -------
    float
        The value, from the exact sympy expression (:func:`exact_derivative`).

    Examples
    --------
    >>> from nnproofs import smooth
    >>> round(smooth.derivative("silu", 1, 0.0), 6)
    0.5

    Notes
    -----
    Exact up to one rounding; the gadgets' error models use it.
    """
    at = finite_real("at", at)
    _derivative_order(order)
    with np.errstate(all="ignore"):
        value = float(_numeric(activation_name(activation), order)(np.float64(at)))
    if not math.isfinite(value):
        raise ValueError(f"at={at!r} is too far out: σ^({order}) does not evaluate to a finite float64 there")
    return value


def _max_abs(activation: str, order: int, lo: float, hi: float, samples: int = 2049) -> float:
    """``max |σ^(order)|`` on ``[lo, hi]``, sampled at ``samples`` points and inflated by 0.1%.

    The sample misses the maximum by at most ``max|σ^(order+1)| (hi - lo) / (2 samples)``, far
    below 0.1% for the intervals used here (width <= 0.2, derivatives of order <= 6 below 10).
    """
    values = np.abs(np.broadcast_to(_numeric(activation, order)(np.linspace(lo, hi, samples)), (samples,)))
    return 1.001 * float(values.max())


def base_point(activation: str, order: int) -> float:
    """The base point ``b`` of the order-``order`` gadget of ``σ``.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    order : int
        The power the gadget computes: 1 (identity), 2 (square) or 3 (cube).

    Returns
    -------
    float
        A point where ``|σ^(order)|`` is largest (so ``σ^(order)(b) ≠ 0``).

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.base_point("gelu", 2)
    0.0

    Notes
    -----
    At these points ``σ^(order+1)(b) = 0``, so even a one-sided stencil is second order.
    """
    return _base_point(activation_name(activation), _order(order))


@functools.lru_cache(maxsize=None)
def _base_point(activation: str, order: int) -> float:
    """The base point ``b`` of the order-``order`` gadget: where ``|σ^(order)|`` is largest on [-4, 4].

    Ties (odd or even ``σ^(order)``) go to the smaller ``|σ(b)|``, which sets the round-off, then to
    the smaller ``b``. GELU, SiLU, softplus: ``b = 0`` for the square; tanh ``-0.6585``, sigmoid
    ``ln(2 - √3) = -1.317``, where ``σ''(0) = 0``.
    """
    name = activation_name(activation)
    _order(order)
    grid = np.linspace(-4.0, 4.0, 8001)
    magnitude = np.abs(np.broadcast_to(_numeric(name, order)(grid), grid.shape))
    padded = np.concatenate([[-np.inf], magnitude, [-np.inf]])
    local_max = (padded[1:-1] >= padded[:-2]) & (padded[1:-1] >= padded[2:])
    candidates = []
    for i in np.flatnonzero(local_max & (magnitude >= magnitude.max() * (1 - 1e-6))):
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        found = optimize.minimize_scalar(lambda t: -abs(float(_numeric(name, order)(t))), bounds=(lo, hi),
                                         method="bounded", options={"xatol": 1e-12})
        b = float(found.x)
        if abs(b) < 1e-4 and abs(derivative(name, order, 0.0)) >= abs(derivative(name, order, b)) * (1 - 1e-9):
            b = 0.0  # the optimiser stops within its tolerance of an extremum at exactly 0
        candidates.append((round(abs(derivative(name, 0, b)), 9), b))
    return min(candidates)[1]


def check_base_point(activation: str, order: int, base: float) -> float:
    """``base`` if ``|σ^(order)(base)|`` is at least 1% of its largest value on [-4, 4], else a ValueError.

    The gadget divides by ``σ^(order)(b)``: where it vanishes (tanh and sigmoid at 0 for the square)
    the gadget is undefined, and near a zero its error and round-off blow up.
    """
    base = finite_real("base", base)
    name = activation_name(activation)
    best = abs(derivative(name, order, base_point(name, order)))
    with np.errstate(all="ignore"):
        value = float(_numeric(name, order)(np.float64(base)))
    if not abs(value) >= MIN_RELATIVE_DERIVATIVE * best:  # NaN far out is refused here too
        exact = exact_derivative(name, order, base)
        raise ValueError(
            f"base={base!r}: {name}^({order})({base:g}) = {exact} is zero or nearly so (|value| < "
            f"{MIN_RELATIVE_DERIVATIVE:g} x max {best:.4g}); the order-{order} gadget divides by it. "
            f"Use a base point where it is not small, e.g. the default b = {base_point(name, order):.6g}")
    return base


def _delta_model(activation: str, order: int) -> tuple[np.ndarray, np.ndarray]:
    """The candidate ``δ`` (``10^-9 .. 10^-1``) and the gadget's modelled error at each (see :func:`default_delta`)."""
    offsets, weights, scale, kappa = STENCILS[order]
    b = base_point(activation, order)
    d_a = abs(derivative(activation, order, b))
    truncation = kappa * _max_abs(activation, order + 2, b - 0.1, b + 0.1) / d_a
    value, slope = abs(derivative(activation, 0, b)), abs(derivative(activation, 1, b))
    deltas = np.logspace(-9, -1, 1601)
    rounding = sum(abs(c) * (value + abs(j) * deltas * slope) for j, c in zip(offsets, weights))
    model = truncation * deltas**2 + EPS * rounding / (scale * deltas**order * d_a)
    if order == 2:
        model = model + EPS * value * slope / (deltas**3 * d_a**2)
    return deltas, model


@functools.lru_cache(maxsize=None)
def default_delta(activation: str, order: int) -> float:
    """The ``δ`` that minimises the gadget's error model for ``|y| <= 1`` in float64, inside a network.

    Model, with ``b`` the base point and ``σ_a = |σ^(a)(b)|``:

    * truncation ``κ_a δ² T / σ_a`` with ``T = max |σ^(a+2)|`` near ``b`` (Taylor);
    * round-off of the gadget itself, ``ε Σ_j |c_j| (|σ(b)| + |j| δ |σ'(b)|) / (K_a δ^a σ_a)``: each neuron's
      value is rounded to a relative ``ε``;
    * for the square (``a = 2``), which also makes the products: round-off *propagated* from one product to
      the next, ``ε |σ(b)| |σ'(b)| / (δ³ σ_2²)``. A product's neurons have values near ``σ(b)`` and output
      weights ``1/(4δ²σ_2)``, so the next product's pre-activations carry absolute errors
      ``~ ε |σ(b)| / (δ σ_2)``, which its output weights amplify by ``|σ'(b)| / (δ² σ_2)``.

    GELU and SiLU have ``σ(0) = 0``: their squares land near ``ε^(1/3) ≈ 1e-5``. Softplus, tanh and
    sigmoid have ``σ(b) ≠ 0`` at their base points, the propagated term dominates and ``δ ≈ ε^(1/5)``
    (a few 1e-4): their networks bottom out near 1e-6, GELU's and SiLU's near 1e-9.

    The identity (order 1, a first difference for tanh and sigmoid only) feeds products, whose error is at
    least the square's modelled minimum, so a much more accurate identity buys nothing but larger weights
    ``1/(2δσ'(b))``: its ``δ`` is the largest whose modelled error is at most a tenth of that minimum
    (:data:`IDENTITY_SHARE`; at the full minimum the networks' floor doubled). (For tanh,
    ``σ(0) = 0`` makes the identity's own round-off ``ε`` whatever ``δ``; the unconstrained minimum sat at
    the smallest ``δ`` tried, ``10^-9``, and the steps' slopes then made weights of ``~10^13``.)
    """
    name = activation_name(activation)
    deltas, model = _delta_model(name, _order(order))
    if order == 1:
        allowed = max(float(model.min()), IDENTITY_SHARE * float(_delta_model(name, 2)[1].min()))
        return float(deltas[np.flatnonzero(model <= allowed)[-1]])
    return float(deltas[int(np.argmin(model))])


def step_reach(activation: str, tail: float = EPS / 2) -> float:
    """The reach ``r_σ`` of the smooth step ``H``: ``H(t)`` lies within ``tail`` of 0 or 1 for ``|t| >= 1``.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    tail : float
        The saturation tolerance (default ``ε/2``).

    Returns
    -------
    float
        ``r_σ``, the slope that saturates the step at distance 1.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.step_reach("tanh") > 1
    True

    Notes
    -----
    Arguments are checked before the cache sees them.
    """
    if isinstance(tail, bool) or not isinstance(tail, (int, float)):
        raise TypeError(f"tail must be a real number in (0, 0.5), got {type(tail).__name__}")
    return _step_reach(activation_name(activation), finite_real("tail", tail))


@functools.lru_cache(maxsize=None)
def _step_reach(activation: str, tail: float = EPS / 2) -> float:
    """``r_σ``: the step ``H`` is within ``tail`` of the Heaviside function for ``|y| >= r_σ``.

    Solves ``H(-r) = tail`` (``1 - H(r) = H(-r)``, module doc) by bisection in 40-digit arithmetic.
    About 9.0 for GELU (Gaussian tail), 40.5 for SiLU, 36.8 for softplus and sigmoid, 18.4 for tanh.
    """
    name = activation_name(activation)
    if isinstance(tail, bool) or not isinstance(tail, (int, float)):
        raise TypeError(f"tail must be a real number in (0, 0.5), got {type(tail).__name__}")
    tail = finite_real("tail", tail)
    if not 0 < tail < 0.5:
        raise ValueError(f"tail must be in (0, 0.5), got {tail!r}")
    sigma = sympy.lambdify(_Y, expression(name), modules="mpmath")
    with mpmath.workdps(40):
        def lower(r):
            if name in EXACT_IDENTITY:
                return sigma(-r + mpmath.mpf(1) / 2) - sigma(-r - mpmath.mpf(1) / 2)
            return (1 + sigma(-r)) / 2 if name == "tanh" else sigma(-r)

        # Far out, |H(-r)| decreases monotonically (GELU's step undershoots: H(-r) < 0 there, so use |.|);
        # bisect on [3, 200], where |H(-3)| > 1e-5 exceeds every tail asked for here.
        lo, hi = mpmath.mpf(3), mpmath.mpf(200)
        if not abs(lower(lo)) > tail:
            raise ValueError(f"tail={tail!r} is too large: the step is already within it at |y| = 3")
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if abs(lower(mid)) > tail else (lo, mid)
        return float(hi)


@dataclass(frozen=True)
class Stencil:
    """A one-layer gadget ``y -> (Σ_j c_j σ(b + j δ y) - c_0 σ(b)) / D`` for ``y`` of any shape.

    ``offsets`` are the nonzero ``j`` (one neuron each); ``constant`` is the bias ``-Σ_{j=0} c_j σ(b) / D``.
    """

    offsets: tuple[float, ...]
    weights: tuple[float, ...]  # output weights c_j / D of the neurons
    base: float
    delta: float
    constant: float

    @property
    def neurons(self) -> int:
        return len(self.offsets)


def power_stencil(activation: str, order: int, *, delta: float | None = None, base: float | None = None,
                  forward: bool = False) -> Stencil:
    """The order-``order`` gadget (``order`` 1: identity, 2: square, 3: cube) as a :class:`Stencil`.

    GELU, SiLU and softplus realise the identity exactly as ``σ(y) - σ(-y)`` (no ``δ``, no base
    point). ``forward=True`` gives the one-sided square (negative control, error ``O(δ)``).
    """
    name = activation_name(activation)
    _order(order)
    if forward and order != 2:
        raise ValueError(f"the forward (one-sided) stencil exists for order 2 only, got order={order}")
    if order == 1 and name in EXACT_IDENTITY and delta is None and base is None:
        return Stencil(offsets=(1.0, -1.0), weights=(1.0, -1.0), base=0.0, delta=1.0, constant=0.0)
    base = base_point(name, order) if base is None else check_base_point(name, order, base)
    delta = default_delta(name, order) if delta is None else finite_real("delta", delta)
    if not MIN_DELTA <= delta <= 1:
        raise ValueError(f"delta must be in [{MIN_DELTA:g}, 1] (below, float64 round-off ε/δ^order swamps the gadget),"
                         f" got {delta!r}")
    offsets, weights, scale, _ = FORWARD_STENCIL if forward else STENCILS[order]
    divisor = scale * delta**order * derivative(name, order, base)
    sigma_b = derivative(name, 0, base)
    constant = sum(c for j, c in zip(offsets, weights) if j == 0) * sigma_b / divisor
    kept = [(float(j), c / divisor) for j, c in zip(offsets, weights) if j != 0]
    return Stencil(offsets=tuple(j for j, _ in kept), weights=tuple(c for _, c in kept), base=base, delta=delta,
                   constant=constant)


def truncation_bound(activation: str, order: int, delta: float, base: float, radius: float = 1.0, *,
                     forward: bool = False) -> float:
    """Bound on the Taylor error of the order-``order`` gadget for ``|y| <= radius``.

    Order 2 (the square): ``δ² radius⁴ max|σ''''| / (12 |σ''(b)|)`` with the maximum over
    ``[b - δ radius, b + δ radius]``; it is exact in the Lagrange form of the remainder
    ``σ(b+h) - 2σ(b) + σ(b-h) = h² σ''(b) + h⁴ σ''''(ξ)/12``. Orders 1 and 3 use their stencils'
    analogous constants (``1/6`` with ``σ'''``, ``1/4`` with ``σ^(5)`` and reach ``2δ radius``).
    ``forward=True`` (order 2 only): the one-sided difference equals ``h² σ''(ξ)`` with ``ξ`` within ``2h``
    of ``b`` (mean value theorem for divided differences), so the bound is
    ``2δ radius³ max|σ'''| / |σ''(b)|`` over ``[b - 2δ radius, b + 2δ radius]``: first order in ``δ``.
    """
    name = activation_name(activation)
    _, _, _, kappa = STENCILS[_forward_order(order, forward)]
    delta, base, radius = positive_real("delta", delta), finite_real("base", base), positive_real("radius", radius)
    if forward:
        top = _max_abs(name, 3, base - 2.0 * delta * radius, base + 2.0 * delta * radius)
        return 2.0 * delta * radius**3 * top / abs(derivative(name, 2, base))
    reach = (2.0 if order == 3 else 1.0) * delta * radius
    top = _max_abs(name, order + 2, base - reach, base + reach)
    return kappa * delta**2 * radius ** (order + 2) * top / abs(derivative(name, order, base))


def square_error_model(activation: str, delta: float, base: float, radius: float = 1.0) -> tuple[float, float]:
    """The central square gadget's error at ``|y| = radius`` to leading order, and a bound on the rest.

    ``σ(b+h) - 2σ(b) + σ(b-h) = h²σ''(b) + h⁴σ⁽⁴⁾(b)/12 + R`` with ``|R| <= h⁶ max|σ⁽⁶⁾|/360`` (Lagrange form
    of the even Taylor remainder), so ``sq_δ(y) - y² = A y⁴ + r(y)`` with ``A = δ²σ⁽⁴⁾(b)/(12σ''(b))`` and
    ``|r(y)| <= δ⁴ y⁶ max|σ⁽⁶⁾| / (360 |σ''(b)|)``, the maximum over ``[b - δ radius, b + δ radius]``. Returns
    ``(|A| radius⁴, δ⁴ radius⁶ max|σ⁽⁶⁾| / (360 |σ''(b)|))``: the sup error over ``|y| <= radius`` lies within the
    second of the first, plus round-off (:func:`rounding_bound`).
    """
    name = activation_name(activation)
    delta, base, radius = positive_real("delta", delta), finite_real("base", base), positive_real("radius", radius)
    second = abs(derivative(name, 2, base))
    leading = delta**2 * radius**4 * abs(derivative(name, 4, base)) / (12.0 * second)
    rest = delta**4 * radius**6 * _max_abs(name, 6, base - delta * radius, base + delta * radius) / (360.0 * second)
    return leading, rest


def rounding_bound(activation: str, order: int, delta: float, base: float, radius: float = 1.0, *,
                   forward: bool = False) -> float:
    """Bound on the float64 round-off of the order-``order`` gadget for ``|y| <= radius``.

    Each of the neurons' values ``σ(b + jδy)`` is computed with a relative error of a few ulps and its
    argument rounds to a relative ``ε``; the weighted sum and the bias add one rounding each. We
    allow ``8ε`` per value: ``8ε Σ_j |c_j| (max|σ| + (|b| + |j|δ radius) max|σ'|) / (K_a δ^a |σ^(a)(b)|)``,
    over the central stencil's offsets or, with ``forward=True``, the one-sided ones ``(2, 1, 0)``.
    """
    name = activation_name(activation)
    offsets, weights, scale, _ = FORWARD_STENCIL if forward else STENCILS[_forward_order(order, forward)]
    delta, base, radius = positive_real("delta", delta), finite_real("base", base), positive_real("radius", radius)
    reach = 2.0 * delta * radius
    top0 = _max_abs(name, 0, base - reach, base + reach)
    top1 = _max_abs(name, 1, base - reach, base + reach)
    total = sum(abs(c) * (top0 + (abs(base) + abs(j) * delta * radius) * top1) for j, c in zip(offsets, weights))
    return 8.0 * EPS * total / (scale * delta**order * abs(derivative(name, order, base)))


def _order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, int) or order not in STENCILS:
        raise ValueError(f"order must be 1, 2 or 3 (identity, square, cube), got {order!r}")
    return order


def _forward_order(order, forward: bool) -> int:
    """``order`` validated; the forward (one-sided) stencil exists for the square only."""
    if forward and _order(order) != 2:
        raise ValueError(f"the forward (one-sided) stencil exists for order 2 only, got order={order}")
    return _order(order)


def stencil_network(activation: str, stencil: Stencil, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """The gadget ``x -> (Σ_j c_j σ(b + j δ x) + constant)`` as ``Sequential(Linear(1, n), σ, Linear(n, 1))``,
    e.g. ``x -> sq_δ(x)``; the product gadget is :func:`product_network`."""
    if not isinstance(stencil, Stencil):
        raise TypeError(f"stencil must be a Stencil (see power_stencil), got {type(stencil).__name__}")
    n = stencil.neurons
    first = nn.Linear(1, n, dtype=dtype, device=device)
    last = nn.Linear(n, 1, dtype=dtype, device=device)
    with torch.no_grad():
        first.weight.copy_(torch.tensor([[j * stencil.delta] for j in stencil.offsets], dtype=dtype))
        first.bias.fill_(stencil.base)
        last.weight.copy_(torch.tensor([list(stencil.weights)], dtype=dtype))
        last.bias.fill_(stencil.constant)
    net = nn.Sequential(first, module(activation), last)
    net.requires_grad_(False)
    return net


def product_network(activation: str, stencil: Stencil, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """``(x, y) -> [sq(x + y) - sq(x - y)] / 4``: the product gadget, four neurons (two for each square)."""
    if not isinstance(stencil, Stencil):
        raise TypeError(f"stencil must be a Stencil (see power_stencil), got {type(stencil).__name__}")
    n = stencil.neurons
    first = nn.Linear(2, 2 * n, dtype=dtype, device=device)
    last = nn.Linear(2 * n, 1, dtype=dtype, device=device)
    offsets = torch.tensor(stencil.offsets, dtype=dtype) * stencil.delta
    with torch.no_grad():
        first.weight.copy_(torch.cat([torch.stack([offsets, offsets], 1), torch.stack([offsets, -offsets], 1)]))
        first.bias.fill_(stencil.base)
        w = torch.tensor(stencil.weights, dtype=dtype) / 4
        last.weight.copy_(torch.cat([w, -w])[None])
        last.bias.fill_(0.0)
    net = nn.Sequential(first, module(activation), last)
    net.requires_grad_(False)
    return net


def step_form(activation: str) -> tuple[tuple[float, ...], tuple[float, ...], float]:
    """``H(y) = Σ_i w_i σ(y + o_i) + c`` as ``(offsets o, weights w, constant c)``."""
    name = activation_name(activation)
    if name in EXACT_IDENTITY:
        return (0.5, -0.5), (1.0, -1.0), 0.0
    if name == "tanh":
        return (0.0,), (0.5,), 0.5
    return (0.0,), (1.0,), 0.0


def square_gadget(activation: str, delta: float, *, base: float | None = None, stencil: str = "central",
                  device=None) -> nn.Sequential:
    """The square gadget ``x -> sq_δ(x)`` of Definition ``def-smooth-gadgets``.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    delta : float
        The stencil's step ``δ``.
    base : float, optional
        The base point ``b`` (default :func:`base_point`); ``σ''(b) = 0`` raises a ``ValueError``.
    stencil : str
        ``"central"``, or ``"forward"``: ``[σ(b+2δx) - 2σ(b+δx) + σ(b)]/(δ²σ''(b))`` (the negative control).
    device : str or torch.device, optional
        Where to build it (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.nn.Sequential
        ``Linear(1, 2), σ, Linear(2, 1)`` (central) or with three neurons (forward).

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> round(smooth.square_gadget("gelu", 1e-3)(torch.tensor([[0.5]], dtype=torch.float64)).item(), 6)
    0.25

    Notes
    -----
    The forward stencil errs by ``δ x³ σ'''(b)/σ''(b) + O(δ²)``: first order where ``σ'''(b) ≠ 0``.
    """
    return stencil_network(activation, _square(activation, delta, base, stencil), device=device_of(device))


def product_gadget(activation: str, delta: float, *, base: float | None = None, stencil: str = "central",
                   device=None) -> nn.Sequential:
    """The product gadget ``(x, y) -> [sq_δ(x+y) - sq_δ(x-y)] / 4`` of four neurons.

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    delta : float
        The stencil's step ``δ``.
    base : float, optional
        The base point (default :func:`base_point`).
    stencil : str
        ``"central"`` or ``"forward"`` (the negative control).
    device : str or torch.device, optional
        Where to build it (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.nn.Sequential
        Input shape ``(n, 2)``, output ``(n, 1)``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> xy = torch.tensor([[0.5, -0.4]], dtype=torch.float64)
    >>> round(smooth.product_gadget("gelu", 1e-3)(xy).item(), 6)
    -0.2

    Notes
    -----
    Its error is four times the square gadget's on ``[-1, 1]²`` (squares at radius 2).
    """
    return product_network(activation, _square(activation, delta, base, stencil), device=device_of(device))


def identity_gadget(activation: str, *, device=None) -> nn.Sequential:
    """The identity gadget ``x -> σ(x) - σ(-x)`` of ``σ`` (or its first difference).

    Parameters
    ----------
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    device : str or torch.device, optional
        Where to build it (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.nn.Sequential
        ``Linear(1, 2), σ, Linear(2, 1)``.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> smooth.identity_gadget("gelu")(torch.tensor([[0.25]], dtype=torch.float64)).item()
    0.25

    Notes
    -----
    Exactly ``x`` for GELU, SiLU and softplus (``σ(x) - σ(-x) = x``); a first difference for tanh and sigmoid.
    """
    return stencil_network(activation, power_stencil(activation, 1), device=device_of(device))


def _square(activation, delta, base, stencil) -> Stencil:
    if stencil not in ("central", "forward"):
        raise ValueError(f"stencil must be 'central' or 'forward' (the negative control), got {stencil!r}")
    return power_stencil(activation, 2, delta=delta, base=base, forward=stencil == "forward")
