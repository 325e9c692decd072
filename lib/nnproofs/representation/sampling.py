"""Chapter 3: the representations (``thm-sharpened``, ``thm-explicit``) and their width-:math:`n` Monte Carlo networks.

For :math:`f = f_0 + \\sum_{k=1}^K f_k` (:math:`f_k` homogeneous of degree :math:`k`) and :math:`\\sigma > 0` the
*sharpened representation* holds for every :math:`x \\in \\mathbb R^d`:

.. math::
   f(x) = f_0 + E\\big[u_1(W)\\rho(\\langle W, x\\rangle)\\big] + \\sum_{k \\ge 2} E\\big[u_k(W, S_k)\\,\\rho(\\langle W, x\\rangle - S_k)\\big],

with :math:`W \\sim N(0, \\sigma^2 I_d)`, :math:`S_k \\sim p_k = \\beta\\chi_{k-1}` independent of :math:`W`,
:math:`q_k = e^{-\\sigma^2\\Delta/2} f_k` (backward heat flow), :math:`u_1(w) = 2 f_1(w)/\\sigma^2` and
:math:`u_k(w, s) = 2 q_k(w) s^{k-2} / ((k-2)!\\,\\sigma^{2k} p_k(s))`. Every bias :math:`-S_k` is :math:`\\le 0`.
The width-:math:`n` network (``thm-monte-carlo``) draws a degree :math:`k` with probability :math:`\\pi_k \\propto \\sqrt{M_k}`,
then :math:`(W, S_k)`, and averages :math:`u_k/\\pi_k \\cdot \\rho(\\langle W, x\\rangle - S_k)`; its exact mean-square error
is :math:`((\\sum_k\\sqrt{M_k})^2 - \\|f-f_0\\|^2)/n`. The explicit representations use the same neurons with the kernel
:math:`k!\\sigma^{2k}T_\\mu^{-1}f_k` (Gaussian :math:`\\mu`) or :math:`k!\\,T_\\mu^{-1}f_k` with :math:`W` uniform on the sphere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import sympy
import torch
from torch import nn

from .. import budget
from .. import device as book_device
from ..measure import input_law, sample_inputs
from ..networks import relu_network
from ..validate import finite_real, positive_int
from . import symbolic as sym
from .moments import (
    MAX_DEGREE,
    MOMENT_MAX_DIMENSION,
    _bias_normaliser,
    _scales,
    _sparse_square,
    _sphere_moments_of_square,
    dimension_free_constant,
    dimension_free_limit,
    fischer_norm,
    radial_second_moment,
    relu_square_integral,
    sphere_weight_moment,
)


class _TorchPolynomial:
    """A sympy polynomial evaluated on a ``(N, d)`` tensor, term by term (cheap for sparse polynomials in high d); the
    powers :math:`x_i^a` that the terms use are computed once per call."""

    def __init__(self, poly: sympy.Poly):
        self.terms = [(float(c), [(i, a) for i, a in enumerate(m) if a]) for m, c in poly.terms()]
        self.powers = sorted({factor for _, factors in self.terms for factor in factors})

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        power = {(i, a): x[:, i] ** a for i, a in self.powers}
        out = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
        for coeff, factors in self.terms:
            if not factors:
                out += coeff
                continue
            term = power[factors[0]]
            for factor in factors[1:]:
                term = term * power[factor]
            out.add_(term, alpha=coeff)
        return out


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
        self._validate()
        self._kernel_eval = {k: _TorchPolynomial(sympy.Poly(q, *self.variables)) for k, q in self.kernels.items()}
        try:
            m = self.second_moments(self.inputs)
        except OverflowError:  # σ^(4k), (k-2)!² or a moment beyond float64
            m = {k: math.inf for k in self.kernels}
        bad = {k: v for k, v in m.items() if not (math.isfinite(v) and v > 0)}  # f_k != 0 has M_k > 0
        if bad:
            raise ValueError(f"the second moments M_k = {bad} of nonzero parts are not finite and positive in float64"
                             f" (sigma = {self.sigma!r}, coefficients too large or too small): rescale poly, the"
                             " representation of c·f is c times that of f")
        total = sum(math.sqrt(v) for v in m.values())
        self.weights = {k: math.sqrt(v) / total for k, v in m.items()} if total > 0 else {}

    def _validate(self) -> None:
        """Every field checked, with errors that name it (the factories fill them correctly; a reader may not)."""
        self.variables = sym.check_variables(self.variables)
        self.sigma, self.beta = _scales(self.sigma, self.beta)
        self.constant = finite_real("constant", self.constant)
        for name in ("parts", "kernels"):
            table = getattr(self, name)
            if not isinstance(table, dict) or not all(isinstance(k, int) and 1 <= k <= MAX_DEGREE for k in table):
                raise TypeError(f"{name} must be a dict {{degree 1..{MAX_DEGREE}: sympy polynomial}}, got {table!r}")
            for k, p in table.items():
                sym.as_poly(p, self.variables)  # a polynomial in variables, else a ValueError
        if set(self.parts) != set(self.kernels):
            raise ValueError(f"kernels must have the degrees of parts {sorted(self.parts)}, got {sorted(self.kernels)}")
        self.inputs = input_law(self.inputs)
        if self.bias_sign not in (-1.0, 1.0) or isinstance(self.bias_sign, bool):
            raise ValueError(f"bias_sign must be -1 (the representation) or +1 (the control), got {self.bias_sign!r}")
        self.output_scale = finite_real("output_scale", self.output_scale)
        if self.output_scale <= 0:
            raise ValueError(f"output_scale must be > 0, got {self.output_scale!r}")
        if not isinstance(self.device, (torch.device, str)):
            raise TypeError(f"device must be a torch.device or a string such as 'cpu', got {self.device!r}")
        try:
            self.device = torch.device(self.device)
        except RuntimeError as error:
            raise ValueError(f"device must name a torch device, got {self.device!r}") from error
        if self.weight_law not in ("gaussian", "sphere"):
            raise ValueError(f"weight_law must be 'gaussian' or 'sphere', got {self.weight_law!r}")

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
            self._m_cache[key] = self._squared_norm(sum(self.parts.values(), sympy.Integer(0)), inputs)
        return self._m_cache[key]

    def part_variances(self, inputs: str = "sphere") -> dict[int, float]:
        """:math:`\\|f_k\\|^2_{L^2(D)}` of each homogeneous part, exact by sphere/ball moments. Cached per ``inputs``."""
        key = f"part variances/{input_law(inputs)}"
        if key not in self._m_cache:
            self._m_cache[key] = {k: self._squared_norm(part, inputs) for k, part in self.parts.items()}
        return dict(self._m_cache[key])

    def _squared_norm(self, poly, inputs: str) -> float:
        """:math:`\\|p\\|^2_{L^2(D)}` of a polynomial in ``variables``: the exact moments of its square's terms."""
        square = _sparse_square(sympy.Poly(poly, *self.variables).terms())
        return float(sum(c * sym.moment(m, inputs) for m, c in square.items()))

    def parts_at(self, x: torch.Tensor) -> dict[int, torch.Tensor]:
        """:math:`f_k(x)` of each homogeneous part on a ``(N, d)`` tensor (exact polynomial evaluation in float64)."""
        return {k: _TorchPolynomial(sympy.Poly(part, *self.variables))(x) for k, part in self.parts.items()}

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
        """Whether the networks' mean is :math:`f`, exactly: every kernel :math:`q_k` has the parity of :math:`k`, so
        that :math:`E[q_k(W)\\langle x, W\\rangle_+^k] = \\tfrac12 E[q_k(W)\\langle x, W\\rangle^k]` and the neurons'
        mean is :math:`E[\\langle x, W\\rangle^k q_k(W)]/(k!\\sigma^{2k})`; that mean is :math:`f_k`
        (:func:`representation_symbolic.ridge_moment`, with :math:`|W| = 1` for sphere weights); every bias is
        :math:`-S \\le 0` and the output weights are unscaled. Cached.

        Notes
        -----
        A kernel with a term of the other parity is refused even where that term's mean (not a polynomial) vanishes:
        the check reads the construction of ``thm-sharpened``."""
        if "represents" not in self._m_cache:
            s, d = sympy.nsimplify(self.sigma), self.dimension
            ridge_scale = 1 if self.weight_law == "sphere" else s  # the sampler's W: θ on the sphere, or σZ
            exact = all(_has_parity(q, self.variables, k) and sympy.expand(
                sym.ridge_moment(q, self.variables, k, ridge_scale) / _uniform_factor(self.weight_law, q, k, d)
                - sympy.factorial(k) * s ** (2 * k) * self.parts[k]) == 0 for k, q in self.kernels.items())
            self._m_cache["represents"] = exact and self.bias_sign == -1.0 and self.output_scale == 1.0
        return self._m_cache["represents"]

    def rms_bound(self, inputs: str = "sphere") -> float:
        """:math:`B = \\sum_k \\sqrt{M_k}`: some width-``n`` network has :math:`\\|f_n - f\\|_{L^2(D)} \\le B/\\sqrt n`."""
        return sum(math.sqrt(v) for v in self.second_moments(input_law(inputs)).values())

    def centred_target(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`f(x) - f_0` on a ``(N, d)`` tensor, without the constant term (exact polynomial evaluation in float64):
        the checks compare it with :math:`f_n - f_0`, so that a constant of :math:`10^{16}` costs no digits."""
        return _TorchPolynomial(sympy.Poly(sum(self.parts.values(), sympy.Integer(0)), *self.variables))(x)

    def target(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`f(x)` on a ``(N, d)`` tensor (exact polynomial evaluation in float64)."""
        poly = sympy.Poly(sum(self.parts.values(), sympy.Integer(0)) + self.constant, *self.variables)
        return _TorchPolynomial(poly)(x)


def _has_parity(q, variables, k: int) -> bool:
    """Whether every monomial of ``q`` has a degree of the parity of ``k`` (:math:`q(-w) = (-1)^k q(w)`)."""
    return all((sum(m) - k) % 2 == 0 for m in sympy.Poly(q, *variables).monoms())


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
    exact_sigma = sigma  # a sympy number (sqrt(2), Rational(1, 3)) stays exact in the kernels
    sigma, beta = _scales(sigma, beta)
    input_law(inputs)
    if len(variables) > MOMENT_MAX_DIMENSION:
        raise ValueError(f"variables must hold at most {MOMENT_MAX_DIMENSION} symbols (the quadrature of the second"
                         f" moments), got {len(variables)}")
    parts = sym.homogeneous_parts(poly, variables)
    if max(parts, default=0) > MAX_DEGREE:
        raise ValueError(f"poly must have degree <= {MAX_DEGREE} (σ^(4k) and (k-2)!² in float64), got {max(parts)}")
    budget.refuse_beyond("poly", poly, cost=_kernel_cost(parts, len(variables), kernel), limit=SYMBOLIC_WORK * budget.factor(),
                         unit="kernel terms")
    constant = finite_real("poly's constant term", parts.pop(0, 0))
    s2 = sym._positive(exact_sigma) ** 2
    kernels = {k: part if k == 1 and kernel != "explicit sphere" else KERNELS[kernel](part, variables, k, s2)
               for k, part in parts.items()}
    return SharpenedRepresentation(variables, sigma, beta, constant, parts, kernels, inputs, bias_sign, output_scale,
                                   device if device is not None else book_device.device(), weight_law)


SYMBOLIC_WORK = 4e5  # kernel terms a build may form (times budget.factor()): the explicit kernels of the chapter's
#   polynomial have 2.9e5 dense terms in d = 50 (about a minute), the sharpened ones a few hundred


def _kernel_cost(parts: dict, d: int, kernel: str) -> int:
    """Terms the kernels of ``parts`` may have, before they are formed (Python ints): the explicit kernels are dense
    in :math:`\\mathcal P_k` (:math:`\\binom{d+k-1}{k}` terms), a heat flow of a part of :math:`T` terms has at most
    :math:`T\\cdot 2^k` (the monomials dividing each term), the other kernels :math:`T`."""
    total = 0
    for k, part in parts.items():
        if k == 0:
            continue
        if kernel.startswith("explicit"):
            total += math.comb(d + k - 1, k)
        else:
            total += len(sympy.Add.make_args(sympy.expand(part))) * (2**k if kernel != "unsharpened" else 1)
    return total


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
    """The sharpened representation of ``poly`` (``thm-sharpened``): kernels :math:`q_k = e^{-\\sigma^2\\Delta/2}f_k`.

    Weights :math:`W \\sim N(0, \\sigma^2 I)`, biases :math:`-S_k \\le 0` with :math:`S_k \\sim \\beta\\chi_{k-1}`,
    output weights :math:`u_k(W, S_k)` of ``eq-sharpened``.

    Parameters
    ----------
    poly : sympy expression or sympy.Poly
        A polynomial in ``variables`` of degree at most ``MAX_DEGREE`` (float coefficients are read as the
        rationals of their decimal forms).
    variables : sequence of sympy.Symbol
        Its variables, at most ``MOMENT_MAX_DIMENSION`` of them.
    sigma : float
        The scale :math:`\\sigma` of the Gaussian weights.
    beta : float or None
        The scale of the bias law :math:`\\beta\\chi_{k-1}`; default :math:`2\\sigma`.
    inputs : {"sphere", "ball"}
        The input law :math:`D` of the mixture weights :math:`\\pi_k \\propto \\sqrt{M_k}`.
    device : torch.device or str or None
        Where :meth:`SharpenedRepresentation.sample` draws (default: the book's device).

    Returns
    -------
    SharpenedRepresentation
        Its :meth:`~SharpenedRepresentation.sample` gives width-``n`` networks ``Sequential(Linear, ReLU, Linear)``
        in float64; :meth:`~SharpenedRepresentation.predicted_mse` their exact mean-square error.

    Examples
    --------
    >>> import sympy, torch
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:4")
    >>> net = rep.sharpened_representation(x[0] ** 2 - x[1], x).sample(100, generator=torch.Generator().manual_seed(0))
    >>> bool((net[0].bias <= 0).all())
    True

    Notes
    -----
    Budget: at most ``SYMBOLIC_WORK`` × :func:`nnproofs.budget.factor` kernel terms, else a ValueError naming
    ``poly``.
    """
    return _build(poly, variables, sigma=sigma, beta=beta, inputs=inputs, device=device)


def explicit_representation(poly, variables: Sequence[sympy.Symbol], *, sigma: float = 1.0, beta: float | None = None,
                            inputs: str = "sphere", device=None) -> SharpenedRepresentation:
    """The explicit representation through :math:`T_\\mu^{-1}`, :math:`\\mu = N(0, \\sigma^2 I)` (``thm-explicit``).

    The neurons and bias law of :func:`sharpened_representation`, with the homogeneous kernel
    :math:`g_k = k!\\,\\sigma^{2k}\\,T_\\mu^{-1}f_k` in place of :math:`q_k` (its :math:`L^2(\\mu)` projection onto
    :math:`\\mathcal P_k`, ``prop-explicit-bound``).

    Parameters
    ----------
    poly, variables, beta, inputs, device
        As for :func:`sharpened_representation`.
    sigma : float
        The scale :math:`\\sigma` of the Gaussian weights.

    Returns
    -------
    SharpenedRepresentation
        As for :func:`sharpened_representation`.

    Examples
    --------
    >>> import sympy
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:4")
    >>> rep.explicit_representation(x[0] ** 2 - x[1], x).represents_target()
    True

    Notes
    -----
    Budget: at most ``SYMBOLIC_WORK`` × :func:`nnproofs.budget.factor` kernel terms, else a ValueError naming
    ``poly``.
    """
    return _build(poly, variables, sigma=sigma, beta=beta, inputs=inputs, kernel="explicit", device=device)


def explicit_sphere_representation(poly, variables: Sequence[sympy.Symbol], *, sigma: float = 1.0,
                                   beta: float | None = None, inputs: str = "sphere", device=None) -> SharpenedRepresentation:
    """The explicit representation with weights uniform on the sphere (``thm-explicit``, :math:`\\mu = U(S^{d-1})`).

    :math:`f_k(x) = E[\\langle x, V\\rangle^kg_k(V)]` with :math:`g_k = T_\\mu^{-1}f_k` becomes
    :math:`E[u_k(V, S)\\rho(\\langle V, x\\rangle - S)]`: the neurons of :func:`sharpened_representation` with
    :math:`\\sigma = 1`, the kernel :math:`k!\\,g_k` and :math:`W` uniform on :math:`S^{d-1}`.

    Parameters
    ----------
    poly, variables, beta, inputs, device
        As for :func:`sharpened_representation`.
    sigma : float
        Must be 1: the weights have unit length.

    Returns
    -------
    SharpenedRepresentation
        As for :func:`sharpened_representation`.

    Examples
    --------
    >>> import sympy
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:4")
    >>> rep.explicit_sphere_representation(x[0] ** 2 - x[1], x).constants()[1]["ratio"]  # doctest: +ELLIPSIS
    1.414...

    Notes
    -----
    Budget: at most ``SYMBOLIC_WORK`` × :func:`nnproofs.budget.factor` kernel terms, else a ValueError naming
    ``poly``.
    """
    if finite_real("sigma", sigma) != 1.0:
        raise ValueError(f"sigma must be 1 for sphere weights (|W| = 1), got {sigma!r}")
    return _build(poly, variables, sigma=1.0, beta=beta, inputs=inputs, kernel="explicit sphere", device=device,
                  weight_law="sphere")
