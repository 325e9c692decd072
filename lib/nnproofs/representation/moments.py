"""Chapter 3: the second moments behind the Monte Carlo error, computed without sampling.

:math:`G_k(t) = \\int_0^{t_+} s^{2k-4}(t-s)^2/p_k(s)\\,ds` (:func:`relu_square_integral`), the exact sphere moments of
:math:`q_k^2`, the radial and one-coordinate quadratures that give :math:`M_k` (``eq-second-moment`` in
``book/03_sharpened_representation``), and our dimension-free constants :math:`C_k`, :math:`C_k^\\infty`.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy
import torch
from scipy import special

from .. import budget
from ..measure import input_law
from ..validate import finite_real, int_at_least, positive_int, positive_real
from . import symbolic as sym

BETA_OVER_SIGMA = 2.0  # bias scale β = 2σ: M_k < ∞ needs β > σ on the sphere; 2σ leaves the MSE estimator finite variance
QUAD_NODES = 48  # Gauss–Legendre nodes for G_k on [0, t]; the integrand is smooth, 48 nodes reach round-off for t <= 10
MOMENT_NODES = 64  # Gauss–Jacobi × Gauss–Legendre nodes of radial_second_moment: 64 and 128 agree to 1e-12 (tests)
MOMENT_MAX_DIMENSION = 2000  # Gauss–Jacobi weights of exponent a − 1 = (d − 3)/2 overflow float64 near d = 2050
SCALE_RANGE = (1e-4, 1e4)  # sigma, and beta / sigma: beyond, σ^(4k) and e^(t²/(2β²)) leave float64 at moderate k
MAX_DEGREE = 64  # the largest degree k of a part whose second moment is computed (σ^(4k), (k-2)!² in float64)
MOMENT_RTOL = 1e-9  # relative accuracy of the deterministic M_k (quadrature round-off is below 1e-12)
_LEGENDRE = np.polynomial.legendre.leggauss(QUAD_NODES)
CONSTANT_MAX_DEGREE = 1000  # roots_jacobi's total weight 2^(k+1)B(3, k-1) overflows float64 near k = 1020
MAX_NODES = 4096  # quadrature nodes of the moment functions: 64 reach round-off, 4096 is a table of 16 million entries
CONSTANT_NODES = 200  # Gauss–Jacobi nodes per axis of _log_gaussian_g_moments: 100..800 agree to 1e-12 at β = 1.42σ (tests)


def fischer_norm(poly, variables) -> float:
    """:math:`\\|f\\|_F = (\\sum_\\alpha \\alpha!\\, f_\\alpha^2)^{1/2}` (``def-fischer``), as a float.

    Parameters
    ----------
    poly : sympy expression
        A polynomial in ``variables``.
    variables : sequence of sympy.Symbol
        Its variables.

    Returns
    -------
    float

    Examples
    --------
    >>> import sympy
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:3")
    >>> rep.fischer_norm(x[0] ** 2 + x[1] ** 2, x) ** 2  # 2! + 2!
    4.0
    """
    return math.sqrt(float(sym.fischer_inner(poly, poly, variables)))


def _log_bias_normaliser(k: int, beta: float) -> float:
    """:math:`\\log C`, :math:`C = \\beta^{k-1}2^{(k-3)/2}\\Gamma((k-1)/2)` the factor of :math:`1/p_k(s)` without its
    :math:`s`-dependence: :math:`p_k(s) = s^{k-2}e^{-s^2/(2\\beta^2)}/C` (:math:`k \\ge 2`)."""
    return (k - 1) * math.log(beta) + (k - 3) / 2 * math.log(2) + math.lgamma((k - 1) / 2)


def _bias_normaliser(k: int, beta: float) -> float:
    """:math:`C = e^{\\log C}` of :func:`_log_bias_normaliser`."""
    return math.exp(_log_bias_normaliser(k, beta))


def relu_square_integral(k: int, t: torch.Tensor, beta: float) -> torch.Tensor:
    """:math:`G_k(t) = \\int_0^{t_+} s^{2k-4}(t-s)^2/p_k(s)\\,ds = C\\,t_+^{k+1}\\int_0^1 y^{k-2}(1-y)^2 e^{t^2y^2/(2\\beta^2)}dy`
    for :math:`p_k = \\beta\\chi_{k-1}` (:math:`k \\ge 2`), by Gauss–Legendre in :math:`y`; for :math:`k = 1`, :math:`G_1(t) = t_+^2`.
    ``t`` a float64 tensor of finite values; a value that leaves float64 is a ValueError naming ``t``. Budget: four
    tables of ``len(t)`` × ``QUAD_NODES`` float64 numbers within :func:`nnproofs.budget.memory`.

    Parameters
    ----------
    k : int
        The degree, ``1 <= k <= MAX_DEGREE``.
    t : torch.Tensor
        One-dimensional float64 tensor of finite arguments.
    beta : float
        The scale of the bias law.

    Returns
    -------
    torch.Tensor
        :math:`G_k(t)`, float64, on ``t``'s device.
    """
    k = positive_int("k", k)
    beta = positive_real("beta", beta)
    if not isinstance(t, torch.Tensor) or t.dtype != torch.float64 or t.dim() != 1 or t.device.type not in ("cpu", "cuda"):
        raise TypeError(f"t must be a one-dimensional float64 tensor on the CPU or a GPU, got {type(t).__name__}"
                        f" {getattr(t, 'dtype', '')} {tuple(getattr(t, 'shape', ()))} {getattr(t, 'device', '')}")
    if k > MAX_DEGREE:
        raise ValueError(f"k must be <= {MAX_DEGREE}, got {k}")
    if not 1 / SCALE_RANGE[1] <= beta <= SCALE_RANGE[1]:
        raise ValueError(f"beta must lie in [{1 / SCALE_RANGE[1]:g}, {SCALE_RANGE[1]:g}], got {beta!r}")
    budget.refuse_beyond("t", f"{t.numel()} values", cost=t.numel() * QUAD_NODES * 8 * 4, limit=budget.memory(),
                         unit="bytes (four tables of len(t) × QUAD_NODES float64 numbers)")
    if not bool(torch.isfinite(t).all()):
        raise ValueError("t must be finite, got a tensor with NaN or infinite entries")
    tp = t.clamp(min=0)
    if k == 1:
        return tp**2
    nodes, weights = _LEGENDRE
    y = torch.as_tensor((nodes + 1) / 2, dtype=t.dtype, device=t.device)
    w = torch.as_tensor(weights / 2, dtype=t.dtype, device=t.device)
    integrand = y ** (k - 2) * (1 - y) ** 2 * torch.exp(tp[:, None] ** 2 * y**2 / (2 * beta**2))
    out = _bias_normaliser(k, beta) * tp ** (k + 1) * (integrand * w).sum(dim=1)
    if not bool(torch.isfinite(out).all()):
        raise ValueError(f"G_k(t) leaves float64 for k={k}, beta={beta!r} and the largest t = {float(tp.max()):.3g}"
                         " (it grows like e^(t²/(2β²))): a smaller t or a larger beta")
    return out


def _sparse_square(terms) -> dict[tuple[int, ...], sympy.Expr]:
    """The square of a polynomial given by its ``(exponents, coefficient)`` terms, as a sparse dictionary
    (a dense sympy ``Poly`` product is slow in high :math:`d`)."""
    terms = list(terms)
    square: dict[tuple[int, ...], sympy.Expr] = {}
    for ma, ca in terms:
        for mb, cb in terms:
            m = tuple(a + b for a, b in zip(ma, mb))
            square[m] = square.get(m, 0) + ca * cb
    return square


def _sphere_moments_of_square(q, variables) -> dict[int, sympy.Expr]:
    """``{j: A_j}``, :math:`A_j = E_{\\theta\\sim U(S^{d-1})}P_j(\\theta)` for the degree-:math:`j` part :math:`P_j` of :math:`q^2`, exactly.

    :math:`P_j = \\sum_{i+i'=j} q^{(i)}q^{(i')}` over the homogeneous parts of :math:`q`, and for homogeneous :math:`p, r`
    :math:`E_\\theta[pr] = E_{N(0,I)}[pr]/E|Z|^{i+i'}` with :math:`E_{N(0,I)}[pr] = \\langle e^{\\Delta/2}p, e^{\\Delta/2}r\\rangle_F`
    (``def-fischer``; :math:`e^{-\\Delta/2}x^\\alpha` are the Hermite polynomials) and :math:`E|Z|^{2m} = d(d+2)\\cdots(d+2m-2)`:
    linear in the number of terms, where the expanded square is quadratic (the explicit kernels are dense in high :math:`d`).
    """
    d = len(variables)
    smooth = {i: sym.heat_flow(part, variables, 1) for i, part in sym.homogeneous_parts(q, variables).items()}
    coefficients = {i: sym.as_poly(h, variables).as_dict() for i, h in smooth.items()}
    out: dict[int, sympy.Expr] = {}
    for i, p in coefficients.items():
        for i2, r in coefficients.items():
            if (i + i2) % 2:
                continue
            gaussian = sum((c * r[m] * sympy.Mul(*(sympy.factorial(a) for a in m)) for m, c in p.items() if m in r),
                           sympy.Integer(0))
            norm = sympy.Mul(*(sympy.Integer(d + 2 * l) for l in range((i + i2) // 2)))
            out[i + i2] = out.get(i + i2, sympy.Integer(0)) + gaussian / norm
    return out


def _coordinate_law(d: int, inputs: str, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights in :math:`\\tau \\in (0, 1]` for :math:`E[h(\\tau)1[\\tau > 0]]`, :math:`\\tau` one coordinate of :math:`D`
    (density :math:`(1-\\tau^2)^{a-1}/B(1/2, a)` on :math:`[-1, 1]`, :math:`a = (d-1)/2` on the sphere, :math:`(d+1)/2` on the
    ball): Gauss–Jacobi in :math:`\\tau = (1 + s)/2` with weight :math:`(1-s)^{a-1}`; on :math:`S^0 = \\{-1, 1\\}`,
    :math:`\\tau = 1` with probability 1/2. ``d`` at most ``MOMENT_MAX_DIMENSION``, checked before the quadrature."""
    if d > MOMENT_MAX_DIMENSION:
        raise ValueError(f"d must be <= {MOMENT_MAX_DIMENSION} for the Gauss–Jacobi quadrature of the second moments (its"
                         f" weights 2^(a-1)B(1/2, a), a = (d ∓ 1)/2, overflow float64 beyond), got {d}")
    a = (d - 1) / 2 if inputs == "sphere" else (d + 1) / 2
    if a == 0:
        return np.ones(1), np.full(1, 0.5)
    s, ws = special.roots_jacobi(nodes, a - 1, 0.0)
    tau = (1 + s) / 2
    return tau, ws * 2.0 ** (-(a - 1)) * (1 + tau) ** (a - 1) / 2 / special.beta(0.5, a)


