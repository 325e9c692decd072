"""Exact ReLU gadgets: hats, Yarotsky's tooth and sawtooth, the square and the product.

Every gadget is a ``torch.nn.Sequential`` of ``Linear`` and ``ReLU`` layers with weights set by
formula (see :mod:`nnproofs.networks`), so its width, depth and parameter count are those of the
module itself. Notation of the prelude (:doc:`/book/00_prelude`), with :math:`\\rho(t) = \\max(t, 0)`:

* hat on :math:`[a, b]` peaking at :math:`c`:
  :math:`h(x) = \\frac{\\rho(x-a)}{c-a} - \\big(\\frac{1}{c-a} + \\frac{1}{b-c}\\big)\\rho(x-c) + \\frac{\\rho(x-b)}{b-c}`;
* tooth :math:`g = h_{0, 1/2, 1}`, i.e. :math:`g(x) = 2\\rho(x) - 4\\rho(x-\\tfrac12) + 2\\rho(x-1)`;
* sawtooth :math:`g_s = g \\circ \\cdots \\circ g` (:math:`s` times): :math:`2^{s-1}` teeth on :math:`[0,1]`;
* Yarotsky's square :math:`f_m(x) = x - \\sum_{s=1}^{m} g_s(x)/4^s`, the piecewise-linear
  interpolant of :math:`x^2` at the nodes :math:`j 2^{-m}`, with
  :math:`\\sup_{[0,1]} |f_m(x) - x^2| = 2^{-2m-2}` (Theorem ``thm-yarotsky-square``);
* the zero-preserving product
  :math:`\\tilde\\times_m(a, b) = 2\\,[f_m(\\tfrac{a+b}{2}) - f_m(\\tfrac a2) - f_m(\\tfrac b2)]` on
  :math:`[0,1]^2`, with :math:`|\\tilde\\times_m(a,b) - ab| \\le 2^{-2m}` and
  :math:`\\tilde\\times_m(a, 0) = \\tilde\\times_m(0, b) = 0` exactly;
* the clip :math:`\\min(\\max(z, 0), 1) = \\rho(z) - \\rho(z - 1)` and the identity on :math:`z \\ge 0`
  (a value carried through ``depth`` layers), both exact.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from .networks import compose, linear_map, parallel, relu_network
from .validate import as_finite_array, finite_real, positive_int


def _tensor(rows, dtype, device) -> torch.Tensor:
    return torch.tensor(rows, dtype=dtype, device=device)


def hat(a: float = 0.0, c: float = 0.5, b: float = 1.0, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """The hat with support ``[a, b]`` and peak 1 at ``c``: one hidden layer of width 3."""
    a, c, b = finite_real("a", a), finite_real("c", c), finite_real("b", b)
    if not a < c < b:
        raise ValueError(f"hat needs a < c < b, got a={a!r}, c={c!r}, b={b!r}")
    left, right = 1.0 / (c - a), 1.0 / (b - c)
    return relu_network([
        (_tensor([[1.0], [1.0], [1.0]], dtype, device), _tensor([-a, -c, -b], dtype, device)),
        (_tensor([[left, -(left + right), right]], dtype, device), _tensor([0.0], dtype, device)),
    ])


def tooth(*, dtype=torch.float64, device=None) -> nn.Sequential:
    """Yarotsky's tooth ``g(x) = 2ρ(x) − 4ρ(x − 1/2) + 2ρ(x − 1)``: the hat on ``[0, 1]``."""
    return hat(0.0, 0.5, 1.0, dtype=dtype, device=device)


