"""Chapter 2: the sizes the constructions accept, and the float64 limits behind them.

Every construction of the chapter refuses at once, naming the parameter, what float64 cannot
represent exactly or what would exhaust memory: nominal width and depth :math:`W, L` of Networks B and
C (powers of two, :math:`W \\le 64`, :math:`L \\le 53`), product depths :math:`s \\le 53`, stored bits,
and the smoothness :math:`m \\in \\{2, 3\\}`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import torch

from .. import budget
from ..validate import finite_real, positive_int

MAX_BITS = {torch.float64: 53, torch.float32: 24}  # significand bits: dyadic words beyond this cannot be stored
ROUNDING = 16 * 2.0**-52  # float64 round-off allowed in the a-priori bounds, relative to the terms summed
BAND = 2.0**-46  # width of the bands Omega_eps below each cell boundary, in units of the stage's digit
MAX_BASE = 64  # floor-stage bases W, L <= 2^6: |u - j| / BAND < 2^52, so z + 1 is exact in float64
SMOOTHNESS = (2, 3)  # m: degree m - 1 per cell (hats, then the quadratic basis)
MAX_STORED_BITS = 1 << 25  # K·E·J bits of one BitTable (int64 planes: 256 MiB); d = 1, m = 2, W = 32, L = 16 holds 23 068 672
MAX_PRODUCT_DEPTH = 53  # s: Yarotsky's corrections 4^-s are below float64 resolution long before; deeper only costs time
# Network B's nonzero parameters include the nonzero double differences of its stored bits; an ulp of
# f moves a few quantised low bits, so the count moves by a few units between CPUs: it is reported
# rounded to PARAMETER_DIGITS significant digits (exact on the network object, nonzero_parameters).
PARAMETER_DIGITS = 2
# The near-miss factor c of the stored coefficients: c near 1 (the chapter runs 0.8 and 1.2); beyond 2^±20 the
# network is no near miss, and at 1e300 the stored values overflow float64.
MAX_COEFFICIENT_SCALE = 2.0**20
NONZERO_KEY = f"nonzero parameters ({PARAMETER_DIGITS} significant digits)"


def require_wl(WL) -> None:
    """A sequence of valid (W, L) pairs (:func:`require_sizes`) with at least two distinct products."""
    require_length("WL", WL, 2 * MAX_BASE.bit_length() * MAX_BITS[torch.float64].bit_length())
    if isinstance(WL, (str, bytes)) or not isinstance(WL, Sequence) or not all(
            isinstance(p, Sequence) and len(p) == 2 for p in WL):
        raise TypeError(f"WL must be a sequence of (W, L) pairs, got {WL!r}")
    for W, L in WL:
        require_sizes(W, L)
    if len({W * L for W, L in WL}) < 2:
        raise ValueError(f"WL needs at least two distinct products W*L to fit a rate, got {list(WL)}")


def require_sizes(W, L) -> None:
    """Nominal width and depth of Network B: powers of two, ``L <= 53`` bits per word, ``W <= 64``, ``W L >= 2``."""
    for name, value in (("W", W), ("L", L)):
        positive_int(name, value)
        if value & (value - 1):
            raise ValueError(f"{name}={value} must be a power of two (1, 2, 4, ...)")
    if L > MAX_BITS[torch.float64]:
        raise ValueError(f"L={L} exceeds the 53 bits a float64 word holds; allowed: L <= 53")
    if W > MAX_BASE:
        raise ValueError(f"W={W} is too large for exact floor steps with bands of width 2^-46 in float64; "
                         f"allowed: W <= {MAX_BASE}")
    if W * L < 2:
        raise ValueError(f"W*L must be at least 2 (K = (WL)^2 cells), got W={W}, L={L}")


def require_stored_bits(bits: int, W: int, L: int, d: int) -> None:
    """Refuse at once a Network B or C whose bit tables would exceed ``MAX_STORED_BITS`` (memory, time)."""
    if bits > MAX_STORED_BITS:
        raise ValueError(f"W={W}, L={L} in d={d} would store about {bits} bits; allowed: at most {MAX_STORED_BITS} "
                         f"(lower W or L)")


def require_product_depth(name: str, s) -> int:
    """A product depth :math:`s` (layers of Yarotsky's square) between 1 and ``MAX_PRODUCT_DEPTH``."""
    positive_int(name, s)
    if s > MAX_PRODUCT_DEPTH:
        raise ValueError(f"{name}={s} exceeds {MAX_PRODUCT_DEPTH}: the square's corrections 4^-s are below float64 "
                         f"resolution; allowed: 1..{MAX_PRODUCT_DEPTH}")
    return s


def require_coefficient_scale(c) -> float:
    """The factor :math:`c` of a near-miss Network B's stored coefficients (1 is Network B), a real number in
    :math:`[2^{-20}, 2^{20}]` (``MAX_COEFFICIENT_SCALE``)."""
    if isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_)):
        c = float(c)  # fractions.Fraction, numpy scalars
    c = finite_real("coefficient_scale", c)
    if not 1 / MAX_COEFFICIENT_SCALE <= c <= MAX_COEFFICIENT_SCALE:
        raise ValueError(f"coefficient_scale={c!r} is not allowed; use a factor in [2^-20, 2^20] (1 is Network B)")
    return c


def require_smoothness(m) -> None:
    if isinstance(m, bool) or not isinstance(m, int) or m not in SMOOTHNESS:
        raise ValueError(f"m={m!r} is not implemented; allowed: {', '.join(map(str, SMOOTHNESS))}")



def require_length(name: str, values, most: int) -> None:
    """Refuse, before converting them, more than ``most`` entries of ``values`` (a list that cannot be valid)."""
    if hasattr(values, "__len__") and not isinstance(values, (str, bytes)) and len(values) > most:
        raise ValueError(f"{name} has {len(values)} entries; allowed: at most {most}")


def require_count(name: str, value, *, bytes_each: float) -> int:
    """A positive int (samples, words) whose ``value`` × ``bytes_each`` bytes fit ``budget.memory()``: refused
    before anything is allocated, with the parameter's name."""
    value = positive_int(name, value)
    budget.refuse_beyond(name, value, cost=value * bytes_each, limit=budget.memory(), unit="bytes")
    return value


def roundoff_floor(scale: float) -> float:
    """``100·2⁻⁵²·scale``: below it an error of a quantity of size ``scale`` is round-off, not a measurement (relative,
    so that ``f`` and ``c·f`` are read alike; at least ``100·2⁻⁵²·2⁻¹⁰²²`` when ``scale`` vanishes)."""
    return 100 * 2.0**-52 * max(scale, 2.0**-1022)