def radial_second_moment(k: int, j: int, d: int, inputs: str = "sphere", *, sigma: float = 1.0,
                         beta: float | None = None, nodes: int = MOMENT_NODES) -> float:
    """:math:`I_{k,j} = E[R^j G_k(\\sigma R\\tau)]` with :math:`R \\sim \\chi_d` and :math:`\\tau` the law of one coordinate of
    :math:`D` (density :math:`\\propto (1-\\tau^2)^{a-1}`, :math:`a = (d-1)/2` on the sphere, :math:`(d+1)/2` on the ball), independent.

    For :math:`k \\ge 2`, :math:`G_k(t) = Ct_+^{k+1}\\int_0^1 y^{k-2}(1-y)^2e^{t^2y^2/(2\\beta^2)}dy` and
    :math:`E[R^me^{cR^2}] = E[R^m](1-2c)^{-(m+d)/2}`, :math:`E[R^m] = 2^{m/2}\\Gamma((m+d)/2)/\\Gamma(d/2)`, give
    :math:`I_{k,j} = C\\sigma^{k+1}E[R^m]\\,E_\\tau\\big[\\tau_+^{k+1}\\int_0^1 y^{k-2}(1-y)^2(1 - \\sigma^2\\tau^2y^2/\\beta^2)^{-(m+d)/2}dy\\big]`,
    :math:`m = j + k + 1`: Gauss–Jacobi in :math:`\\tau` (weight :math:`(1-\\tau)^{a-1}`) and Gauss–Legendre in :math:`y`,
    ``nodes`` each (a smooth integrand on :math:`[0,1]^2` since :math:`\\beta > \\sigma`). For :math:`k = 1`,
    :math:`I_{1,j} = \\sigma^2E[R^{j+2}]E[\\tau_+^2]` exactly, :math:`E\\tau^2 = 1/d` (sphere) or :math:`1/(d+2)` (ball).

    Parameters
    ----------
    k, j, d : int
        The degree, the power of :math:`R` and the dimension.
    inputs : {"sphere", "ball"}
        The input law :math:`D`.
    sigma, beta : float
        The scales of the weights and of the bias law (``beta`` default :math:`2\\sigma`).
    nodes : int
        Quadrature nodes per axis.

    Returns
    -------
    float
        :math:`I_{k,j}`; a ValueError where it leaves float64.
    """
    k, d = positive_int("k", k), positive_int("d", d)
    j = int_at_least("j", j, 0)
    inputs, nodes = input_law(inputs), positive_int("nodes", nodes)
    sigma, beta = _scales(sigma, beta)
    for name, value, top in (("k", k, MAX_DEGREE), ("j", j, 2 * MAX_DEGREE), ("nodes", nodes, MAX_NODES)):
        if value > top:
            raise ValueError(f"{name} must be <= {top}, got {value}")
    return _radial_second_moment(k, j, d, inputs, sigma, beta, nodes)


