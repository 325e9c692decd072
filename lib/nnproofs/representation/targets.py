"""Chapter 3: the polynomials and the sizes at which the chapter executes its checks (``ci`` and ``full``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy

from .. import budget
from .. import device as book_device
from ..validate import finite_real, nonnegative_int, positive_int
from . import symbolic as sym
from .moments import MAX_DEGREE, MOMENT_MAX_DIMENSION, fischer_norm
from .sampling import SYMBOLIC_WORK


def ridge_polynomial(variables, degrees: Sequence[int], *, terms: int = 3, constant: float = 0.5, seed: int = 0):
    """A test polynomial :math:`f_0 + \\sum_k f_k`, each :math:`f_k = c_k\\sum_{i\\le\\text{terms}} \\langle a_i, x\\rangle^k`
    with random unit directions :math:`a_i` supported on at most 3 coordinates (so it stays sparse in any :math:`d`),
    rounded to two decimals, and :math:`c_k` normalising :math:`\\|f_k\\|_F = 1` to six digits (rational coefficients).

    Parameters
    ----------
    variables : sequence of sympy.Symbol
        The variables.
    degrees : sequence of int
        The degrees :math:`k` of the parts.
    terms : int
        Ridge monomials per part.
    constant : float
        :math:`f_0`.
    seed : int
        Seed of the directions.

    Returns
    -------
    sympy expression

    Examples
    --------
    >>> import sympy
    >>> from nnproofs import representation as rep
    >>> x = sympy.symbols("x1:4")
    >>> round(rep.fischer_norm(rep.ridge_polynomial(x, (3,), constant=0), x), 4)
    1.0
    """
    variables = sym.check_variables(variables)
    terms = positive_int("terms", terms)
    seed = nonnegative_int("seed", seed)
    if isinstance(degrees, (str, bytes)) or not isinstance(degrees, Sequence) or not 1 <= len(degrees) <= MAX_DEGREE:
        raise TypeError(f"degrees must be a sequence of 1..{MAX_DEGREE} ints, got {degrees!r}")
    degrees = [positive_int(f"degrees[{i}]", k) for i, k in enumerate(degrees)]
    for name, value, count in (("degrees", degrees, 1), ("terms", terms, terms)):
        budget.refuse_beyond(name, value, cost=count * sum(math.comb(k + 2, 2) * k for k in degrees),
                             limit=SYMBOLIC_WORK * budget.factor(), unit="term products")
    rng = np.random.default_rng(seed)
    d, f = len(variables), sympy.nsimplify(finite_real("constant", constant))
    for k in degrees:
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


def _dimension(d) -> int:
    """``d`` validated: an int in 1..``MOMENT_MAX_DIMENSION`` (the second moments' quadrature)."""
    d = positive_int("d", d)
    if d > MOMENT_MAX_DIMENSION:
        raise ValueError(f"d must be <= {MOMENT_MAX_DIMENSION} (the second moments' quadrature), got {d}")
    return d


def default_target(d: int):
    """The chapter's polynomial in :math:`d` variables: :math:`1/2` plus Fischer-normalised ridge parts of degrees 1..4.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    tuple
        ``(poly, variables)``, the form the checks' ``target`` arguments return.
    """
    variables = sympy.symbols(f"x1:{_dimension(d) + 1}", real=True)
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


def default_comparison_dimensions() -> list[int]:
    """Dimensions of the explicit-against-sharpened comparison: 2..10 at ``ci``, 2..50 at ``full`` (the explicit
    kernel :math:`T_\\mu^{-1}f_k` is dense, and its exact algebra takes 8 s in :math:`d = 20`, a minute in :math:`d = 50`)."""
    return book_device.sizes(ci=[2, 5, 10], full=[2, 5, 10, 20, 50])


def default_dimensions() -> list[int]:
    """Dimensions of the stability sweep: 2..50 at ``ci``, 2..200 at ``full``."""
    return book_device.sizes(ci=[2, 5, 10, 20, 50], full=[2, 5, 10, 20, 50, 100, 200])


def squared_norm_target(d: int):
    """The counterpoint :math:`|x|^2` in :math:`d` variables (Fischer norm :math:`\\sqrt{2d}`, yet :math:`\\equiv 1` on the sphere).

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    tuple
        ``(poly, variables)``.
    """
    variables = sympy.symbols(f"x1:{_dimension(d) + 1}", real=True)
    return sum(v**2 for v in variables), variables


def default_unbiasedness_sizes() -> dict[str, int]:
    """Replicates of the unbiasedness check: 100 networks at both scales; the check chooses their width from the exact
    prediction (the smallest with :math:`4r \\le 0.1`)."""
    return {"replicates": 100}


NEAR_MISS_SCALE = 1.1  # the near-miss control: mean f_0 + 1.1(f − f_0), a construction off by 10%


def _fischer_examples():
    x = sympy.symbols("x1:4", real=True)
    return [x[0] ** 2 * x[1] - 3 * x[1] * x[2] + x[2] ** 4 / 2 + 2 * x[0], (x[0] + x[1] - x[2]) ** 3], x
