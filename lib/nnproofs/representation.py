"""Chapter 3: the sharpened ReLU integral representation of polynomials, sampled and checked.

For :math:`f = f_0 + \\sum_{k=1}^K f_k` (:math:`f_k` homogeneous of degree :math:`k`) and :math:`\\sigma > 0`
the *sharpened representation* (``thm-sharpened`` in ``book/03_sharpened_representation``, our explicit
form) holds for every :math:`x \\in \\mathbb R^d`:

.. math::
   f(x) = f_0 + E\\big[u_1(W)\\rho(\\langle W, x\\rangle)\\big] + \\sum_{k \\ge 2} E\\big[u_k(W, S_k)\\,\\rho(\\langle W, x\\rangle - S_k)\\big],

with :math:`W \\sim N(0, \\sigma^2 I_d)`, :math:`S_k \\sim p_k = \\beta\\chi_{k-1}` independent of :math:`W`,
:math:`q_k = e^{-\\sigma^2\\Delta/2} f_k` (backward heat flow), :math:`u_1(w) = 2 f_1(w)/\\sigma^2` and
:math:`u_k(w, s) = 2 q_k(w) s^{k-2} / ((k-2)!\\,\\sigma^{2k} p_k(s))`. Every bias :math:`-S_k` is :math:`\\le 0`.

The width-:math:`n` network (``thm-monte-carlo``) draws a degree :math:`k` with probability :math:`\\pi_k`,
then :math:`(W, S_k)`, and averages :math:`u_k/\\pi_k \\cdot \\rho(\\langle W, x\\rangle - S_k)`. Its exact
mean-square error in :math:`L^2(D)` is

.. math:: E\\|f_n - f\\|^2_{L^2(D)} = \\Big(\\sum_k M_k/\\pi_k - \\|f - f_0\\|^2_{L^2(D)}\\Big)/n,
          \\qquad M_k = E_{x\\sim D}E[u_k^2\\rho(\\langle W, x\\rangle - S_k)^2],

which for :math:`\\pi_k \\propto \\sqrt{M_k}` is :math:`((\\sum_k\\sqrt{M_k})^2 - \\|f-f_0\\|^2)/n`.
:math:`M_k = 4 E[q_k(W)^2 G_k(\\langle x, W\\rangle)]/((k-2)!^2\\sigma^{4k})`,
:math:`G_k(t) = \\int_0^{t_+} s^{2k-4}(t-s)^2/p_k(s)\\,ds`, is computed deterministically: exact sphere moments of
:math:`q_k^2` (sympy) and a two-dimensional quadrature (:func:`radial_second_moment`).

The *explicit* representation (``thm-explicit``, :func:`explicit_representation`) uses the same neurons with the
homogeneous kernel :math:`k!\\sigma^{2k}T_\\mu^{-1}f_k` (Gaussian :math:`\\mu`) in place of :math:`q_k`. The checks:
:func:`check_monte_carlo_rate` (the rate and the exact prediction), :func:`check_unbiasedness` (a per-point z-test of
the mean, which sees a construction off by 10%), :func:`check_dimension_stability` and :func:`compare_constants`.

The symbolic algebra (Fischer norm, heat flow, harmonic decomposition, :math:`T_\\mu`) lives in
:mod:`nnproofs.representation_symbolic`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy
import torch
from scipy import integrate, special
from torch import nn

from . import device as book_device
from . import representation_symbolic as sym
from .ledger import claim
from .measure import input_law, sample_inputs
from .networks import relu_network
from .rates import RateCheck, rate_check
from .validate import finite_real, positive_int

CHAPTER = "book/03_sharpened_representation"
SLOPE_SE_MULTIPLE = 4.0  # RMS slope −1/2 ± 4 standard errors, the standard error propagated from the replicates'
#   spread of the MSE at each n (a 4-point fit's residual standard error has 2 degrees of freedom; the replicates
#   have R − 1 per width): a false rejection of ~1e-4 per run under a normal approximation
RATIO_MAX = 2.0  # median over the replicates of MSE·n / prediction, at every n. Markov: P(MSE >= 2 E MSE) <= 1/2, so
#   the median of a correct construction's MSE is at most twice the prediction; with heavy tails it is well below.
#   A two-sided band on the *mean* ([0.5, 2]) falsely rejected heavy-tailed in-class targets (degree 5 in d = 3: mean
#   ratios 0.13..12 over seeds 50-55 at 20 replicates): the mean of 20 draws is usually low (the large draws that make
#   up the expectation are rare) and sometimes far too high (one of them drawn). The median sees a bias, which raises
#   every draw, and ignores the rare large draws.
RATIO_MIN_N = 1000  # smallest width: below it the heavy tails of u ∝ exp(S²/(2β²)) make replicate statistics erratic
RATE_MIN_REPLICATES = 5  # replicates per width: the slope's standard error is propagated from R − 1 degrees of freedom
BETA_OVER_SIGMA = 2.0  # bias scale β = 2σ: M_k < ∞ needs β > σ on the sphere; 2σ leaves the MSE estimator finite variance
QUAD_NODES = 48  # Gauss–Legendre nodes for G_k on [0, t]; the integrand is smooth, 48 nodes reach round-off for t <= 10
MOMENT_NODES = 64  # Gauss–Jacobi × Gauss–Legendre nodes of radial_second_moment: 64 and 128 agree to 1e-12 (tests)
MOMENT_RTOL = 1e-9  # relative accuracy of the deterministic M_k (quadrature round-off is below 1e-12)
_LEGENDRE = np.polynomial.legendre.leggauss(QUAD_NODES)
Z_SQUARE_MAX = 4.0  # check_unbiasedness: mean z² over the points; see the constant's measured spread in the tests
UNBIASED_MIN_REPLICATES = 20  # below this the replicate standard deviations s_j are too noisy for a z-test
UNBIASED_MIN_WIDTH = RATIO_MIN_N  # below it a network's error at a point is too far from normal for the z-test
POOLED_RATIO_MAX = Z_SQUARE_MAX  # MSE of the pooled network (width R·n) / its exact prediction: for an unbiased
#   construction it tracks the mean z² (0.69..1.74 against 0.66..1.59, seeds 100-108), so it gets the same threshold
DETECTION_LIMIT = 0.1  # check_unbiasedness at the chapter's sizes: |c − 1| = 0.1 rejected on seeds 0-9 and 100-108; 0.05
#   passes on 4 of the 9 seeds 100-108 (mean z² 2.4..6.9), 0.03 on 4 of 9 (1.1..3.9)
EIGEN_RTOL = 1e-10  # Funk–Hecke quadrature (QUADPACK with algebraic weight) against the exact Gamma ratio


def fischer_norm(poly, variables) -> float:
    """:math:`\\|f\\|_F = (\\sum_\\alpha \\alpha!\\, f_\\alpha^2)^{1/2}` (``def-fischer``), as a float."""
    return math.sqrt(float(sym.fischer_inner(poly, poly, variables)))


class _TorchPolynomial:
    """A sympy polynomial evaluated on a ``(N, d)`` tensor, term by term (cheap for sparse polynomials in high d)."""

    def __init__(self, poly: sympy.Poly):
        self.terms = [(float(c), [(i, a) for i, a in enumerate(m) if a]) for m, c in poly.terms()]

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
        for coeff, factors in self.terms:
            term = torch.full_like(out, coeff)
            for i, a in factors:
                term = term * x[:, i] ** a
            out = out + term
        return out


def _bias_normaliser(k: int, beta: float) -> float:
    """:math:`1/p_k(s)` without its :math:`s`-dependence: :math:`p_k(s) = s^{k-2}e^{-s^2/(2\\beta^2)}/C`, :math:`C = \\beta^{k-1}2^{(k-3)/2}\\Gamma((k-1)/2)`."""
    return beta ** (k - 1) * 2.0 ** ((k - 3) / 2) * math.gamma((k - 1) / 2)


def relu_square_integral(k: int, t: torch.Tensor, beta: float) -> torch.Tensor:
    """:math:`G_k(t) = \\int_0^{t_+} s^{2k-4}(t-s)^2/p_k(s)\\,ds = C\\,t_+^{k+1}\\int_0^1 y^{k-2}(1-y)^2 e^{t^2y^2/(2\\beta^2)}dy`
    for :math:`p_k = \\beta\\chi_{k-1}` (:math:`k \\ge 2`), by Gauss–Legendre in :math:`y`; for :math:`k = 1`, :math:`G_1(t) = t_+^2`."""
    tp = t.clamp(min=0)
    if k == 1:
        return tp**2
    nodes, weights = _LEGENDRE
    y = torch.as_tensor((nodes + 1) / 2, dtype=t.dtype, device=t.device)
    w = torch.as_tensor(weights / 2, dtype=t.dtype, device=t.device)
    integrand = y ** (k - 2) * (1 - y) ** 2 * torch.exp(tp[:, None] ** 2 * y**2 / (2 * beta**2))
    return _bias_normaliser(k, beta) * tp ** (k + 1) * (integrand * w).sum(dim=1)


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


@functools.lru_cache(maxsize=4096)
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
    """
    k, d = positive_int("k", k), positive_int("d", d)
    if isinstance(j, bool) or not isinstance(j, int) or j < 0:
        raise ValueError(f"j must be an int >= 0, got {j!r}")
    inputs, nodes = input_law(inputs), positive_int("nodes", nodes)
    sigma, beta = _scales(sigma, beta)
    a = (d - 1) / 2 if inputs == "sphere" else (d + 1) / 2

    def radial(m):  # E[R^m], R ~ chi_d
        return math.exp(m / 2 * math.log(2) + math.lgamma((m + d) / 2) - math.lgamma(d / 2))

    if k == 1:
        return sigma**2 * radial(j + 2) * (1 / d if inputs == "sphere" else 1 / (d + 2)) / 2
    m = j + k + 1
    y, wy = np.polynomial.legendre.leggauss(nodes)
    y, wy = (y + 1) / 2, wy / 2
    if a == 0:  # S^0 = {-1, 1}: tau = 1 with probability 1/2
        tau, wt = np.ones(1), np.full(1, 0.5)
    else:  # tau = (1 + s)/2 on (0, 1]; the density (1 - tau^2)^(a-1)/B(1/2, a) on [-1, 1]
        s, ws = special.roots_jacobi(nodes, a - 1, 0.0)
        tau = (1 + s) / 2
        wt = ws * 2.0 ** (-(a - 1)) * (1 + tau) ** (a - 1) / 2 / special.beta(0.5, a)
    ratio = (sigma / beta) ** 2 * tau[:, None] ** 2 * y[None, :] ** 2
    inner = (y ** (k - 2) * (1 - y) ** 2 * wy)[None, :] * (1 - ratio) ** (-(m + d) / 2)
    return float(_bias_normaliser(k, beta) * sigma ** (k + 1) * radial(m) * (wt * tau ** (k + 1) * inner.sum(axis=1)).sum())