@functools.lru_cache(maxsize=4096)
def _radial_second_moment(k: int, j: int, d: int, inputs: str, sigma: float, beta: float, nodes: int) -> float:
    """:func:`radial_second_moment` on validated arguments, cached."""

    def radial(m):  # E[R^m], R ~ chi_d
        return math.exp(m / 2 * math.log(2) + math.lgamma((m + d) / 2) - math.lgamma(d / 2))

    if k == 1:
        return sigma**2 * radial(j + 2) * (1 / d if inputs == "sphere" else 1 / (d + 2)) / 2
    m = j + k + 1
    y, wy = np.polynomial.legendre.leggauss(nodes)
    y, wy = (y + 1) / 2, wy / 2
    tau, wt = _coordinate_law(d, inputs, nodes)
    ratio = (sigma / beta) ** 2 * tau[:, None] ** 2 * y[None, :] ** 2
    inner = (y ** (k - 2) * (1 - y) ** 2 * wy)[None, :] * (1 - ratio) ** (-(m + d) / 2)
    try:
        value = float(_bias_normaliser(k, beta) * sigma ** (k + 1) * radial(m) * (wt * tau ** (k + 1) * inner.sum(axis=1)).sum())
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(f"radial_second_moment is not finite in float64 for k={k}, j={j}, d={d} ({inputs})")
    return value