def sawtooth(s: int, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """``g_s = g ∘ ... ∘ g`` (``s`` teeth composed): ``s`` hidden layers of width 3, ``2^(s-1)`` teeth."""
    positive_int("s", s)
    net = tooth(dtype=dtype, device=device)
    for _ in range(s - 1):
        net = compose(tooth(dtype=dtype, device=device), net)
    return net


def sawtooth_series(coefficients: Sequence[float], *, dtype=torch.float64, device=None) -> nn.Sequential:
    """The network of ``x − Σ_{s=1}^{m} c_s g_s(x)`` for ``coefficients = (c_1, ..., c_m)``.

    Hidden layer ``s`` holds the tooth neurons ``ρ(g_{s-1}), ρ(g_{s-1} − 1/2), ρ(g_{s-1} − 1)``
    (with ``g_0(x) = x``) and the running value ``y_{s-1} = x − Σ_{r<s} c_r g_r`` carried exactly as
    ``ρ(y) − ρ(−y)``: ``m`` hidden layers of width 5, exact for every real input and coefficient.
    Yarotsky's square is ``c_s = 4^{-s}``; other coefficients give the negative controls.
    """
    c = as_finite_array("coefficients", coefficients).tolist()
    tooth_rows = [2.0, -4.0, 2.0]
    offsets = [0.0, -0.5, -1.0]
    first = (_tensor([[1.0], [1.0], [1.0], [1.0], [-1.0]], dtype, device), _tensor(offsets + [0.0, 0.0], dtype, device))
    maps = [first]
    for cs in c[:-1]:
        carry = [-cs * t for t in tooth_rows] + [1.0, -1.0]
        weight = [tooth_rows + [0.0, 0.0]] * 3 + [carry, [-v for v in carry]]
        maps.append((_tensor(weight, dtype, device), _tensor(offsets + [0.0, 0.0], dtype, device)))
    last = [[-c[-1] * t for t in tooth_rows] + [1.0, -1.0]]
    maps.append((_tensor(last, dtype, device), _tensor([0.0], dtype, device)))
    return relu_network(maps)


def yarotsky_square(m: int, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """Yarotsky's ``f_m(x) = x − Σ_{s=1}^{m} g_s(x)/4^s``: sup error ``2^{-2m-2}`` for ``x²`` on ``[0, 1]``."""
    positive_int("m", m)
    return sawtooth_series([4.0**-s for s in range(1, m + 1)], dtype=dtype, device=device)


def yarotsky_product(m: int, *, dtype=torch.float64, device=None) -> nn.Sequential:
    """``×̃_m(a, b) = 2[f_m((a+b)/2) − f_m(a/2) − f_m(b/2)]`` on ``[0, 1]²``; input shape ``(n, 2)``.

    Error at most ``2^{-2m}``; zero when ``a = 0`` or ``b = 0`` (since ``f_m(0) = 0``), exactly in
    exact arithmetic and to round-off (~1e-16) in float64, where the fused output layer sums in order.
    ``m`` hidden layers of width 15.
    """
    square = yarotsky_square(m, dtype=dtype, device=device)
    halves = linear_map([[0.5, 0.5], [0.5, 0.0], [0.0, 0.5]], dtype=dtype, device=device)
    combine = linear_map([[2.0, -2.0, -2.0]], dtype=dtype, device=device)
    return compose(combine, compose(parallel(square, square, square), halves))


def clip_unit() -> nn.Sequential:
    """:math:`\\min(\\max(z, 0), 1) = \\rho(z) - \\rho(z - 1)`: one hidden layer of width 2."""
    one = torch.ones(2, 1, dtype=torch.float64)
    return relu_network([(one, torch.tensor([0.0, -1.0], dtype=torch.float64)),
                         (torch.tensor([[1.0, -1.0]], dtype=torch.float64), torch.zeros(1, dtype=torch.float64))])


def identity_network(depth: int) -> nn.Sequential:
    """:math:`z \\mapsto \\rho(\\cdots\\rho(z))`: the identity on :math:`z \\ge 0`, ``depth`` hidden layers of width 1."""
    positive_int("depth", depth)
    one, zero = torch.ones(1, 1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
    return relu_network([(one, zero)] * (depth + 1))
