"""Chapter 3, symbolic layer: exact polynomial algebra behind the sharpened ReLU representation.

Everything here is exact sympy arithmetic on polynomials :math:`f = \\sum_k f_k` in the variables
:math:`x = (x_1, \\dots, x_d)`, :math:`f_k \\in \\mathcal P_k` homogeneous of degree :math:`k`
(labels refer to ``book/03_sharpened_representation``):

* Fischer inner product (``def-fischer``): :math:`\\langle p, q\\rangle_F = \\sum_\\alpha \\alpha!\\, p_\\alpha q_\\alpha`;
* heat flow :math:`e^{t\\Delta/2} p = \\sum_m (t/2)^m \\Delta^m p / m!` (finite sum on polynomials); the
  *sharpening* is the backward flow :math:`q_k = e^{-\\sigma^2\\Delta/2} f_k` (``thm-sharpened``);
* harmonic projection and Fischer decomposition :math:`p = \\sum_m |x|^{2m} h_{k-2m}` (``thm-spectrum``);
* exact moments of :math:`N(0, \\sigma^2 I_d)`, the uniform law on :math:`S^{d-1}` and on the unit ball;
* the ReLU operator :math:`T_\\mu g(x) = \\int g(\\langle x, v\\rangle v)\\,\\mu(dv)`, its eigenvalues
  :math:`\\lambda_{k,j}(\\mu)` and its inverse (``def-relu-operator``, ``thm-spectrum``);
* the harmonic extension :math:`H(f)(x, y) = \\sum_m (-1)^m y^{2m} \\Delta^m f(x) / (2m)!` (``def-harmonic-extension``).

Conventions: ``variables`` is a sequence of distinct sympy symbols; a polynomial whose symbols are
not all among them, or that is not a polynomial with real coefficients, raises ``ValueError``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import sympy

from ..validate import int_at_least

LAWS = ("sphere", "gaussian", "ball")
MAX_VARIABLES = 800  # sympy's dense polynomials (Poly) recurse once per variable: d = 1000 reaches Python's default
#   recursion limit of 1000 (RecursionError), d = 900 works (20 s for x1² + x2); 800 leaves room for the caller's stack


def check_variables(variables) -> tuple[sympy.Symbol, ...]:
    """``variables`` as a tuple of distinct sympy symbols (at least one), else ``ValueError``/``TypeError``."""
    if isinstance(variables, (str, bytes)) or not isinstance(variables, Sequence):
        raise TypeError(f"variables must be a sequence of sympy Symbols, got {type(variables).__name__}")
    variables = tuple(variables)
    if not variables:
        raise ValueError("variables must contain at least one sympy Symbol, got none")
    for i, v in enumerate(variables):
        if not isinstance(v, sympy.Symbol):
            raise TypeError(f"variables[{i}] must be a sympy Symbol, got {v!r} ({type(v).__name__})")
    if len(set(variables)) != len(variables):
        raise ValueError(f"variables must be distinct, got {variables}")
    if len(variables) > MAX_VARIABLES:
        raise ValueError(f"variables must hold at most {MAX_VARIABLES} symbols (d <= {MAX_VARIABLES}): sympy's polynomials"
                         f" recurse once per variable and reach Python's recursion limit near d = 1000; got d ="
                         f" {len(variables)}")
    return variables


def as_poly(poly, variables) -> sympy.Poly:
    """``poly`` as a ``sympy.Poly`` in ``variables`` with real numeric coefficients, else ``ValueError``."""
    variables = check_variables(variables)
    if isinstance(poly, sympy.Poly):  # a Poly in some of the variables: its expression, checked like any other
        poly = poly.as_expr()
    try:
        expr = sympy.sympify(poly)
    except (sympy.SympifyError, TypeError) as error:
        raise ValueError(f"poly must be a sympy polynomial expression, got {poly!r}") from error
    if not isinstance(expr, sympy.Expr):
        raise ValueError(f"poly must be a sympy polynomial expression, got {poly!r} ({type(expr).__name__})")
    extra = expr.free_symbols - set(variables)
    same_name = sorted(str(e) for e in extra if str(e) in {str(v) for v in variables})
    if same_name:
        raise ValueError(f"poly has symbols {same_name} with the names of variables but other assumptions (a string is"
                         " parsed into symbols without assumptions, while the variables carry theirs): build it with"
                         " sympy.sympify(text, locals={str(v): v for v in variables})")
    if extra:
        raise ValueError(f"poly has symbols {sorted(map(str, extra))} that are not among the {len(variables)}"
                         f" variables {[str(v) for v in variables]}; the variable count must match the polynomial")
    try:
        result = sympy.Poly(expr, *variables)
    except sympy.PolynomialError as error:
        raise ValueError(f"poly must be a polynomial in {[str(v) for v in variables]}, got {expr}") from error
    for coeff in result.coeffs():
        if not (coeff.is_number and coeff.is_real):
            raise ValueError(f"poly must have real numeric coefficients, got coefficient {coeff} in {expr}")
    return result


def exact_rationals(poly, variables) -> sympy.Expr:
    """``poly`` with every float coefficient replaced by the rational of its shortest decimal form
    (``sympy.nsimplify(c, rational=True)``: ``0.1`` becomes ``1/10``), so that identities can be checked exactly."""
    p = as_poly(poly, variables)
    return sympy.Add(*((sympy.nsimplify(c, rational=True) if c.has(sympy.Float) else c) * sympy.Mul(*(v**a for v, a in zip(p.gens, m)))
                       for m, c in p.terms()))


def homogeneous_parts(poly, variables) -> dict[int, sympy.Expr]:
    """The decomposition :math:`f = \\sum_k f_k`, :math:`f_k \\in \\mathcal P_k`, as ``{k: f_k}`` (nonzero parts only),
    with float coefficients read exactly (:func:`exact_rationals`): every construction built on the parts (the exact
    division by :math:`|x|^2` of :func:`harmonic_decomposition` included) then works in exact arithmetic."""
    p = as_poly(exact_rationals(poly, variables), variables)
    parts: dict[int, sympy.Expr] = {}
    for monom, coeff in p.terms():
        if coeff == 0:  # sympy lists the zero polynomial as one zero term
            continue
        k = sum(monom)
        parts[k] = parts.get(k, sympy.Integer(0)) + coeff * sympy.Mul(*(v**a for v, a in zip(p.gens, monom)))
    return dict(sorted(parts.items()))


def fischer_inner(p, q, variables) -> sympy.Expr:
    """Exact :math:`\\langle p, q\\rangle_F = p(\\partial)q|_{x=0} = \\sum_\\alpha \\alpha!\\, p_\\alpha q_\\alpha` (``def-fischer``)."""
    pp, qq = as_poly(p, variables).as_dict(), as_poly(q, variables).as_dict()
    total = sympy.Integer(0)
    for monom, coeff in pp.items():
        if monom in qq:
            total += coeff * qq[monom] * sympy.Mul(*(sympy.factorial(a) for a in monom))
    return total


def gaussian_inner(p, q, variables, sigma=1) -> sympy.Expr:
    """Exact :math:`E_{W\\sim N(0,\\sigma^2I)}[p(W)q(W)] = \\langle e^{\\Delta/2}p(\\sigma\\,\\cdot), e^{\\Delta/2}q(\\sigma\\,\\cdot)\\rangle_F`
    (``def-fischer``: :math:`e^{-\\Delta/2}x^\\alpha` are the Hermite polynomials, orthogonal with norms :math:`\\alpha!`),
    linear in the number of terms where the expanded product is quadratic."""
    variables = check_variables(variables)
    s = _positive(sigma)

    def smoothed(r):
        scaled = as_poly(r, variables).as_expr().subs({v: s * v for v in variables}, simultaneous=True)
        return heat_flow(scaled, variables, 1)

    return fischer_inner(smoothed(p), smoothed(q), variables)


def coefficient_inner(p, q, variables) -> sympy.Expr:
    """Negative control for :func:`fischer_inner`: :math:`\\sum_\\alpha p_\\alpha q_\\alpha`, the factor :math:`\\alpha!` dropped."""
    pp, qq = as_poly(p, variables).as_dict(), as_poly(q, variables).as_dict()
    return sympy.Add(*(coeff * qq[monom] for monom, coeff in pp.items() if monom in qq))


def _laplacian_dict(terms: dict) -> dict:
    """:math:`\\Delta` on a sparse ``{exponents: coefficient}`` dictionary: :math:`\\partial_i^2 x^\\alpha = \\alpha_i(\\alpha_i - 1)x^{\\alpha - 2e_i}`."""
    out: dict = {}
    for monom, coeff in terms.items():
        for i, a in enumerate(monom):
            if a >= 2:
                lowered = monom[:i] + (a - 2,) + monom[i + 1:]
                out[lowered] = out.get(lowered, 0) + coeff * a * (a - 1)
    return {m: c for m, c in out.items() if c != 0}


def _from_dict(terms: dict, variables) -> sympy.Expr:
    return sympy.Add(*(c * sympy.Mul(*(v**a for v, a in zip(variables, m))) for m, c in terms.items()))


def laplacian(p, variables) -> sympy.Expr:
    """:math:`\\Delta p = \\sum_i \\partial_i^2 p` (on the sparse coefficient dictionary: fast in high :math:`d`)."""
    variables = check_variables(variables)
    return _from_dict(_laplacian_dict(as_poly(p, variables).as_dict()), variables)


def heat_flow(p, variables, time) -> sympy.Expr:
    """:math:`e^{t\\Delta/2} p = \\sum_{m \\ge 0} (t/2)^m \\Delta^m p / m!` (a finite sum on polynomials).

    ``time`` :math:`t` may be negative: :math:`t = -\\sigma^2` is the backward flow that sharpens
    :math:`f_k` into :math:`q_k` (``thm-sharpened``); :math:`e^{t\\Delta/2}` is the Gaussian smoothing
    :math:`E[p(x + \\sqrt t Z)]` for :math:`t > 0`.
    """
    variables = check_variables(variables)
    time = sympy.nsimplify(time) if isinstance(time, float) else sympy.sympify(time)
    term, total, m = as_poly(p, variables).as_dict(), {}, 0
    while term:
        factor = (time / 2) ** m / sympy.factorial(m)
        for monom, coeff in term.items():
            total[monom] = total.get(monom, 0) + factor * coeff
        term, m = _laplacian_dict(term), m + 1
    return sympy.expand(_from_dict({k: c for k, c in total.items() if c != 0}, variables))


def sharpen(p, variables, sigma=1) -> sympy.Expr:
    """The sharpened representative :math:`q = e^{-\\sigma^2\\Delta/2} p` (backward heat flow)."""
    return heat_flow(p, variables, -_positive(sigma) ** 2)


def _positive(sigma):
    value = sympy.nsimplify(sigma) if isinstance(sigma, float) else sympy.sympify(sigma)
    if not (value.is_number and value.is_real and value > 0):
        raise ValueError(f"sigma must be a real number > 0, got {sigma!r}")
    return value


def _homogeneous(p, variables) -> tuple[sympy.Expr, int]:
    parts = homogeneous_parts(p, variables)
    if len(parts) > 1:
        raise ValueError(f"p must be homogeneous, got degrees {sorted(parts)} in {p}")
    if not parts:
        return sympy.Integer(0), 0
    (k, part), = parts.items()
    return part, k


def harmonic_projection(p, variables) -> sympy.Expr:
    """The harmonic part :math:`K[p] = \\sum_j c_j |x|^{2j}\\Delta^j p` of a homogeneous :math:`p \\in \\mathcal P_k`.

    :math:`c_0 = 1`, :math:`c_{j+1} = -c_j / (2(j+1)(d + 2k - 4 - 2j))`; :math:`K[p]` is harmonic and
    :math:`p - K[p]` is divisible by :math:`|x|^2` (Axler–Ramey).
    """
    variables = check_variables(variables)
    part, k = _homogeneous(p, variables)
    d, r2 = len(variables), sum(v**2 for v in variables)
    c, j, term, total = sympy.Integer(1), 0, part, sympy.Integer(0)
    while term != 0:
        total += c * r2**j * term
        c = -c / (2 * (j + 1) * (d + 2 * k - 4 - 2 * j))
        term, j = laplacian(term, variables), j + 1
    return sympy.expand(total)


def harmonic_decomposition(p, variables) -> list[tuple[int, int, sympy.Expr]]:
    """Fischer decomposition :math:`p = \\sum_k \\sum_m |x|^{2m} h_{k-2m}` with :math:`h_j \\in \\mathcal H_j`.

    Returns the nonzero pieces as ``(k, m, h)`` with :math:`h` harmonic of degree :math:`k - 2m`;
    each homogeneous part is peeled by :func:`harmonic_projection` and exact division by :math:`|x|^2`.
    """
    variables = check_variables(variables)
    return list(_harmonic_decomposition(as_poly(p, variables).as_expr(), variables))


@functools.lru_cache(maxsize=256)
def _harmonic_decomposition(p: sympy.Expr, variables: tuple) -> tuple:
    """:func:`harmonic_decomposition`, cached: the explicit kernels of both laws share it (the costly step in high d)."""
    r2 = sympy.Poly(sum(v**2 for v in variables), *variables)
    pieces = []
    for k, part in homogeneous_parts(p, variables).items():
        rest, m = part, 0
        while rest != 0:
            h = harmonic_projection(rest, variables)
            if h != 0:
                pieces.append((k, m, h))
            quotient, remainder = sympy.div(sympy.Poly(sympy.expand(rest - h), *variables), r2)
            if not remainder.is_zero:  # cannot happen for a correct projection; guards the recurrence
                raise ArithmeticError(f"p − K[p] is not divisible by |x|^2 for p = {rest}")
            rest, m = quotient.as_expr(), m + 1
    return tuple(pieces)


def gaussian_moment(alpha: Sequence[int], sigma=1) -> sympy.Expr:
    """:math:`E\\, w^\\alpha` for :math:`w \\sim N(0, \\sigma^2 I)`: :math:`\\prod_i \\sigma^{\\alpha_i}(\\alpha_i - 1)!!` if all :math:`\\alpha_i` are even, else 0."""
    if any(a % 2 for a in alpha):
        return sympy.Integer(0)
    sigma = _positive(sigma)
    return sympy.Mul(*(sigma**a * sympy.factorial2(a - 1) for a in alpha))


def _sphere_norm_moment(d: int, m: int) -> sympy.Expr:
    return sympy.Mul(*(sympy.Integer(d + 2 * i) for i in range(m)))


def moment(alpha: Sequence[int], law: str, sigma=1) -> sympy.Expr:
    """:math:`E\\, v^\\alpha` under ``law``: ``"gaussian"`` :math:`N(0,\\sigma^2 I)`, ``"sphere"`` uniform on
    :math:`S^{d-1}`, ``"ball"`` uniform on the unit ball (sphere moment times :math:`d/(d+|\\alpha|)`)."""
    alpha = tuple(int(a) for a in alpha)
    if law == "gaussian":
        return gaussian_moment(alpha, sigma)
    if law not in ("sphere", "ball"):
        raise ValueError(f"law must be one of {LAWS}, got {law!r}")
    total, d = sum(alpha), len(alpha)
    if total % 2:
        return sympy.Integer(0)
    value = gaussian_moment(alpha) / _sphere_norm_moment(d, total // 2)
    return value * sympy.Rational(d, d + total) if law == "ball" else value


def expectation(expr, variables, law: str, sigma=1) -> sympy.Expr:
    """:math:`E_v[\\text{expr}]` over ``variables`` :math:`v \\sim` ``law``; other symbols stay as parameters."""
    variables = check_variables(variables)
    if law not in LAWS:
        raise ValueError(f"law must be one of {LAWS}, got {law!r}")
    poly = sympy.Poly(sympy.expand(expr), *variables)
    return sympy.expand(sum((coeff * moment(monom, law, sigma) for monom, coeff in poly.terms()), sympy.Integer(0)))


def relu_operator(g, variables, law: str = "sphere", sigma=1) -> sympy.Expr:
    """:math:`T_\\mu g(x) = E_{v\\sim\\mu}[g(\\langle x, v\\rangle v)] = \\sum_k E_v[\\langle x, v\\rangle^k g_k(v)]` (``def-relu-operator``),
    computed with exact moments; ``law`` is ``"sphere"`` or ``"gaussian"`` (scale ``sigma``)."""
    if law not in ("sphere", "gaussian"):
        raise ValueError(f"law must be 'sphere' or 'gaussian', got {law!r}")
    variables = check_variables(variables)
    v = sympy.symbols(f"v0:{len(variables)}", real=True)
    inner = sum(a * b for a, b in zip(variables, v))
    total = sympy.Integer(0)
    for k, part in homogeneous_parts(g, variables).items():
        total += expectation(inner**k * part.subs(dict(zip(variables, v)), simultaneous=True), v, law, sigma)
    return sympy.expand(total)


def eigenvalue_indices(k, j) -> tuple[int, int]:
    """``(k, j)`` validated as the indices of an eigenvalue :math:`\\lambda_{k,j}` of ``thm-spectrum``: ints with
    :math:`0 \\le j \\le k` and :math:`k - j` even (elsewhere :math:`\\lambda_{k,j}` is not defined), else a named error."""
    k, j = int_at_least("k", k, 0), int_at_least("j", j, 0)
    if j > k or (k - j) % 2:
        raise ValueError(f"need j <= k with k - j even, got k={k}, j={j}")
    return k, j


def eigenvalue(k: int, j: int, d: int, law: str = "sphere", sigma=1) -> sympy.Expr:
    """Exact :math:`\\lambda_{k,j}(\\mu)` with :math:`T_\\mu(|x|^{2m}h_j) = \\lambda_{k,j}|x|^{2m}h_j`, :math:`k = j + 2m` (``thm-spectrum``).

    :math:`\\lambda_{k,j} = E_\\mu|v|^{2k}\\, k!\\,\\Gamma(d/2) / (2^k m!\\,\\Gamma(j + m + d/2))`; for the sphere
    :math:`E|v|^{2k} = 1`, for :math:`N(0,\\sigma^2 I)` it is :math:`\\sigma^{2k}2^k\\Gamma(k+d/2)/\\Gamma(d/2)`, so that
    :math:`\\lambda_{k,j} = \\sigma^{2k}k!\\,\\Gamma(k+d/2)/(m!\\,\\Gamma(k-m+d/2))`.
    """
    k, j = eigenvalue_indices(k, j)
    d = int_at_least("d", d, 1)
    m, half = (k - j) // 2, sympy.Rational(d, 2)
    base = sympy.factorial(k) / (2**k * sympy.factorial(m) * sympy.rf(half, j + m))
    if law == "sphere":
        return base
    if law == "gaussian":
        return base * _positive(sigma) ** (2 * k) * 2**k * sympy.rf(half, k)
    raise ValueError(f"law must be 'sphere' or 'gaussian', got {law!r}")


def inverse_relu_operator(f, variables, law: str = "sphere", sigma=1) -> sympy.Expr:
    """:math:`T_\\mu^{-1} f = \\sum |x|^{2m} h_{k-2m} / \\lambda_{k,k-2m}` over the Fischer decomposition of :math:`f`."""
    variables = check_variables(variables)
    r2 = sum(v**2 for v in variables)
    return sympy.expand(sum((r2**m * h / eigenvalue(k, k - 2 * m, len(variables), law, sigma)
                             for k, m, h in harmonic_decomposition(f, variables)), sympy.Integer(0)))


def ridge_moment(q, variables, k: int, sigma=1) -> sympy.Expr:
    """:math:`E_{W\\sim N(0,\\sigma^2I)}[\\langle x, W\\rangle^k q(W)]` as a polynomial in :math:`x`, exactly and without
    expanding :math:`\\langle x, W\\rangle^k`: with :math:`E_{N(0,I)}[pr] = \\langle e^{\\Delta/2}p, e^{\\Delta/2}r\\rangle_F` and the
    reproducing property :math:`\\langle\\langle x,\\cdot\\rangle^j, h\\rangle_F = j!\\,h(x)` (``def-fischer``),
    :math:`E[\\langle x, W\\rangle^k q(W)] = \\sigma^k k!\\sum_m \\frac{(|x|^2/2)^m}{m!}\\big[e^{\\Delta/2}q(\\sigma\\,\\cdot)\\big]_{k-2m}(x)`,
    :math:`[\\cdot]_j` the degree-:math:`j` part. For the sharpened kernel it is :math:`k!\\sigma^{2k}f_k` (``thm-sharpened``)."""
    variables = check_variables(variables)
    k = int_at_least("k", k, 0)
    s = _positive(sigma)
    scaled = as_poly(q, variables).as_expr().subs({v: s * v for v in variables}, simultaneous=True)
    parts = homogeneous_parts(heat_flow(scaled, variables, 1), variables)
    r2 = sum(v**2 for v in variables)
    total = sum((r2**m / (2**m * sympy.factorial(m)) * parts[k - 2 * m] for m in range(k // 2 + 1) if k - 2 * m in parts),
                sympy.Integer(0))
    return sympy.expand(s**k * sympy.factorial(k) * total)


def harmonic_extension(f, variables, y: sympy.Symbol) -> sympy.Expr:
    """:math:`H(f)(x, y) = \\sum_{m\\ge0} (-1)^m y^{2m}\\Delta^m f(x)/(2m)!` (":math:`\\cos(y\\sqrt\\Delta) f`"), harmonic on
    :math:`\\mathbb R^{d+1}` with :math:`H(f)(x, 0) = f(x)` (``def-harmonic-extension``)."""
    variables = check_variables(variables)
    if not isinstance(y, sympy.Symbol) or y in variables:
        raise ValueError(f"y must be a sympy Symbol not among the variables, got {y!r}")
    term, total, m = as_poly(f, variables).as_expr(), sympy.Integer(0), 0
    while term != 0:
        total += (-1) ** m * y ** (2 * m) * term / sympy.factorial(2 * m)
        term, m = laplacian(term, variables), m + 1
    return sympy.expand(total)