def sphere_weight_moment(k: int, d: int, inputs: str = "sphere", *, beta: float = BETA_OVER_SIGMA,
                         nodes: int = MOMENT_NODES) -> float:
    """:math:`E[G_k(\\tau)]` with :math:`\\tau = \\langle x, \\theta\\rangle`, :math:`x \\sim D`, :math:`\\theta` uniform on
    :math:`S^{d-1}`: the law of one coordinate of :math:`D` (density :math:`\\propto (1-\\tau^2)^{a-1}`, as in
    :func:`radial_second_moment`), by Gauss–Jacobi in :math:`\\tau` and :func:`relu_square_integral` (:math:`t \\le 1`).
    :math:`k = 1`: :math:`E\\tau_+^2 = 1/(2d)` (sphere) or :math:`1/(2(d+2))` (ball).

    Parameters
    ----------
    k, d : int
        The degree and the dimension.
    inputs : {"sphere", "ball"}
        The input law :math:`D`.
    beta : float
        The scale of the bias law (the weights have :math:`|W| = 1`).
    nodes : int
        Quadrature nodes.

    Returns
    -------
    float
    """
    k, d = positive_int("k", k), positive_int("d", d)
    inputs, nodes = input_law(inputs), positive_int("nodes", nodes)
    beta = positive_real("beta", beta)
    for name, value, top in (("k", k, MAX_DEGREE), ("nodes", nodes, MAX_NODES)):
        if value > top:
            raise ValueError(f"{name} must be <= {top}, got {value}")
    if not 1 / SCALE_RANGE[1] <= beta <= SCALE_RANGE[1]:
        raise ValueError(f"beta must lie in [{1 / SCALE_RANGE[1]:g}, {SCALE_RANGE[1]:g}], got {beta!r}")
    return _sphere_weight_moment(k, d, inputs, beta, nodes)


