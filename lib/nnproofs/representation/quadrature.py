"""Chapter 3: quadrature checks independent of the sampling code: the representation at a point, and the eigenvalues
of :math:`T_\\mu` by the Funk–Hecke integral (``thm-sharpened``, ``thm-spectrum``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy
from scipy import integrate, special

from ..validate import finite_real, int_at_least, positive_real
from . import symbolic as sym
from .sampling import KERNELS

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
    sigma = positive_real("sigma", sigma)
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
    k, j = sym.eigenvalue_indices(k, j)
    d = int_at_least("d", d, 2)
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
