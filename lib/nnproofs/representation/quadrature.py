"""Chapter 3: quadrature checks independent of the sampling code: the representation at a point, and the eigenvalues
of :math:`T_\\mu` by the Funk–Hecke integral (``thm-sharpened``, ``thm-spectrum``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy
from scipy import integrate

from .. import budget
from ..validate import finite_real, int_at_least
from . import symbolic as sym
from .moments import _scales
from .sampling import KERNELS

QUADRATURE_MAX_NODES = 5e5  # representation_quadrature: (deg/2 + 2)^(d-1) nodes × parts; 4^8 × 4 = 2.6e5 (d = 9) took
#   105 s on a machine loaded fivefold (about 25 s alone); 4^9 × 4 (d = 10) took 28 s alone
FUNK_HECKE_MAX_DEGREE = 400  # k + j of funk_hecke_eigenvalue: exact rationals of degree 400 take about 0.1 s

def representation_quadrature(poly, variables, point: Sequence[float], *, sigma: float = 1.0,
                              kernel: str = "sharpened") -> float:
    """The right-hand side of ``thm-sharpened`` at ``point`` by quadrature, in its density-free form
    :math:`f_0 + E_W[2f_1(W)\\rho(\\langle W, x\\rangle)]/\\sigma^2 + \\sum_{k\\ge2}E_W\\int_0^\\infty \\frac{2q_k(W)s^{k-2}}{(k-2)!\\sigma^{2k}}\\rho(\\langle W,x\\rangle - s)\\,ds`.

    :math:`W = \\sigma Q z` with :math:`Q` orthogonal and :math:`Qe_1 = x/|x|`, so :math:`\\langle W, x\\rangle = \\sigma|x|z_1`:
    Gauss–Hermite in :math:`z_2, \\dots, z_d` (exact for these polynomial degrees), QUADPACK in :math:`z_1 > 0`
    and in :math:`s`. Independent of the sampling code; used to check exactness to :math:`10^{-8}`. ``kernel`` names
    the :math:`q_k` of :data:`KERNELS` (``"explicit"``: ``thm-explicit``). Budget: :math:`(\\deg/2 + 2)^{d-1}` nodes
    times the number of parts within ``QUADRATURE_MAX_NODES`` × :func:`nnproofs.budget.factor`.

    Parameters
    ----------
    poly : sympy expression
        A polynomial in ``variables``.
    variables : sequence of sympy.Symbol
        Its variables.
    point : sequence of float
        The input :math:`x`, one coordinate per variable, anywhere in :math:`\\mathbb R^d`.
    sigma : float
        The scale of the Gaussian weights.
    kernel : str
        A name in :data:`KERNELS`.

    Returns
    -------
    float
        The representation's value at ``point``; for a representation, ``poly(point)`` to about :math:`10^{-12}`.

    Examples
    --------
    >>> import sympy
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:3")
    >>> round(rep.representation_quadrature(x[0] ** 2 * x[1] + 1, x, [0.5, -2.0]), 8)
    0.5
    """
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {tuple(KERNELS)}, got {kernel!r}")
    variables = sym.check_variables(variables)
    if isinstance(point, (str, bytes)) or not isinstance(point, Sequence) or len(point) != len(variables):
        raise ValueError(f"point must be a sequence of {len(variables)} coordinates (one per variable), got {point!r}")
    x = np.asarray([finite_real(f"point[{i}]", v) for i, v in enumerate(point)], dtype=np.float64)
    sigma = _scales(sigma, None)[0]
    parts = sym.homogeneous_parts(poly, variables)
    nodes = max(parts, default=0) // 2 + 2
    for name, value in (("variables", f"{len(variables)} symbols"), ("poly", poly)):
        budget.refuse_beyond(name, value, cost=nodes ** (len(variables) - 1) * len(parts),
                             limit=QUADRATURE_MAX_NODES * budget.factor(), unit="Gauss–Hermite nodes × parts")
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


def funk_hecke_eigenvalue(k: int, j: int, d: int, *, zonal: str = "chebyshev") -> sympy.Rational:
    """:math:`\\lambda_{k,j}` of the sphere law by the Funk–Hecke integral
    :math:`c_d\\int_{-1}^1 t^k P_{j,d}(t)(1-t^2)^{(d-3)/2}dt`, integrated exactly: with :math:`P_{j,d}(t) = \\sum_m a_mt^m`
    (rational :math:`a_m`), the integral is :math:`\\sum_m a_m E[\\tau^{k+m}]`, :math:`\\tau` one coordinate of
    :math:`U(S^{d-1})`, :math:`E\\tau^{2p} = (2p-1)!!/(d(d+2)\\cdots(d+2p-2))`; an exact rational, independent of the
    Gamma ratio of ``thm-spectrum``. :math:`P_{j,d} = C_j^{(d-2)/2}/C_j^{(d-2)/2}(1)`; at :math:`d = 2` the Gegenbauer
    parameter is 0 and the normalised limit is Chebyshev :math:`T_j` (``zonal="chebyshev"``); ``zonal="gegenbauer"``
    evaluates the Gegenbauer formula as written, and at :math:`d = 2`, :math:`j \\ge 1` raises a ValueError naming
    ``zonal`` (the *trap*: :math:`C_j^{(0)} \\equiv 0`, so :math:`0/0`). Budget: :math:`k + j \\le` ``FUNK_HECKE_MAX_DEGREE``.

    Parameters
    ----------
    k, j : int
        :math:`0 \\le j \\le k`, :math:`k - j` even.
    d : int
        The dimension, ``>= 2``.
    zonal : {"chebyshev", "gegenbauer"}
        The zonal polynomial.

    Returns
    -------
    sympy.Rational

    Examples
    --------
    >>> from nnproofs import representation as rep
    >>> rep.funk_hecke_eigenvalue(2, 0, 3)
    1/3
    """
    k, j = sym.eigenvalue_indices(k, j)
    d = int_at_least("d", d, 2)
    if zonal not in ("chebyshev", "gegenbauer"):
        raise ValueError(f"zonal must be 'chebyshev' or 'gegenbauer', got {zonal!r}")
    if k + j > FUNK_HECKE_MAX_DEGREE:
        raise ValueError(f"k + j must be <= {FUNK_HECKE_MAX_DEGREE} (exact rational arithmetic of degree k + j), got"
                         f" k={k}, j={j}")
    t = sympy.Symbol("t", real=True)
    if d == 2 and zonal == "chebyshev":
        zonal_poly = sympy.chebyshevt(j, t)
    else:
        alpha = sympy.Rational(d - 2, 2)
        at_one = sympy.gegenbauer(j, alpha, 1)
        if at_one == 0:
            raise ValueError(f"zonal='gegenbauer' is undefined at d = 2, j = {j}: C_j^(0) ≡ 0, so P_(j,2) = 0/0 (use"
                             " zonal='chebyshev', the normalised limit)")
        zonal_poly = sympy.gegenbauer(j, alpha, t) / at_one
    total = sympy.Integer(0)
    for (m,), a in sympy.Poly(sympy.expand(t**k * zonal_poly), t).terms():
        if m % 2 == 0:
            total += a * sympy.factorial2(m - 1) / sympy.Mul(*(sympy.Integer(d + 2 * i) for i in range(m // 2)))
    return total