@functools.lru_cache(maxsize=4096)
def _sphere_weight_moment(k: int, d: int, inputs: str, beta: float, nodes: int) -> float:
    """:func:`sphere_weight_moment` on validated arguments, cached."""
    if k == 1:
        return 1 / (2 * d) if inputs == "sphere" else 1 / (2 * (d + 2))
    tau, wt = _coordinate_law(d, inputs, nodes)
    try:
        g = relu_square_integral(k, torch.as_tensor(tau, dtype=torch.float64), beta).numpy()
    except ValueError as error:
        raise ValueError(f"sphere_weight_moment is not finite in float64 for k={k}, beta={beta!r}: {error}") from None
    return float((wt * g).sum())


def _scales(sigma, beta) -> tuple[float, float]:
    """``(sigma, beta)`` validated: :math:`10^{-4} \\le \\sigma \\le 10^4` (``SCALE_RANGE``; the moments carry
    :math:`\\sigma^{\\pm 4k}`), :math:`\\sigma < \\beta \\le 10^4\\sigma` (default :math:`\\beta = 2\\sigma`), else ``ValueError``."""
    sigma = positive_real("sigma", sigma)
    if not SCALE_RANGE[0] <= sigma <= SCALE_RANGE[1]:
        raise ValueError(f"sigma must lie in [{SCALE_RANGE[0]:g}, {SCALE_RANGE[1]:g}] (the second moments carry σ^(±4k);"
                         f" the representation of f(x/c) is that of f at σ/c), got {sigma!r}")
    beta = BETA_OVER_SIGMA * sigma if beta is None else finite_real("beta", beta)
    if not sigma < beta <= SCALE_RANGE[1] * sigma:
        raise ValueError(f"beta must be > sigma = {sigma!r} (else M_k = ∞ on the sphere) and at most {SCALE_RANGE[1]:g}"
                         f" sigma, got {beta!r}")
    return sigma, beta