@functools.lru_cache(maxsize=4096)
def sphere_weight_moment(k: int, d: int, inputs: str = "sphere", *, beta: float = BETA_OVER_SIGMA,
                         nodes: int = MOMENT_NODES) -> float:
    """:math:`E[G_k(\\tau)]` with :math:`\\tau = \\langle x, \\theta\\rangle`, :math:`x \\sim D`, :math:`\\theta` uniform on
    :math:`S^{d-1}`: the law of one coordinate of :math:`D` (density :math:`\\propto (1-\\tau^2)^{a-1}`, as in
    :func:`radial_second_moment`), by Gauss–Jacobi in :math:`\\tau` and :func:`relu_square_integral` (:math:`t \\le 1`).
    :math:`k = 1`: :math:`E\\tau_+^2 = 1/(2d)` (sphere) or :math:`1/(2(d+2))` (ball)."""
    k, d = positive_int("k", k), positive_int("d", d)
    inputs, nodes = input_law(inputs), positive_int("nodes", nodes)
    beta = finite_real("beta", beta)
    if beta <= 0:
        raise ValueError(f"beta must be > 0, got {beta!r}")
    if k == 1:
        return 1 / (2 * d) if inputs == "sphere" else 1 / (2 * (d + 2))
    a = (d - 1) / 2 if inputs == "sphere" else (d + 1) / 2
    if a == 0:
        tau, wt = np.ones(1), np.full(1, 0.5)
    else:
        s, ws = special.roots_jacobi(nodes, a - 1, 0.0)
        tau = (1 + s) / 2
        wt = ws * 2.0 ** (-(a - 1)) * (1 + tau) ** (a - 1) / 2 / special.beta(0.5, a)
    g = relu_square_integral(k, torch.as_tensor(tau, dtype=torch.float64), beta).numpy()
    return float((wt * g).sum())


def _scales(sigma, beta) -> tuple[float, float]:
    """``(sigma, beta)`` validated: :math:`\\sigma > 0`, :math:`\\beta > \\sigma` (default :math:`\\beta = 2\\sigma`), else ``ValueError``."""
    sigma = finite_real("sigma", sigma)
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    beta = BETA_OVER_SIGMA * sigma if beta is None else finite_real("beta", beta)
    if beta <= sigma:
        raise ValueError(f"beta must be > sigma = {sigma!r} (else M_k = ∞ on the sphere), got {beta!r}")
    return sigma, beta