def _log_gaussian_g_moments(k: int, sigma: float, beta: float) -> tuple[float, float]:
    """:math:`(\\log E\\,G_k(\\sigma\\xi), \\log E\\,G_k(\\sigma\\xi)^2)`, :math:`\\xi \\sim N(0, 1)`, without sampling and in logs
    (the factors :math:`\\Gamma(k + 3/2)` and :math:`a^{-(k+3/2)}` overflow float64 near :math:`k = 170`).

    With :math:`G_k(t) = Ct_+^{k+1}\\int_0^1 w(y)e^{t^2y^2/(2\\beta^2)}dy`, :math:`w(y) = y^{k-2}(1-y)^2`, the
    :math:`t`-integrals are Gaussian: :math:`\\int_0^\\infty t^m e^{-at^2}dt = \\Gamma((m+1)/2)/(2a^{(m+1)/2})`, so
    :math:`E\\,G_k = \\frac{C}{\\sigma\\sqrt{2\\pi}}\\int_0^1 w(y)\\frac{\\Gamma(k/2+1)}{2a_1^{k/2+1}}dy`,
    :math:`a_1 = \\frac1{2\\sigma^2} - \\frac{y^2}{2\\beta^2}`, and :math:`E\\,G_k^2 = \\frac{C^2}{\\sigma\\sqrt{2\\pi}}\\iint w(y)w(y')
    \\frac{\\Gamma(k+3/2)}{2a_2^{k+3/2}}dy\\,dy'`, :math:`a_2 = \\frac1{2\\sigma^2} - \\frac{y^2 + y'^2}{2\\beta^2}`; Gauss–Jacobi
    with the weight :math:`w` (``CONSTANT_NODES`` per axis), summed by ``logsumexp``. :math:`E\\,G_k^2 = \\infty` when
    :math:`\\beta^2 < 2\\sigma^2` (:math:`a_2 < 0` near :math:`y = y' = 1`), and at :math:`\\beta^2 = 2\\sigma^2` (to 1e-12) for
    :math:`k \\ge 5` (:math:`G_k(t)^2\\varphi(t) \\sim t^{2k-10}`); its log is then ``math.inf``. :math:`k = 1`:
    :math:`G_1(t) = t_+^2`, :math:`(\\sigma^2/2, 3\\sigma^4/2)`."""
    if k == 1:
        return math.log(sigma**2 / 2), math.log(3 * sigma**4 / 2)
    if k > CONSTANT_MAX_DEGREE:
        raise ValueError(f"k must be <= {CONSTANT_MAX_DEGREE} (the Gauss–Jacobi weights of exponent k − 2 overflow float64;"
                         f" C_k is below float64's range long before), got {k}")
    nodes, weights = special.roots_jacobi(CONSTANT_NODES, 2.0, float(k - 2))
    y, log_wy = (1 + nodes) / 2, np.log(weights) - (k + 1) * math.log(2)
    log_front = _log_bias_normaliser(k, beta) - math.log(sigma * math.sqrt(2 * math.pi))
    a1 = 1 / (2 * sigma**2) - y**2 / (2 * beta**2)
    log_mean = log_front + float(special.logsumexp(log_wy + math.lgamma(k / 2 + 1) - math.log(2) - (k / 2 + 1) * np.log(a1)))
    boundary = math.isclose(beta**2, 2 * sigma**2, rel_tol=1e-12)
    if (beta**2 < 2 * sigma**2 and not boundary) or (boundary and k >= 5):
        return log_mean, math.inf
    a2 = 1 / (2 * sigma**2) - (y[:, None] ** 2 + y[None, :] ** 2) / (2 * beta**2)
    terms = log_wy[:, None] + log_wy[None, :] + math.lgamma(k + 1.5) - math.log(2) - (k + 1.5) * np.log(a2)
    return log_mean, _log_bias_normaliser(k, beta) + log_front + float(special.logsumexp(terms))


def _exp_or_named(log_value: float, what: str, k: int) -> float:
    """:math:`e^{\\text{log\\_value}}`; ``math.inf`` for an infinite log; a ValueError naming ``k`` where the value is
    outside the normal float64 range (it would overflow, or underflow to a subnormal or to 0)."""
    if log_value == math.inf:
        return math.inf
    info = np.finfo(np.float64)
    if not math.log(info.tiny) <= log_value <= math.log(info.max):
        raise ValueError(f"{what} for k={k} is e^({log_value:.6g}), outside the float64 range: k too large for a float")
    return math.exp(log_value)


def dimension_free_constant(k: int, *, sigma: float = 1.0, beta: float | None = None) -> float:
    """Our ceiling :math:`C_k` with :math:`\\sqrt{M_k} \\le C_k\\|f_k\\|_F` for every input law in the closed unit ball, any :math:`d`.

    Cauchy–Schwarz in :math:`W`, Gaussian hypercontractivity :math:`E q^4 \\le 9^k (E q^2)^2` with
    :math:`E q_k(W)^2 = \\sigma^{2k}\\|f_k\\|_F^2`, and monotonicity of :math:`G_k` in :math:`t = \\langle x, W\\rangle \\sim N(0, |x|^2\\sigma^2)`:
    :math:`C_k^2 = 4\\cdot 3^k\\sigma^{2k}\\sqrt{E G_k(\\sigma\\xi)^2}/((k-2)!^2\\sigma^{4k})`; for :math:`k=1` the exact Gaussian
    :math:`E f_1(W)^4 = 3(Ef_1(W)^2)^2` gives :math:`C_1^2 = 4\\sqrt3\\,\\sigma^2\\sqrt{E G_1(\\sigma\\xi)^2}/\\sigma^4`. :math:`\\xi \\sim N(0,1)`,
    :math:`E G_k^2` by :func:`_log_gaussian_g_moments`. For :math:`k \\ge 2` and :math:`\\sigma < \\beta < \\sqrt2\\sigma` the bound
    diverges (:math:`E G_k(\\sigma\\xi)^2 = \\infty`) and the function returns ``math.inf``: no finite ceiling of this form
    (:math:`M_k` itself stays finite for every :math:`\\beta > \\sigma`). :math:`C_k` depends on :math:`\\beta/\\sigma` only, and is
    computed at :math:`\\sigma = 1` (no overflow or division by zero at extreme :math:`\\sigma`).

    Parameters
    ----------
    k : int
        The degree.
    sigma, beta : float
        The scales of the weights and of the bias law (``beta`` default :math:`2\\sigma`).

    Returns
    -------
    float
        :math:`C_k`, or ``math.inf`` where the bound diverges.

    Examples
    --------
    >>> from nnproofs import representation as rep
    >>> round(rep.dimension_free_constant(2), 2)
    9.55
    """
    k = positive_int("k", k)
    sigma, beta = _scales(sigma, beta)
    return _dimension_free_constant(k, beta / sigma)


@functools.lru_cache(maxsize=256)
def _dimension_free_constant(k: int, ratio: float) -> float:
    """:func:`dimension_free_constant` at :math:`\\sigma = 1`, :math:`\\beta =` ``ratio``, cached."""
    log_g2 = _log_gaussian_g_moments(k, 1.0, ratio)[1]
    if k == 1:
        return math.sqrt(4 * math.sqrt(3.0) * math.exp(log_g2 / 2))
    return _exp_or_named((math.log(4) + k * math.log(3) + log_g2 / 2) / 2 - math.lgamma(k - 1), "C_k", k)


def dimension_free_limit(k: int, *, sigma: float = 1.0, beta: float | None = None) -> float:
    """:math:`C_k^\\infty = \\lim_{d\\to\\infty}\\sqrt{M_k}/\\|f_k\\|_F` for :math:`D = U(S^{d-1})`, where :math:`q_k(W)` and
    :math:`\\langle x, W\\rangle` decouple: :math:`C_k^\\infty = 2\\sigma^k\\sqrt{E G_k(\\sigma\\xi)}/((k-2)!\\sigma^{2k})` (:math:`k=1`: :math:`\\sqrt2`);
    finite for every :math:`\\beta > \\sigma`.

    Parameters
    ----------
    k : int
        The degree.
    sigma, beta : float
        The scales of the weights and of the bias law (``beta`` default :math:`2\\sigma`).

    Returns
    -------
    float

    Examples
    --------
    >>> from nnproofs import representation as rep
    >>> round(rep.dimension_free_limit(1), 6)  # sqrt(2)
    1.414214
    """
    k = positive_int("k", k)
    sigma, beta = _scales(sigma, beta)
    return _dimension_free_limit(k, beta / sigma)


@functools.lru_cache(maxsize=256)
def _dimension_free_limit(k: int, ratio: float) -> float:
    """:func:`dimension_free_limit` at :math:`\\sigma = 1`, :math:`\\beta =` ``ratio``, cached (like :math:`C_k`, a
    function of :math:`\\beta/\\sigma` only)."""
    log_g = _log_gaussian_g_moments(k, 1.0, ratio)[0]
    return _exp_or_named(math.log(2) + log_g / 2 - math.lgamma(max(k - 1, 1)), "C_k^∞", k)