@dataclass
class SharpenedRepresentation:
    """The sharpened representation of a polynomial (``thm-sharpened``) and its width-``n`` Monte Carlo networks.

    ``kernels[k]`` is :math:`q_k = e^{-\\sigma^2\\Delta/2} f_k` for :math:`k \\ge 2` and :math:`f_1` for :math:`k = 1`
    (other kernels of :data:`KERNELS`: the explicit representation and the controls). ``bias_sign = -1`` gives neurons
    :math:`\\rho(\\langle W, x\\rangle - S)`; ``+1`` (the wrong-sign control) and ``output_scale != 1`` (the near-miss
    control, mean :math:`f_0 + c(f - f_0)`) change only :meth:`sample`: :math:`M_k`, :math:`\\pi_k` and the prediction stay
    those of the correct construction (with bias :math:`+S` and :math:`u \\propto e^{S^2/(2\\beta^2)}` the second moment
    is infinite). The mixture weights ``weights[k]`` :math:`= \\pi_k \\propto \\sqrt{M_k}` are computed for the input law ``inputs``.
    ``weight_law = "sphere"`` (:func:`explicit_sphere_representation`, :math:`\\sigma = 1`) draws :math:`W` uniform on
    :math:`S^{d-1}` instead of :math:`N(0, \\sigma^2I)`, with the same output weights and bias law.
    """

    variables: tuple[sympy.Symbol, ...]
    sigma: float
    beta: float
    constant: float
    parts: dict[int, sympy.Expr]
    kernels: dict[int, sympy.Expr]
    inputs: str = "sphere"
    bias_sign: float = -1.0
    output_scale: float = 1.0
    device: torch.device = field(default_factory=book_device.device)
    weight_law: str = "gaussian"
    weights: dict[int, float] = field(init=False)
    _m_cache: dict[str, object] = field(init=False, default_factory=dict)

    def __post_init__(self):
        self._kernel_eval = {k: _TorchPolynomial(sympy.Poly(q, *self.variables)) for k, q in self.kernels.items()}
        m = self.second_moments(self.inputs)
        total = sum(math.sqrt(v) for v in m.values())
        self.weights = {k: math.sqrt(v) / total for k, v in m.items()} if total > 0 else {}

    @property
    def dimension(self) -> int:
        """The input dimension :math:`d` (the number of variables)."""
        return len(self.variables)

    def _weights_from(self, z: torch.Tensor) -> torch.Tensor:
        """First-layer weights from standard normal rows: :math:`\\sigma z` (Gaussian) or :math:`z/|z|` (sphere)."""
        return z / z.norm(dim=1, keepdim=True) if self.weight_law == "sphere" else self.sigma * z

    def output_weight(self, k: int, w: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        """:math:`u_1(w) = 2f_1(w)/\\sigma^2`; :math:`u_k(w,s) = 2q_k(w)s^{k-2}/((k-2)!\\sigma^{2k}p_k(s)) = 2q_k(w)Ce^{s^2/(2\\beta^2)}/((k-2)!\\sigma^{2k})`."""
        q = self._kernel_eval[k](w)
        if k == 1:
            return 2 * q / self.sigma**2
        scale = 2 * _bias_normaliser(k, self.beta) / (math.factorial(k - 2) * self.sigma ** (2 * k))
        return scale * q * torch.exp(s**2 / (2 * self.beta**2))

    def sample(self, n: int, *, generator: torch.Generator | None = None) -> nn.Sequential:
        """A width-``n`` ReLU network :math:`f_n(x) = f_0 + \\frac1n\\sum_i u_{k_i}(W_i,S_i)/\\pi_{k_i}\\,\\rho(\\langle W_i,x\\rangle - S_i)`,
        as ``Sequential(Linear(d, n), ReLU, Linear(n, 1))`` in float64 on the generator's device."""
        n = positive_int("n", n)
        if generator is not None and not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
        dev = generator.device if generator is not None else self.device
        d = self.dimension
        W = torch.zeros(n, d, dtype=torch.float64, device=dev)
        S = torch.zeros(n, dtype=torch.float64, device=dev)
        U = torch.zeros(n, dtype=torch.float64, device=dev)
        if self.weights:
            degrees = sorted(self.weights)
            probs = torch.tensor([self.weights[k] for k in degrees], dtype=torch.float64, device=dev)
            which = torch.multinomial(probs, n, replacement=True, generator=generator)
            W = self._weights_from(torch.randn(n, d, dtype=torch.float64, device=dev, generator=generator))
            chi = torch.randn(n, max(degrees) - 1 if max(degrees) > 1 else 1, dtype=torch.float64, device=dev,
                              generator=generator)
            for index, k in enumerate(degrees):
                mask = which == index
                if k >= 2:
                    S[mask] = self.beta * chi[mask, : k - 1].norm(dim=1)
                U[mask] = self.output_weight(k, W[mask], S[mask]) / self.weights[k]
        return relu_network([(W, self.bias_sign * S), (self.output_scale * U[None, :] / n, torch.tensor([self.constant], dtype=torch.float64, device=dev))])

    def second_moments(self, inputs: str = "sphere") -> dict[int, float]:
        """:math:`M_k = E_{x\\sim D}E_{W,S}[u_k^2\\rho(\\langle W,x\\rangle - S)^2] = 4E[q_k(W)^2G_k(\\langle x,W\\rangle)]/((k-2)!^2\\sigma^{4k})`
        (:math:`k=1`: :math:`4E[f_1(W)^2\\langle x,W\\rangle_+^2]/\\sigma^4`), deterministic (``eq-second-moment``).

        Write :math:`W = \\sigma R\\theta` with :math:`R\\sim\\chi_d`, :math:`\\theta` uniform on :math:`S^{d-1}` and
        :math:`\\tau = \\langle x, \\theta\\rangle`, independent of :math:`(R, \\theta)` for :math:`D` rotation invariant. Then
        :math:`E[q_k(W)^2G_k(\\langle x,W\\rangle)] = \\sum_j \\sigma^j A_j\\,E[R^jG_k(\\sigma R\\tau)]` with
        :math:`A_j = E_\\theta P_j(\\theta)` the exact sphere moment of the degree-:math:`j` part of :math:`q_k^2`
        (:func:`_sphere_moments_of_square`, exact rationals),
        and the :math:`R`-expectation of :math:`G_k` is closed form (:func:`radial_second_moment`), leaving a
        two-dimensional integral on :math:`[0, 1]^2`. Cached per ``inputs``."""
        inputs = input_law(inputs)
        key = f"moments/{inputs}"
        if key not in self._m_cache:
            moments = {}
            for k, kernel in sorted(self.kernels.items()):
                by_degree = _sphere_moments_of_square(kernel, self.variables)
                if self.weight_law == "sphere":  # |W| = 1: E[q_k(W)²G_k(⟨x, W⟩)] = E_θ[q_k²]·E[G_k(τ)]
                    total = sum(float(a) for a in by_degree.values()) * sphere_weight_moment(
                        k, self.dimension, inputs, beta=self.beta)
                else:
                    total = sum(float(a) * self.sigma**j * radial_second_moment(
                        k, j, self.dimension, inputs, sigma=self.sigma, beta=self.beta) for j, a in by_degree.items() if a != 0)
                scale = 4 / (math.factorial(max(k - 2, 0)) ** 2 * self.sigma ** (4 * k)) if k >= 2 else 4 / self.sigma**4
                moments[k] = scale * total
            self._m_cache[key] = moments
        return dict(self._m_cache[key])

    def monte_carlo_second_moments(self, inputs: str = "sphere", *, samples: int, seed: int = 0,
                                   chunk: int = 200_000) -> tuple[dict[int, float], dict[int, float]]:
        """Monte Carlo estimates of :meth:`second_moments` over ``samples`` pairs :math:`(x, W)` (the :math:`S`-integral by
        Gauss–Legendre quadrature) and their standard errors; an independent check of the deterministic values.
        The integrand is heavy-tailed (:math:`G_k` grows like :math:`e^{t^2/(2\\beta^2)}`), so the estimates need many samples."""
        input_law(inputs)
        samples, chunk = positive_int("samples", samples), positive_int("chunk", chunk)
        g = torch.Generator(device=self.device).manual_seed(seed)
        sums = {k: [0.0, 0.0] for k in self.kernels}
        done = 0
        while done < samples:
            size = min(chunk, samples - done)
            x = sample_inputs(size, self.dimension, inputs, generator=g)
            w = self._weights_from(torch.randn(size, self.dimension, dtype=torch.float64, device=self.device, generator=g))
            t = (x * w).sum(dim=1)
            for k in self.kernels:
                scale = 4 / (math.factorial(max(k - 2, 0)) ** 2 * self.sigma ** (4 * k)) if k >= 2 else 4 / self.sigma**4
                values = scale * self._kernel_eval[k](w) ** 2 * relu_square_integral(k, t, self.beta)
                sums[k][0] += float(values.sum())
                sums[k][1] += float((values**2).sum())
            done += size
        means = {k: s / samples for k, (s, _) in sums.items()}
        errors = {k: math.sqrt(max(s2 / samples - means[k] ** 2, 0.0) / (samples - 1)) for k, (_, s2) in sums.items()}
        return means, errors

    def target_variance(self, inputs: str = "sphere") -> float:
        """:math:`\\|f - f_0\\|^2_{L^2(D)}`, exact by sphere/ball moments (:mod:`nnproofs.representation_symbolic`). Cached per ``inputs``."""
        key = f"variance/{input_law(inputs)}"
        if key not in self._m_cache:
            square = _sparse_square(sympy.Poly(sum(self.parts.values(), sympy.Integer(0)), *self.variables).terms())
            self._m_cache[key] = float(sum(c * sym.moment(m, inputs) for m, c in square.items()))
        return self._m_cache[key]

    def predicted_mse(self, n: int, inputs: str = "sphere") -> float:
        """Exact :math:`E\\|f_n - f\\|^2_{L^2(D)} = (\\sum_k M_k/\\pi_k - \\|f - f_0\\|^2_{L^2(D)})/n` (``thm-monte-carlo``),
        with :math:`M_k` estimated under ``inputs`` and the representation's mixture weights :math:`\\pi_k`."""
        n = positive_int("n", n)
        m = self.second_moments(input_law(inputs))
        return (sum(m[k] / self.weights[k] for k in self.weights) - self.target_variance(inputs)) / n

    def constants(self, inputs: str = "sphere") -> dict[int, dict[str, float]]:
        """Per degree ``k``: ``sqrt_M`` :math:`=\\sqrt{M_k}`, ``fischer_norm`` :math:`\\|f_k\\|_F`, ``ratio`` :math:`\\sqrt{M_k}/\\|f_k\\|_F`,
        ``ceiling`` (our dimension-free :math:`C_k`, :func:`dimension_free_constant`), ``limit`` (:math:`C_k^\\infty`) and ``weight`` :math:`\\pi_k`."""
        m = self.second_moments(input_law(inputs))
        out = {}
        for k, part in self.parts.items():
            norm = fischer_norm(part, self.variables)
            out[k] = {"sqrt_M": math.sqrt(m[k]), "fischer_norm": norm, "ratio": math.sqrt(m[k]) / norm,
                      "ceiling": dimension_free_constant(k, sigma=self.sigma, beta=self.beta),
                      "limit": dimension_free_limit(k, sigma=self.sigma, beta=self.beta),
                      "weight": self.weights.get(k, 0.0)}
        return out

    def represents_target(self) -> bool:
        """Whether the networks' mean is :math:`f` by the exact identities of ``thm-sharpened``: every kernel has
        :math:`E[\\langle x, W\\rangle^k q_k(W)] = k!\\sigma^{2k}f_k(x)` (:func:`representation_symbolic.ridge_moment`;
        with the parity of :math:`q_k` the engine's two terms then merge into the neurons of ``eq-sharpened``), every
        bias is :math:`-S \\le 0` and the output weights are unscaled. Cached."""
        if "represents" not in self._m_cache:
            s, d = sympy.nsimplify(self.sigma), self.dimension
            exact = all(sympy.expand(sym.ridge_moment(q, self.variables, k, s) / _uniform_factor(self.weight_law, q, k, d)
                                     - sympy.factorial(k) * s ** (2 * k) * self.parts[k]) == 0
                        for k, q in self.kernels.items())
            self._m_cache["represents"] = exact and self.bias_sign == -1.0 and self.output_scale == 1.0
        return self._m_cache["represents"]

    def rms_bound(self, inputs: str = "sphere") -> float:
        """:math:`B = \\sum_k \\sqrt{M_k}`: some width-``n`` network has :math:`\\|f_n - f\\|_{L^2(D)} \\le B/\\sqrt n`."""
        return sum(math.sqrt(v) for v in self.second_moments(input_law(inputs)).values())

    def target(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`f(x)` on a ``(N, d)`` tensor (exact polynomial evaluation in float64)."""
        poly = sympy.Poly(sum(self.parts.values(), sympy.Integer(0)) + self.constant, *self.variables)
        return _TorchPolynomial(poly)(x)


def _uniform_factor(weight_law: str, q, k: int, d: int):
    """:math:`E_{N(0,I)}[\\langle x, Z\\rangle^kq(Z)]/E_{\\theta\\sim U(S^{d-1})}[\\langle x, \\theta\\rangle^kq(\\theta)] = E|Z|^{2k}
    = d(d+2)\\cdots(d+2k-2)` for :math:`q` homogeneous of degree :math:`k` (``"sphere"``); 1 for Gaussian weights.
    A sphere kernel that is not homogeneous of degree :math:`k` gets ``nan`` (its identity then fails)."""
    if weight_law == "gaussian":
        return sympy.Integer(1)
    return sympy.Mul(*(sympy.Integer(d + 2 * i) for i in range(k))) if q.is_polynomial() and sympy.Poly(
        q, *sorted(q.free_symbols, key=str)).is_homogeneous and sympy.Poly(q, *sorted(q.free_symbols, key=str)).total_degree() == k else sympy.nan


def _build(poly, variables, *, sigma, beta, inputs, kernel: str = "sharpened", bias_sign: float = -1.0,
           output_scale: float = 1.0, device=None, weight_law: str = "gaussian") -> SharpenedRepresentation:
    """The representation of ``poly`` with the ``kernel`` of ``KERNELS`` (see :data:`KERNELS`)."""
    variables = sym.check_variables(variables)
    sigma, beta = _scales(sigma, beta)
    input_law(inputs)
    parts = sym.homogeneous_parts(poly, variables)
    constant = float(parts.pop(0, 0))
    s2 = sympy.nsimplify(sigma) ** 2
    kernels = {k: part if k == 1 and kernel != "explicit sphere" else KERNELS[kernel](part, variables, k, s2)
               for k, part in parts.items()}
    return SharpenedRepresentation(variables, sigma, beta, constant, parts, kernels, inputs, bias_sign, output_scale,
                                   torch.device(device) if device is not None else book_device.device(), weight_law)


KERNELS: dict[str, Callable] = {
    # q_k for k >= 2, as a function of (f_k, variables, k, σ²); every one enters u_k = 2q_k s^(k-2)/((k-2)!σ^(2k)p_k(s))
    "sharpened": lambda part, v, k, s2: sym.heat_flow(part, v, -s2),  # e^(-σ²Δ/2) f_k (thm-sharpened)
    "explicit": lambda part, v, k, s2: sympy.expand(  # k! σ^(2k) T_μ^(-1) f_k, μ = N(0, σ²I) (thm-spectrum)
        sympy.factorial(k) * s2**k * sym.inverse_relu_operator(part, v, "gaussian", sympy.sqrt(s2))),
    "explicit sphere": lambda part, v, k, s2: sympy.expand(  # k! T_μ^(-1) f_k, μ = U(S^(d-1)), σ = 1 (every k >= 1)
        sympy.factorial(k) * sym.inverse_relu_operator(part, v, "sphere")),
    "unsharpened": lambda part, v, k, s2: part,  # control: f_k
    "forward heat": lambda part, v, k, s2: sym.heat_flow(part, v, s2),  # control: e^(+σ²Δ/2) f_k
}


def sharpened_representation(poly, variables: Sequence[sympy.Symbol], *, sigma: float = 1.0, beta: float | None = None,
                             inputs: str = "sphere", device=None) -> SharpenedRepresentation:
    """The sharpened representation of ``poly`` (``thm-sharpened``): :math:`q_k = e^{-\\sigma^2\\Delta/2}f_k`, weights
    :math:`N(0,\\sigma^2 I)`, biases :math:`-S_k \\le 0` with :math:`S_k \\sim \\beta\\chi_{k-1}` (default :math:`\\beta = 2\\sigma`),
    mixture weights :math:`\\pi_k \\propto \\sqrt{M_k}` under the input law ``inputs``."""
    return _build(poly, variables, sigma=sigma, beta=beta, inputs=inputs, device=device)


def explicit_representation(poly, variables: Sequence[sympy.Symbol], *, sigma: float = 1.0, beta: float | None = None,
                            inputs: str = "sphere", device=None) -> SharpenedRepresentation:
    """The explicit (unsharpened) representation through :math:`T_\\mu^{-1}` with :math:`\\mu = N(0, \\sigma^2 I)`
    (``thm-explicit``): the same neurons and bias law as :func:`sharpened_representation`, with the homogeneous kernel
    :math:`q_k = k!\\,\\sigma^{2k}\\,T_\\mu^{-1}f_k` in place of :math:`e^{-\\sigma^2\\Delta/2}f_k`."""
    return _build(poly, variables, sigma=sigma, beta=beta, inputs=inputs, kernel="explicit", device=device)


def explicit_sphere_representation(poly, variables: Sequence[sympy.Symbol], *, sigma: float = 1.0,
                                   beta: float | None = None, inputs: str = "sphere", device=None) -> SharpenedRepresentation:
    """The explicit representation with weights uniform on the sphere (``thm-explicit``, :math:`\\mu = U(S^{d-1})`):
    :math:`f_k(x) = E[\\langle x, V\\rangle^kg_k(V)]`, :math:`g_k = T_\\mu^{-1}f_k`, becomes
    :math:`E[u_k(V, S)\\rho(\\langle V, x\\rangle - S)]` with :math:`u_k = 2k(k-1)g_k(v)s^{k-2}/p_k(s)` (:math:`k \\ge 2`) and
    :math:`u_1 = 2g_1`: the neurons of :func:`sharpened_representation` with :math:`\\sigma = 1`, kernel :math:`k!\\,g_k` for
    every :math:`k` and :math:`W` uniform on :math:`S^{d-1}`. ``sigma`` must be 1 (the weights have unit length)."""
    if finite_real("sigma", sigma) != 1.0:
        raise ValueError(f"sigma must be 1 for sphere weights (|W| = 1), got {sigma!r}")
    return _build(poly, variables, sigma=1.0, beta=beta, inputs=inputs, kernel="explicit sphere", device=device,
                  weight_law="sphere")


def unsharpened_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Negative control: :math:`q_k = f_k` (no backward heat flow); :math:`x_1^2` becomes :math:`x_1^2 + |x|^2/2` for every :math:`\\sigma`."""
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, kernel="unsharpened")


def forward_heat_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Negative control: forward heat flow :math:`e^{+\\sigma^2\\Delta/2}f_k`; :math:`x_1^2` becomes :math:`x_1^2 + |x|^2` for every :math:`\\sigma`."""
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, kernel="forward heat")


def bias_sign_control(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
    """Negative control: neurons :math:`\\rho(\\langle W, x\\rangle + S)` (bias :math:`+S \\ge 0`), not a representation of :math:`f`."""
    return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, bias_sign=+1.0)


def mean_scaled_control(scale: float) -> Callable[..., SharpenedRepresentation]:
    """Near-miss control: a ``build`` whose networks have every output weight times ``scale``, so their mean is
    :math:`f_0 + c(f - f_0)`, :math:`c =` ``scale`` (the prediction stays the correct construction's)."""
    scale = finite_real("scale", scale)
    if scale <= 0 or scale == 1:
        raise ValueError(f"scale must be > 0 and != 1 (1 is the correct construction), got {scale!r}")

    def build(poly, variables, *, sigma: float = 1.0, inputs: str = "sphere") -> SharpenedRepresentation:
        return _build(poly, variables, sigma=sigma, beta=None, inputs=inputs, output_scale=scale)

    build.__name__ = f"mean_scaled_control({scale:g})"
    return build


CONSTANT_NODES = 200  # Gauss–Jacobi nodes per axis of _gaussian_g_moments: 100..800 agree to 1e-12 at β = 1.42σ (tests)


def _gaussian_g_moments(k: int, sigma: float, beta: float) -> tuple[float, float]:
    """:math:`(E\\,G_k(\\sigma\\xi), E\\,G_k(\\sigma\\xi)^2)`, :math:`\\xi \\sim N(0, 1)`, without sampling.

    With :math:`G_k(t) = Ct_+^{k+1}\\int_0^1 w(y)e^{t^2y^2/(2\\beta^2)}dy`, :math:`w(y) = y^{k-2}(1-y)^2`, the
    :math:`t`-integrals are Gaussian: :math:`\\int_0^\\infty t^m e^{-at^2}dt = \\Gamma((m+1)/2)/(2a^{(m+1)/2})`, so
    :math:`E\\,G_k = \\frac{C}{\\sigma\\sqrt{2\\pi}}\\int_0^1 w(y)\\frac{\\Gamma(k/2+1)}{2a_1^{k/2+1}}dy`,
    :math:`a_1 = \\frac1{2\\sigma^2} - \\frac{y^2}{2\\beta^2}`, and :math:`E\\,G_k^2 = \\frac{C^2}{\\sigma\\sqrt{2\\pi}}\\iint w(y)w(y')
    \\frac{\\Gamma(k+3/2)}{2a_2^{k+3/2}}dy\\,dy'`, :math:`a_2 = \\frac1{2\\sigma^2} - \\frac{y^2 + y'^2}{2\\beta^2}`; Gauss–Jacobi
    with the weight :math:`w` (``CONSTANT_NODES`` per axis). :math:`E\\,G_k^2 = \\infty` when :math:`\\beta^2 < 2\\sigma^2`
    (:math:`a_2 < 0` near :math:`y = y' = 1`), and at :math:`\\beta^2 = 2\\sigma^2` (to 1e-12) for :math:`k \\ge 5`
    (:math:`G_k(t)^2\\varphi(t) \\sim t^{2k-10}`); it is returned as ``math.inf``. :math:`k = 1`: :math:`G_1(t) = t_+^2`,
    :math:`(\\sigma^2/2, 3\\sigma^4/2)`."""
    if k == 1:
        return sigma**2 / 2, 3 * sigma**4 / 2
    nodes, weights = special.roots_jacobi(CONSTANT_NODES, 2.0, float(k - 2))
    y, wy = (1 + nodes) / 2, weights / 2 ** (k + 1)
    front = _bias_normaliser(k, beta) / (sigma * math.sqrt(2 * math.pi))
    a1 = 1 / (2 * sigma**2) - y**2 / (2 * beta**2)
    mean = front * float(np.sum(wy * math.gamma(k / 2 + 1) / (2 * a1 ** (k / 2 + 1))))
    boundary = math.isclose(beta**2, 2 * sigma**2, rel_tol=1e-12)
    if (beta**2 < 2 * sigma**2 and not boundary) or (boundary and k >= 5):
        return mean, math.inf
    a2 = 1 / (2 * sigma**2) - (y[:, None] ** 2 + y[None, :] ** 2) / (2 * beta**2)
    square = _bias_normaliser(k, beta) * front * float(np.sum(np.outer(wy, wy) * math.gamma(k + 1.5) / (2 * a2 ** (k + 1.5))))
    return mean, square


@functools.lru_cache(maxsize=256)
def dimension_free_constant(k: int, *, sigma: float = 1.0, beta: float | None = None) -> float:
    """Our ceiling :math:`C_k` with :math:`\\sqrt{M_k} \\le C_k\\|f_k\\|_F` for every input law in the closed unit ball, any :math:`d`.

    Cauchy–Schwarz in :math:`W`, Gaussian hypercontractivity :math:`E q^4 \\le 9^k (E q^2)^2` with
    :math:`E q_k(W)^2 = \\sigma^{2k}\\|f_k\\|_F^2`, and monotonicity of :math:`G_k` in :math:`t = \\langle x, W\\rangle \\sim N(0, |x|^2\\sigma^2)`:
    :math:`C_k^2 = 4\\cdot 3^k\\sigma^{2k}\\sqrt{E G_k(\\sigma\\xi)^2}/((k-2)!^2\\sigma^{4k})`; for :math:`k=1` the exact Gaussian
    :math:`E f_1(W)^4 = 3(Ef_1(W)^2)^2` gives :math:`C_1^2 = 4\\sqrt3\\,\\sigma^2\\sqrt{E G_1(\\sigma\\xi)^2}/\\sigma^4`. :math:`\\xi \\sim N(0,1)`,
    :math:`E G_k^2` by :func:`_gaussian_g_moments`. For :math:`k \\ge 2` and :math:`\\sigma < \\beta < \\sqrt2\\sigma` the bound
    diverges (:math:`E G_k(\\sigma\\xi)^2 = \\infty`) and the function returns ``math.inf``: no finite ceiling of this form
    (:math:`M_k` itself stays finite for every :math:`\\beta > \\sigma`).
    """
    k = positive_int("k", k)
    sigma, beta = _scales(sigma, beta)
    g2 = _gaussian_g_moments(k, sigma, beta)[1]
    if k == 1:
        return math.sqrt(4 * math.sqrt(3.0) * sigma**2 * math.sqrt(g2) / sigma**4)
    return math.sqrt(4 * 3**k * sigma ** (2 * k) * math.sqrt(g2) / (math.factorial(k - 2) ** 2 * sigma ** (4 * k)))


@functools.lru_cache(maxsize=256)
def dimension_free_limit(k: int, *, sigma: float = 1.0, beta: float | None = None) -> float:
    """:math:`C_k^\\infty = \\lim_{d\\to\\infty}\\sqrt{M_k}/\\|f_k\\|_F` for :math:`D = U(S^{d-1})`, where :math:`q_k(W)` and
    :math:`\\langle x, W\\rangle` decouple: :math:`C_k^\\infty = 2\\sigma^k\\sqrt{E G_k(\\sigma\\xi)}/((k-2)!\\sigma^{2k})` (:math:`k=1`: :math:`\\sqrt2`);
    finite for every :math:`\\beta > \\sigma`."""
    k = positive_int("k", k)
    sigma, beta = _scales(sigma, beta)
    g = _gaussian_g_moments(k, sigma, beta)[0]
    if k == 1:
        return 2 * sigma * math.sqrt(g) / sigma**2
    return 2 * sigma**k * math.sqrt(g) / (math.factorial(k - 2) * sigma ** (2 * k))


def _representation_and_test_points(poly, variables, sigma, inputs, build, seed: int, test_points: int):
    """``build``'s representation of ``poly``, a seeded generator, ``test_points`` inputs and ``f`` on them."""
    input_law(inputs)
    if not callable(build):
        raise TypeError(f"build must be a callable like sharpened_representation, got {type(build).__name__}")
    rep = build(poly, variables, sigma=sigma, inputs=inputs)
    if not rep.weights:
        raise ValueError(f"poly = {poly} is constant: there is nothing to approximate, the error is 0 for every n")
    g = torch.Generator(device=rep.device).manual_seed(seed)
    x = sample_inputs(test_points, rep.dimension, inputs, generator=g)
    return rep, g, x, rep.target(x)


def check_monte_carlo_rate(
    poly,
    variables: Sequence[sympy.Symbol],
    *,
    ns: Sequence[int],
    inputs: str = "sphere",
    replicates: int = 20,
    sigma: float = 1.0,
    test_points: int = 1000,
    seed: int = 0,
    build: Callable[..., SharpenedRepresentation] = sharpened_representation,
) -> RateCheck:
    """Sample ``replicates`` width-``n`` networks for each ``n`` in ``ns`` and compare with ``thm-monte-carlo``.

    Measured on ``test_points`` fixed points of :math:`D` (``inputs``): the replicate-averaged MSE
    :math:`\\overline{\\mathrm{MSE}}(n)` and the RMS :math:`\\sqrt{\\overline{\\mathrm{MSE}}}`. Rate: slope of the RMS
    against :math:`n`, :math:`-1/2 \\pm 4` standard errors (propagated from the replicates' spread,
    ``SLOPE_SE_MULTIPLE``). Requirements: the *median* over the replicates of :math:`\\mathrm{MSE}\\cdot n/\\text{prediction}`
    is :math:`\\le 2` (``RATIO_MAX``) for every :math:`n` (all :math:`n \\ge` ``RATIO_MIN_N``): by Markov's inequality the
    median of a nonnegative variable is at most twice its mean, so a correct construction passes whatever its tails; a
    construction whose bias is large against :math:`B/\\sqrt n` fails it by a factor growing like :math:`n` (a bias of
    10% does not: see :func:`check_unbiasedness`); and every first-layer bias :math:`\\le 0`. One-sided: a prediction that
    is too large is not seen here (the deterministic :math:`M_k` are tested against Monte Carlo estimates instead).
    Never per-draw bounds: single draws exceed :math:`B/\\sqrt n` often even for correct code.
    ``replicates`` :math:`\\ge` ``RATE_MIN_REPLICATES``; the claim's false-rejection rate is measured at 20 (seed sweeps).
    """
    if isinstance(ns, (str, bytes)) or not isinstance(ns, Sequence):
        raise TypeError(f"ns must be a sequence of ints, got {type(ns).__name__}")
    ns = [positive_int(f"ns[{i}]", n) for i, n in enumerate(ns)]
    if len(set(ns)) < 2:
        raise ValueError(f"ns needs at least two distinct widths to fit a rate, got {ns}")
    if min(ns) < RATIO_MIN_N:
        raise ValueError(f"ns must be >= {RATIO_MIN_N} (below it 20-replicate MSE averages are too heavy-tailed to"
                         f" compare with the prediction), got {min(ns)}")
    replicates = positive_int("replicates", replicates)
    if replicates < RATE_MIN_REPLICATES:
        raise ValueError(f"replicates must be >= {RATE_MIN_REPLICATES} (the slope's standard error is estimated from the"
                         f" replicates' spread), got {replicates}")
    test_points = positive_int("test_points", test_points)
    rep, g, x, fx = _representation_and_test_points(poly, variables, sigma, inputs, build, seed, test_points)
    mse, mse_se, predicted, worst_bias, frac_above, medians = [], [], [], -math.inf, [], []
    bound = rep.rms_bound(inputs)
    for n in ns:
        errors = []
        for _ in range(replicates):
            net = rep.sample(n, generator=g)
            with torch.no_grad():
                errors.append(float(((net(x).reshape(-1) - fx) ** 2).mean()))
            worst_bias = max(worst_bias, float(net[0].bias.max()))
        mse.append(float(np.mean(errors)))
        mse_se.append(float(np.std(errors, ddof=1) / math.sqrt(replicates)))
        predicted.append(rep.predicted_mse(n, inputs))
        medians.append(float(np.median(errors)) / predicted[-1])
        frac_above.append(sum(e > bound**2 / n for e in errors) / replicates)
    ratios = [m / p for m, p in zip(mse, predicted)]
    rms = [math.sqrt(m) for m in mse]
    slope_se = _slope_standard_error(ns, mse, mse_se)
    return rate_check(
        f"Monte Carlo width-n network, d = {rep.dimension}, {inputs}: RMS ∝ n^(−1/2), MSE·n = prediction",
        ns, rms, expected=-0.5, tolerance=SLOPE_SE_MULTIPLE * slope_se,
        quantity=f"slope of the replicate RMS error against n (tolerance {SLOPE_SE_MULTIPLE:g} standard errors)",
        requirements={
            f"median MSE / predicted MSE <= {RATIO_MAX:g} for every n": all(r <= RATIO_MAX for r in medians),
            "every first-layer bias <= 0": worst_bias <= 0.0,
        },
        notes={"n": ns, "MSE/prediction": ratios, "median MSE/prediction": medians, "mean MSE": mse, "predicted MSE": predicted,
               "slope standard error (replicates)": slope_se,
               "B = Σ√M_k": bound, "fraction of draws with MSE > B²/n": frac_above, "replicates": replicates,
               "test points": test_points, "largest bias": worst_bias},
    )


def _slope_standard_error(ns: Sequence[int], mse: Sequence[float], mse_se: Sequence[float]) -> float:
    """Standard error of the least-squares slope of :math:`\\log\\sqrt{\\overline{\\mathrm{MSE}}}` against :math:`\\log n`,
    propagated from the standard errors of the replicate means: :math:`\\mathrm{Var}\\log\\sqrt m \\approx (\\mathrm{se}/m)^2/4`,
    slope :math:`= \\sum_i c_i\\log\\sqrt{m_i}` with :math:`c_i = (\\log n_i - \\overline{\\log n})/S_{xx}`."""
    lx = np.log(np.asarray(ns, dtype=np.float64))
    c = (lx - lx.mean()) / np.sum((lx - lx.mean()) ** 2)
    variance = (np.asarray(mse_se) / np.asarray(mse)) ** 2 / 4
    return float(math.sqrt(np.sum(c**2 * variance)))


def check_unbiasedness(
    poly,
    variables: Sequence[sympy.Symbol],
    *,
    width: int,
    replicates: int,
    inputs: str = "sphere",
    sigma: float = 1.0,
    test_points: int = 500,
    seed: int = 0,
    build: Callable[..., SharpenedRepresentation] = sharpened_representation,
) -> RateCheck:
    """The mean of the sampled networks is :math:`f` (``thm-sharpened``), by a per-point z-test of ``replicates``
    independent width-``width`` networks at ``test_points`` fixed points :math:`x_j` of :math:`D`.

    :math:`z_j = \\bar e_j/(s_j/\\sqrt R)` with :math:`\\bar e_j` and :math:`s_j` the mean and standard deviation over the
    :math:`R` replicates of :math:`f_n(x_j) - f(x_j)`. Measured: :math:`T = \\frac1P\\sum_j z_j^2`, whose mean is
    :math:`(R-1)/(R-3) \\approx 1` for an unbiased construction; required :math:`T \\le` ``Z_SQUARE_MAX``. A bias
    :math:`b(x)` adds about :math:`nR\\,\\overline{b^2/v}` (:math:`v` the variance of one neuron), which no rate can see:
    a construction whose mean is :math:`f_0 + 1.1(f - f_0)` still has MSE :math:`\\propto 1/n` over the widths of
    :func:`check_monte_carlo_rate`. Requirement: the MSE of the pooled network (the average of the :math:`R` networks,
    width :math:`Rn`) over the points is at most ``POOLED_RATIO_MAX`` times its exact prediction (``thm-monte-carlo``):
    a construction with exploding variance makes every :math:`z_j` small (its :math:`s_j` are huge) and fails here.
    Measured detection limit at the chapter's sizes (:func:`default_unbiasedness_sizes`, 100 points, the chapter's
    polynomial in :math:`d = 5`): a mean :math:`f_0 + c(f - f_0)` is rejected on every seed tried for :math:`|c - 1| \\ge`
    ``DETECTION_LIMIT``; smaller offsets (3%) pass on some seeds. ``width`` :math:`\\ge` ``UNBIASED_MIN_WIDTH``,
    ``replicates`` :math:`\\ge` ``UNBIASED_MIN_REPLICATES``. The log-log data are the RMS error of the average of the first :math:`m`
    replicates (one network of width :math:`mn`) against :math:`mn`: slope :math:`-1/2` without bias, flat with one.
    """
    width, replicates, test_points = (positive_int("width", width), positive_int("replicates", replicates),
                                      positive_int("test_points", test_points))
    if width < UNBIASED_MIN_WIDTH:
        raise ValueError(f"width must be >= {UNBIASED_MIN_WIDTH} (a narrower network's error at a point is too heavy-tailed"
                         f" for the z-test), got {width}")
    if replicates < UNBIASED_MIN_REPLICATES:
        raise ValueError(f"replicates must be >= {UNBIASED_MIN_REPLICATES} for the z-test's variance estimates,"
                         f" got {replicates}")
    rep, g, x, fx = _representation_and_test_points(poly, variables, sigma, inputs, build, seed, test_points)
    errors = torch.empty(replicates, test_points, dtype=torch.float64, device=rep.device)
    for r in range(replicates):
        with torch.no_grad():
            errors[r] = rep.sample(width, generator=g)(x).reshape(-1) - fx
    z = errors.mean(0) / (errors.std(0) / math.sqrt(replicates))
    statistic = float((z**2).mean())
    counts = sorted({min(2**i, replicates) for i in range(replicates.bit_length() + 1)})
    cumulative = errors.cumsum(0)
    pooled_rms = [float(((cumulative[m - 1] / m) ** 2).mean().sqrt()) for m in counts]
    pooled_ratio = pooled_rms[-1] ** 2 / rep.predicted_mse(replicates * width, inputs)
    return rate_check(
        f"unbiasedness: {replicates} networks of width {width}, d = {rep.dimension}, {inputs}, per-point z-test of"
        f" their mean against f ({test_points} points)",
        [m * width for m in counts], pooled_rms, expected=1.0, tolerance=Z_SQUARE_MAX - 1.0, sense="<=",
        measured=statistic, quantity="mean over the points of z² (z: replicate mean error / its standard error)",
        requirements={f"MSE of the pooled network / its exact prediction <= {POOLED_RATIO_MAX:g}":
                      pooled_ratio <= POOLED_RATIO_MAX},
        notes={"pooled MSE / prediction": pooled_ratio, "largest |z|": float(z.abs().max()), "replicates": replicates, "width": width,
               "pooled width": replicates * width, "RMS of the pooled network": pooled_rms[-1],
               "predicted RMS of the pooled network": math.sqrt(rep.predicted_mse(replicates * width, inputs))},
    )

def check_dimension_stability(
    target: Callable[[int], tuple],
    ds: Sequence[int],
    *,
    inputs: str = "sphere",
    sigma: float = 1.0,
    slope_tolerance: float = 0.05,
    build: Callable[..., SharpenedRepresentation] | None = None,
) -> RateCheck:
    """``thm-monte-carlo``'s constants against the dimension: for each :math:`d` in ``ds`` build
    ``target(d) -> (poly, variables)`` with ``build`` (default :func:`sharpened_representation`) and compute
    :math:`\\sqrt{M_k}` under ``inputs`` (deterministic, :meth:`SharpenedRepresentation.second_moments`). A constant
    means something only for a representation: the first requirement is :meth:`SharpenedRepresentation.represents_target`
    at every :math:`d` (the controls, whose :math:`M_k` are those of the correct construction, fail it).

    Rate: slope of :math:`B(d) = \\sum_k\\sqrt{M_k}` against :math:`d`, one-sided :math:`\\le 0 + 0.05` ("does not
    grow with :math:`d`"). Requirements: for every degree, :math:`\\sqrt{M_k}/\\|f_k\\|_F` does not increase from one
    :math:`d` to the next (up to ``MOMENT_RTOL``), and stays below our dimension-free
    ceiling :math:`C_k` (:func:`dimension_free_constant`). A target whose Fischer norm grows with :math:`d` (e.g.
    :math:`|x|^2`, :math:`\\|\\cdot\\|_F = \\sqrt{2d}`) fails the rate: the stability is relative to the Fischer norm.
    """
    if not callable(target):
        raise TypeError(f"target must be a callable d -> (poly, variables), got {type(target).__name__}")
    if isinstance(ds, (str, bytes)) or not isinstance(ds, Sequence):
        raise TypeError(f"ds must be a sequence of ints, got {type(ds).__name__}")
    ds = [positive_int(f"ds[{i}]", d) for i, d in enumerate(ds)]
    if len(set(ds)) < 2 or ds != sorted(ds):
        raise ValueError(f"ds must be increasing with at least two dimensions, got {ds}")
    input_law(inputs)
    build = sharpened_representation if build is None else build
    if not callable(build):
        raise TypeError(f"build must be a callable like sharpened_representation, got {type(build).__name__}")
    ratios: dict[int, list[float]] = {}
    bounds, ceilings_hold, represents = [], True, True
    for d in ds:
        poly, variables = target(d)
        rep = build(poly, variables, sigma=sigma, inputs=inputs)
        if not rep.weights:
            raise ValueError(f"target({d}) is constant: nothing to approximate")
        represents &= rep.represents_target()
        for k, c in rep.constants(inputs).items():
            ratios.setdefault(k, []).append(c["ratio"])
            ceilings_hold &= c["ratio"] <= c["ceiling"]
        bounds.append(rep.rms_bound(inputs))
    monotone = all(b <= a * (1 + MOMENT_RTOL) for series in ratios.values() for a, b in zip(series, series[1:]))
    return rate_check(
        f"dimension stability of B = Σ√M_k ({inputs}), d in {ds}",
        ds, bounds, expected=0.0, tolerance=slope_tolerance, sense="<=", quantity="slope of B = Σ√M_k against d",
        requirements={
            "the build represents f at every d (exact identities, biases <= 0, unscaled outputs)": bool(represents),
            "√M_k/‖f_k‖_F does not increase from one d to the next": monotone,
            "√M_k/‖f_k‖_F <= our dimension-free ceiling C_k": bool(ceilings_hold),
        },
        notes={"d": ds, "B": bounds, **{f"√M_{k}/‖f_{k}‖_F": v for k, v in ratios.items()}},
    )


def representation_quadrature(poly, variables, point: Sequence[float], *, sigma: float = 1.0,
                              kernel: str = "sharpened") -> float:
    """The right-hand side of ``thm-sharpened`` at ``point`` by quadrature, in its density-free form
    :math:`f_0 + E_W[2f_1(W)\\rho(\\langle W, x\\rangle)]/\\sigma^2 + \\sum_{k\\ge2}E_W\\int_0^\\infty \\frac{2q_k(W)s^{k-2}}{(k-2)!\\sigma^{2k}}\\rho(\\langle W,x\\rangle - s)\\,ds`.

    :math:`W = \\sigma Q z` with :math:`Q` orthogonal and :math:`Qe_1 = x/|x|`, so :math:`\\langle W, x\\rangle = \\sigma|x|z_1`:
    Gauss–Hermite in :math:`z_2, \\dots, z_d` (exact for these polynomial degrees), QUADPACK in :math:`z_1 > 0`
    and in :math:`s`. Independent of the sampling code; used to check exactness to :math:`10^{-8}`. ``kernel`` names
    the :math:`q_k` of :data:`KERNELS` (``"explicit"``: ``thm-explicit``).
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {tuple(KERNELS)}, got {kernel!r}")
    variables = sym.check_variables(variables)
    x = np.asarray([finite_real(f"point[{i}]", v) for i, v in enumerate(point)], dtype=np.float64)
    if x.size != len(variables):
        raise ValueError(f"point must have {len(variables)} coordinates (one per variable), got {x.size}")
    sigma = finite_real("sigma", sigma)
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    parts = sym.homogeneous_parts(poly, variables)
    total = float(parts.pop(0, 0))
    radius, d = float(np.linalg.norm(x)), x.size
    if radius == 0.0:
        return total
    basis, _ = np.linalg.qr(np.column_stack([x / radius, np.eye(d)[:, : d - 1]]) if d > 1 else np.ones((1, 1)))
    basis[:, 0] *= np.sign(basis[:, 0] @ x)
    degree = max(parts, default=0)
    nodes, weights = np.polynomial.hermite_e.hermegauss(degree // 2 + 2)
    weights = weights / weights.sum()
    rest = np.array(np.meshgrid(*[nodes] * (d - 1), indexing="ij")).reshape(d - 1, -1) if d > 1 else np.zeros((0, 1))
    rest_w = np.prod(np.array(np.meshgrid(*[weights] * (d - 1), indexing="ij")).reshape(d - 1, -1), axis=0) if d > 1 else np.ones(1)
    for k, part in parts.items():
        q_k = part if k == 1 else KERNELS[kernel](part, variables, k, sympy.nsimplify(sigma) ** 2)
        q = sympy.lambdify(variables, q_k, "numpy")

        def mean_q(z1, q=q):  # E over z_2..z_d of q(σQz) at fixed z_1
            w = sigma * (basis[:, :1] * z1 + basis[:, 1:] @ rest)
            return float(np.sum(rest_w * np.broadcast_to(q(*w), rest_w.shape)))

        if k == 1:
            def profile(a):
                return 2 * a / sigma**2
        else:
            def profile(a, k=k):
                inner = integrate.quad(lambda s: s ** (k - 2) * (a - s), 0, a, epsabs=0, epsrel=1e-13)[0]
                return 2 * inner / (math.factorial(k - 2) * sigma ** (2 * k))
        density = 1 / math.sqrt(2 * math.pi)
        total += integrate.quad(lambda z1: mean_q(z1) * profile(sigma * radius * z1) * density * math.exp(-z1 * z1 / 2),
                                0, math.inf, epsabs=1e-13, epsrel=1e-12, limit=200)[0]
    return total


def funk_hecke_eigenvalue(k: int, j: int, d: int, *, zonal: str = "chebyshev") -> float:
    """:math:`\\lambda_{k,j}` of the sphere law by the Funk–Hecke integral
    :math:`c_d\\int_{-1}^1 t^k P_{j,d}(t)(1-t^2)^{(d-3)/2}dt`, :math:`c_d = \\Gamma(d/2)/(\\sqrt\\pi\\,\\Gamma((d-1)/2))`,
    :math:`P_{j,d} = C_j^{(d-2)/2}/C_j^{(d-2)/2}(1)`. At :math:`d = 2` the Gegenbauer parameter is 0 and the normalised
    limit is Chebyshev :math:`T_j` (``zonal="chebyshev"``); ``zonal="gegenbauer"`` evaluates the Gegenbauer formula
    as written (the *trap*: scipy returns :math:`C_j^{(0)} \\equiv 0`, so :math:`0/0`)."""
    for name, value, low in (("k", k, 0), ("j", j, 0), ("d", d, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if zonal not in ("chebyshev", "gegenbauer"):
        raise ValueError(f"zonal must be 'chebyshev' or 'gegenbauer', got {zonal!r}")
    alpha = (d - 2) / 2
    if d == 2 and zonal == "chebyshev":
        def zonal_poly(t):
            return special.eval_chebyt(j, t)
    else:
        at_one = float(special.eval_gegenbauer(j, alpha, 1.0))
        if at_one == 0.0:  # the trap: C_j^(0) ≡ 0 for j >= 1, so P_(j,2) = 0/0
            return math.nan

        def zonal_poly(t):
            return special.eval_gegenbauer(j, alpha, t) / at_one
    c_d = math.gamma(d / 2) / (math.sqrt(math.pi) * math.gamma((d - 1) / 2))
    exponent = (d - 3) / 2
    value = integrate.quad(lambda t: t**k * zonal_poly(t), -1, 1, weight="alg", wvar=(exponent, exponent),
                           epsabs=0, epsrel=1e-13, limit=200)[0]
    return c_d * value


def check_eigenvalues(ds: Sequence[int], k_max: int, *, zonal: str = "chebyshev") -> RateCheck:
    """Exact :math:`\\lambda_{k,j}` (sphere, :func:`representation_symbolic.eigenvalue`) against Funk–Hecke quadrature
    for every :math:`d` in ``ds``, :math:`0 \\le j \\le k \\le` ``k_max``, :math:`k - j` even. Measured: the largest relative
    deviation, required :math:`\\le 10^{-10}` (quadrature round-off); every quadrature value must be finite.
    The log-log data are :math:`\\lambda_{k,k}` against :math:`k` at the largest :math:`d` (for the figure only)."""
    if isinstance(ds, (str, bytes)) or not isinstance(ds, Sequence) or not ds:
        raise TypeError(f"ds must be a non-empty sequence of ints >= 2, got {ds!r}")
    k_max = positive_int("k_max", k_max)
    if k_max < 2:
        raise ValueError(f"k_max must be >= 2 to reach a non-trivial decomposition, got {k_max}")
    worst, finite, rows = 0.0, True, []
    for d in ds:
        for k in range(k_max + 1):
            for j in range(k % 2, k + 1, 2):
                exact = float(sym.eigenvalue(k, j, d))
                approx = funk_hecke_eigenvalue(k, j, d, zonal=zonal)
                if not math.isfinite(approx):
                    finite = False
                    continue
                worst = max(worst, abs(approx - exact) / exact)
                rows.append((d, k, j, exact, approx))
    top = [r for r in rows if r[0] == max(ds) and r[1] == r[2] and r[1] >= 1]
    xs = [float(r[1]) for r in top] if len(top) >= 2 else [1.0, 2.0]
    ys = [r[3] for r in top] if len(top) >= 2 else [1.0, 1.0]
    return rate_check(
        f"eigenvalues λ_(k,j) of T_μ (sphere) against Funk–Hecke quadrature ({zonal}), d in {list(ds)}, k <= {k_max}",
        xs, ys, expected=0.0, tolerance=EIGEN_RTOL, sense="<=", measured=worst,
        quantity="largest relative deviation of quadrature from the closed form",
        requirements={"every quadrature value is finite": finite},
        notes={"pairs compared": len(rows), "d": list(ds)},
    )


def check_fischer_identity(polys: Sequence, variables, *, sigma: float = 1.0,
                           inner: Callable = sym.fischer_inner) -> RateCheck:
    """Exact :math:`E_{W\\sim N(0,\\sigma^2I)}[q_k(W)^2] = \\sigma^{2k}\\|f_k\\|_F^2` for every homogeneous part of every polynomial in
    ``polys`` (sympy, exact rationals; float coefficients are read as the rationals of their decimal forms,
    :func:`representation_symbolic.exact_rationals`). Measured: the largest relative deviation, required 0 (exact arithmetic);
    ``inner`` is the inner product used for :math:`\\|f_k\\|_F^2` (pass :func:`representation_symbolic.coefficient_inner`
    for the α!-free control). Log-log data: :math:`\\sigma^{2k}\\|f_k\\|_F^2` against the part index."""
    variables = sym.check_variables(variables)
    if isinstance(polys, (str, bytes)) or not isinstance(polys, Sequence) or not polys:
        raise TypeError(f"polys must be a non-empty sequence of sympy polynomials, got {polys!r}")
    s = sympy.nsimplify(finite_real("sigma", sigma))
    if s <= 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    worst, values = 0.0, []
    for poly in polys:
        for k, part in sym.homogeneous_parts(sym.exact_rationals(poly, variables), variables).items():
            q = sym.sharpen(part, variables, s)
            lhs = sym.expectation(q**2, variables, "gaussian", s)
            rhs = s ** (2 * k) * inner(part, part, variables)
            worst = max(worst, float(abs(lhs - rhs) / abs(lhs)))
            values.append(float(lhs))
    if not values:
        raise ValueError("polys are all zero: there is no homogeneous part to compare")
    xs = [float(i + 1) for i in range(len(values))]
    if len(xs) < 2:
        xs, values = [1.0, 2.0], values * 2
    return rate_check(
        "Fischer norm = Gaussian L2 norm of the sharpened kernel: E[q_k(W)²] = σ^(2k)‖f_k‖_F²",
        xs, values, expected=0.0, tolerance=0.0, sense="<=", measured=worst,
        quantity="largest relative deviation (exact arithmetic)",
        notes={"parts compared": len(values)},
    )


def ridge_polynomial(variables, degrees: Sequence[int], *, terms: int = 3, constant: float = 0.5, seed: int = 0):
    """A test polynomial :math:`f_0 + \\sum_k f_k`, each :math:`f_k = c_k\\sum_{i\\le\\text{terms}} \\langle a_i, x\\rangle^k`
    with random unit directions :math:`a_i` supported on at most 3 coordinates (so it stays sparse in any :math:`d`),
    rounded to two decimals, and :math:`c_k` normalising :math:`\\|f_k\\|_F = 1` to six digits (rational coefficients)."""
    variables = sym.check_variables(variables)
    terms = positive_int("terms", terms)
    rng = np.random.default_rng(seed)
    d, f = len(variables), sympy.nsimplify(constant)
    for k in degrees:
        k = positive_int("degree", k)
        part = sympy.Integer(0)
        for _ in range(terms):
            idx = rng.choice(d, size=min(3, d), replace=False)
            a = rng.standard_normal(len(idx))
            a = [sympy.Rational(round(v * 100), 100) for v in a / np.linalg.norm(a)]
            part += sum(c * variables[i] for c, i in zip(a, idx)) ** k
        part = sympy.expand(part)
        norm = fischer_norm(part, variables)
        f += sympy.expand(part * sympy.Rational(round(1e6 / norm), 10**6))
    return f


def default_target(d: int):
    """The chapter's polynomial in :math:`d` variables: :math:`1/2` plus Fischer-normalised ridge parts of degrees 1..4."""
    variables = sympy.symbols(f"x1:{positive_int('d', d) + 1}", real=True)
    return ridge_polynomial(variables, (1, 2, 3, 4)), variables


def default_ns() -> list[int]:
    """The widths of the rate check: 1000..8000 at ``ci``, 1000..10^6 at ``full``."""
    return book_device.sizes(ci=[1000, 2000, 4000, 8000], full=[1000, 4000, 16000, 64000, 256000, 1_000_000])


def default_dimension() -> int:
    """The dimension of the chapter's rate claim: 5 at ``ci``, 50 at ``full``."""
    return book_device.sizes(ci=5, full=50)


def default_replicates() -> int:
    """Replicate networks per width of the rate check: 20 at ``ci``, 40 at ``full``."""
    return book_device.sizes(ci=20, full=40)


def _rate_claim(build=sharpened_representation, replicates=None) -> RateCheck:
    poly, variables = default_target(default_dimension())
    return check_monte_carlo_rate(poly, variables, ns=default_ns(), build=build,
                                  replicates=replicates or default_replicates())


@claim("representation/monte-carlo-rate", chapter=CHAPTER, label="thm-monte-carlo",
       statement="sampled width-n network: RMS ∝ n^(−1/2), mean MSE·n / exact prediction in [0.5, 2]")
def _claim_rate() -> RateCheck:
    return _rate_claim()


@claim("representation/control-unsharpened", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: q_k = f_k (no backward heat flow) must be rejected")
def _control_unsharpened() -> RateCheck:
    return _rate_claim(unsharpened_control, replicates=5)


@claim("representation/control-forward-heat", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: forward heat flow e^(+σ²Δ/2) must be rejected")
def _control_forward() -> RateCheck:
    return _rate_claim(forward_heat_control, replicates=5)


@claim("representation/control-bias-sign", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="control: neurons ρ(⟨W,x⟩ + S) (wrong bias sign) must be rejected")
def _control_bias() -> RateCheck:
    return _rate_claim(bias_sign_control, replicates=5)


@claim("representation/eigenvalues", chapter=CHAPTER, label="thm-spectrum",
       statement="λ_(k,j) closed form = Funk–Hecke quadrature (Chebyshev at d = 2)")
def _claim_eigen() -> RateCheck:
    return check_eigenvalues([2, 3, 4, 5], book_device.sizes(ci=6, full=10))


@claim("representation/control-gegenbauer-d2", chapter=CHAPTER, label="thm-spectrum", control=True,
       statement="control: Gegenbauer C^(0) at d = 2 (the trap) must be rejected")
def _control_gegenbauer() -> RateCheck:
    return check_eigenvalues([2, 3], 4, zonal="gegenbauer")


def _fischer_examples():
    x = sympy.symbols("x1:4", real=True)
    return [x[0] ** 2 * x[1] - 3 * x[1] * x[2] + x[2] ** 4 / 2 + 2 * x[0], (x[0] + x[1] - x[2]) ** 3], x


@claim("representation/fischer-identity", chapter=CHAPTER, label="thm-sharpened",
       statement="E[q_k(W)²] = σ^(2k)‖f_k‖_F² exactly")
def _claim_fischer() -> RateCheck:
    polys, x = _fischer_examples()
    return check_fischer_identity(polys, x, sigma=0.8)


@claim("representation/control-fischer-no-factorial", chapter=CHAPTER, label="thm-sharpened", control=True,
       statement="control: Fischer norm without α! must be rejected")
def _control_fischer() -> RateCheck:
    polys, x = _fischer_examples()
    return check_fischer_identity(polys, x, inner=sym.coefficient_inner)


def default_comparison_dimensions() -> list[int]:
    """Dimensions of the explicit-against-sharpened comparison: 2..10 at ``ci``, 2..50 at ``full`` (the explicit
    kernel :math:`T_\\mu^{-1}f_k` is dense, and its exact algebra takes 8 s in :math:`d = 20`, a minute in :math:`d = 50`)."""
    return book_device.sizes(ci=[2, 5, 10], full=[2, 5, 10, 20, 50])


def default_dimensions() -> list[int]:
    """Dimensions of the stability sweep: 2..50 at ``ci``, 2..200 at ``full``."""
    return book_device.sizes(ci=[2, 5, 10, 20, 50], full=[2, 5, 10, 20, 50, 100, 200])


def squared_norm_target(d: int):
    """The counterpoint :math:`|x|^2` in :math:`d` variables (Fischer norm :math:`\\sqrt{2d}`, yet :math:`\\equiv 1` on the sphere)."""
    variables = sympy.symbols(f"x1:{positive_int('d', d) + 1}", real=True)
    return sum(v**2 for v in variables), variables


@claim("representation/dimension-stability", chapter=CHAPTER, label="thm-monte-carlo",
       statement="B = Σ√M_k does not grow with d at fixed Fischer norms; √M_k/‖f_k‖_F <= C_k")
def _claim_stability() -> RateCheck:
    return check_dimension_stability(default_target, default_dimensions())


@claim("representation/counterpoint-squared-norm", chapter=CHAPTER, label="thm-monte-carlo", control=True,
       statement="counterpoint: |x|² (Fischer norm √(2d)): B grows with d, rejected")
def _control_squared_norm() -> RateCheck:
    return check_dimension_stability(squared_norm_target, default_dimensions())


def default_unbiasedness_sizes() -> dict[str, int]:
    """Width and replicates of the unbiasedness check: 100 networks of width 10^4 at ``ci``, of width 10^5 at ``full``."""
    return book_device.sizes(ci={"width": 10_000, "replicates": 100}, full={"width": 100_000, "replicates": 100})


def _unbiasedness_claim(build=sharpened_representation) -> RateCheck:
    poly, variables = default_target(default_dimension())
    return check_unbiasedness(poly, variables, **default_unbiasedness_sizes(), test_points=100, build=build)


NEAR_MISS_SCALE = 1.1  # the near-miss control: mean f_0 + 1.1(f − f_0), a construction off by 10%


@claim("representation/unbiased", chapter=CHAPTER, label="thm-sharpened",
       statement="the mean of the sampled networks is f: per-point z-test of 100 replicate networks, mean z² <= 4")
def _claim_unbiased() -> RateCheck:
    return _unbiasedness_claim()


@claim("representation/control-mean-off-10pc", chapter=CHAPTER, label="thm-sharpened", control=True,
       statement="control: networks whose mean is f_0 + 1.1(f − f_0) must be rejected by the z-test")
def _control_mean_scaled() -> RateCheck:
    return _unbiasedness_claim(mean_scaled_control(NEAR_MISS_SCALE))


def compare_constants(target: Callable[[int], tuple], ds: Sequence[int], *, inputs: str = "sphere",
                      sigma: float = 1.0) -> RateCheck:
    """The constants :math:`B = \\sum_k\\sqrt{M_k}` of the explicit representation (:func:`explicit_representation`) and
    of the sharpened one against :math:`d`, for ``target(d) -> (poly, variables)`` (deterministic :math:`M_k`).

    Measured: the largest ratio :math:`B_{\\rm explicit}/B_{\\rm sharpened}` over ``ds``; the check passes when it is
    :math:`\\le 1`, i.e. when the explicit representation's constant is no larger at every :math:`d` (an observation
    about this target, not a theorem). Log-log data: :math:`B_{\\rm explicit}` against :math:`d`. The notes also hold
    the constants of the explicit representation with weights on the sphere (:func:`explicit_sphere_representation`),
    which are not judged."""
    if not callable(target):
        raise TypeError(f"target must be a callable d -> (poly, variables), got {type(target).__name__}")
    if isinstance(ds, (str, bytes)) or not isinstance(ds, Sequence):
        raise TypeError(f"ds must be a sequence of ints, got {type(ds).__name__}")
    ds = [positive_int(f"ds[{i}]", d) for i, d in enumerate(ds)]
    if len(set(ds)) < 2:
        raise ValueError(f"ds must hold at least two distinct dimensions, got {ds}")
    input_law(inputs)
    builds = {"sharpened": sharpened_representation, "explicit": explicit_representation,
              "explicit, sphere weights": explicit_sphere_representation}
    constants: dict[str, list[float]] = {name: [] for name in builds}
    ratios: dict[str, dict[int, list[float]]] = {name: {} for name in builds}
    for d in ds:
        poly, variables = target(d)
        for name, build in builds.items():
            rep = build(poly, variables, sigma=sigma, inputs=inputs)
            constants[name].append(rep.rms_bound(inputs))
            for k, c in rep.constants(inputs).items():
                ratios[name].setdefault(k, []).append(c["ratio"])
    quotient = [e / s for e, s in zip(constants["explicit"], constants["sharpened"])]
    return rate_check(
        f"constants against d ({inputs}): explicit representation T_μ⁻¹ (Gaussian μ) against the sharpened one, d in {ds}",
        ds, constants["explicit"], expected=1.0, tolerance=0.0, sense="<=", measured=max(quotient),
        quantity="largest ratio B_explicit / B_sharpened over d",
        notes={"d": ds, "B sharpened": constants["sharpened"], "B explicit": constants["explicit"],
               "B explicit, sphere weights": constants["explicit, sphere weights"], "B_explicit / B_sharpened": quotient,
               **{f"√M_{k}/‖f_{k}‖_F ({name})": v for name, by_k in ratios.items() for k, v in by_k.items()}},
    )


@claim("representation/explicit-monte-carlo-rate", chapter=CHAPTER, label="thm-explicit",
       statement="the explicit representation (T_μ⁻¹, Gaussian μ) sampled through the same rate check passes it")
def _claim_explicit_rate() -> RateCheck:
    return _rate_claim(explicit_representation)


@claim("representation/explicit-sphere-monte-carlo-rate", chapter=CHAPTER, label="thm-explicit",
       statement="the explicit representation with weights on the sphere (T_μ⁻¹, uniform μ) passes the same rate check")
def _claim_explicit_sphere_rate() -> RateCheck:
    return _rate_claim(explicit_sphere_representation)


@claim("representation/explicit-vs-sharpened", chapter=CHAPTER, label="thm-explicit",
       statement="as measured on the chapter's polynomial: B_explicit <= B_sharpened at every d of the sweep")
def _claim_explicit_constants() -> RateCheck:
    return compare_constants(default_target, default_comparison_dimensions())
