"""The constant-depth two-scale network of chapter 1 (Construction ``con-two-scale``), weights by formula.

Notation. ``K`` coarse cells per axis, each cut into ``K`` fine cells: fine side ``h = 1/K²``.
``k`` is the degree of the local polynomials (total degree ``|α| <= k`` in ``d`` variables), so the
target error is ``O(h^{k+1}) = O(K^{-2(k+1)})``. ``H`` is the smooth step of
:mod:`nnproofs.smooth.gadgets` with reach ``r``; every step in ``x`` has slope ``M = 32 r K²``, so it
is saturated (within ``ε/2`` of 0 or 1) outside a band of half-width ``h/32`` around its threshold.

There are ``2^d`` grids ``g ∈ {0,1}^d``: on axis ``j`` grid ``g`` is shifted by ``s = g_j h/2``.
The six hidden layers compute, for every grid at once:

1. coarse staircase ``H(M(x_j - s - i/K))``, ``i = 0..K``; the coordinates ``x_j`` (identity);
   coarse bumps ``H(M(x_j - i/K + h/8)) - H(M(x_j - i/K - h/8))`` of grid 0. Read-outs: coarse
   index ``I = -1 + Σ_i H``, relative position ``t = K(x_j - s) - I ∈ [0, 1)``, coarse one-hot
   ``e_i`` (``i = -1..K``) and the coarse factor ``B_c = 1 - Σ_i bump_i`` (zero near coarse breakpoints);
2. fine staircase ``H((M/K)(t - l/K))``, ``l = 1..K-1``; fine bumps on ``t`` of grid 0; ``t`` and ``B_c``
   (identity); the box indicators ``E_i = H(2r(Σ_j e_{i_j} - d + ½))`` of the coarse cells.
   Read-outs: fine one-hot ``w_l``, local variable ``u = Kt - Σ_l H ∈ [0, 1)``, fine factor ``B_f``;
3. fine box indicators ``W_l = H(2r(Σ_j w_{l_j} - d + ½))``; ``E_i`` re-sharpened; the powers
   ``u_j^a`` (``a <= k``, one-layer finite differences); the 1-D weights ``ω_j = B_c · B_f`` (product);
4. the **two-scale table**: ``E_i · z_{α,i}`` with ``z_{α,i} = Σ_l V_α[i, l] W_l``, one product per
   coarse cell and coefficient, where ``V_α[i, l]`` is coefficient ``α`` of the local polynomial of fine
   cell ``(i, l)``: ``K^d`` products read ``K^{2d}`` numbers, so the dense parameter count is
   ``N ∝ K^{2d}``; monomials ``u^α = Π_j u_j^{α_j}``; grid weights ``ω_g = Π_j ω_{j, g_j}`` with
   ``ω_{j,0} = ω_j``, ``ω_{j,1} = 1 - ω_j`` (a partition of unity, zero where grid ``g`` is in its band);
5. ``p_g = Σ_α C_{α} u^α`` with ``C_α = Σ_i E_i z_{α,i}`` (products); ``ω_g`` carried;
6. ``ω_g · p_g`` (products); output ``f̂ = S Σ_g ω_g p_g``, ``S`` the scale of the coefficients.

Six hidden layers (seven affine maps) for every ``k``, ``K`` and ``d ∈ {1, 2}``. Products are
``xy = [sq(x+y) - sq(x-y)]/4`` (four neurons), squares and cubes central differences, identities
``σ(y) - σ(-y)`` (GELU, SiLU, softplus) or a first difference (tanh, sigmoid).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import torch
from torch import nn

from . import gadgets as sg
from .inputs import cells, degree, device_of, dimension, float64_only, target
from ..measure import evaluate_target
from .. import budget
from ..validate import positive_int


BAND = 1.0 / 32.0  # half-width of a step's transition, as a fraction of h
BUMP = 1.0 / 8.0  # half-width of the bumps that make the weights vanish, as a fraction of h
# N <= c[d][k] (K + 2)^(2d): the largest ratio N / (K + 2)^(2d) measured (K = 2..32 in d = 1, 2..5 in d = 2), +10%;
# in d = 1 at k = 0 the ratio still grows slowly (247 at K = 32), so c = 300 there
PARAMETER_BOUND = {1: (300, 380, 610, 940), 2: (390, 940, 2100, 4330)}
CRITICAL_OFFSETS = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0)  # x BAND*h on each side of every critical point


class _Signal:
    """Affine read-outs ``value = rows @ y + const`` of the primary outputs ``y`` of one layer.

    ``rows`` may have fewer columns than the layer has primaries (those added later): they are
    zero-padded on use.
    """

    def __init__(self, rows: torch.Tensor, const: torch.Tensor):
        self.rows, self.const = rows, const

    def __len__(self) -> int:
        return self.rows.shape[0]

    def __add__(self, other):
        if isinstance(other, _Signal):
            width = max(self.rows.shape[1], other.rows.shape[1])
            return _Signal(_pad(self.rows, width) + _pad(other.rows, width), self.const + other.const)
        return _Signal(self.rows, self.const + other)

    def __radd__(self, other):
        return self + other

    def __neg__(self):
        return _Signal(-self.rows, -self.const)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, factor):
        """Multiply by a number or by one number per row."""
        if isinstance(factor, torch.Tensor) and factor.ndim == 1:
            return _Signal(self.rows * factor[:, None], self.const * factor)
        return _Signal(self.rows * factor, self.const * factor)

    __rmul__ = __mul__

    def __getitem__(self, index):
        return _Signal(self.rows[index], self.const[index])

    def combine(self, matrix: torch.Tensor):
        """The signals ``matrix @ self`` (each row a linear combination of this signal's rows)."""
        return _Signal(matrix @ self.rows, matrix @ self.const)

    def sum(self):
        return _Signal(self.rows.sum(0, keepdim=True), self.const.sum(0, keepdim=True))

    @staticmethod
    def cat(signals):
        width = max(s.rows.shape[1] for s in signals)
        return _Signal(torch.cat([_pad(s.rows, width) for s in signals]), torch.cat([s.const for s in signals]))


def _pad(rows: torch.Tensor, width: int) -> torch.Tensor:
    return rows if rows.shape[1] == width else torch.nn.functional.pad(rows, (0, width - rows.shape[1]))


class _Layer:
    """One hidden layer: neurons ``σ(a · signal + c)`` grouped into primary outputs ``y_p``.

    Each neuron feeds exactly one primary output with weight ``γ``: ``y_p = Σ_{out(i)=p} γ_i σ(z_i) + κ_p``.
    """

    def __init__(self, previous, dtype, device):
        self.previous = previous  # the layer whose primaries the input signals read (None: the input x)
        self.dtype, self.device = dtype, device
        self.pre_rows, self.pre_const = [], []  # neuron pre-activations as signals of the previous layer
        self.out_index, self.gamma, self.kappa = [], [], []
        self.primaries = 0

    def _new_primaries(self, m: int, constant) -> torch.Tensor:
        index = torch.arange(self.primaries, self.primaries + m, device=self.device)
        self.primaries += m
        self.kappa.append(torch.as_tensor(constant, dtype=self.dtype, device=self.device).expand(m).clone())
        return index

    def gadget(self, terms, constant=0.0) -> _Signal:
        """Primaries ``Σ_terms Σ_j w_j σ(a_j · signal + c_j) + constant``, one per row of the signals.

        ``terms`` is a list of ``(signal, a, c, w)`` with ``a, c, w`` equal-length tuples (one neuron each).
        """
        m = len(terms[0][0])
        index = self._new_primaries(m, constant)
        for signal, a, c, w in terms:
            for a_j, c_j, w_j in zip(a, c, w):
                self.pre_rows.append(signal.rows * a_j)
                self.pre_const.append(signal.const * a_j + c_j)
                self.out_index.append(index)
                self.gamma.append(torch.full((m,), w_j, dtype=self.dtype, device=self.device))
        return self.identity_signal(index)

    def identity_signal(self, index: torch.Tensor) -> _Signal:
        rows = torch.zeros(index.numel(), int(index.max()) + 1, dtype=self.dtype, device=self.device)
        rows[torch.arange(index.numel(), device=self.device), index] = 1.0
        return _Signal(rows, torch.zeros(index.numel(), dtype=self.dtype, device=self.device))

    def finish(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The layer's affine map ``(W, b)`` acting on the previous layer's neurons (or on ``x``)."""
        width = max(r.shape[1] for r in self.pre_rows)
        rows = torch.cat([_pad(r, width) for r in self.pre_rows])
        const = torch.cat(self.pre_const)
        return self.previous.to_neurons(rows, const) if self.previous is not None else (rows, const)

    def to_neurons(self, rows: torch.Tensor, const: torch.Tensor):
        """Rewrite signals over this layer's primaries as an affine map of its neurons' activations."""
        rows = _pad(rows, self.primaries)
        out_index, gamma, kappa = torch.cat(self.out_index), torch.cat(self.gamma), torch.cat(self.kappa)
        return rows[:, out_index] * gamma, const + rows @ kappa


@dataclass(frozen=True)
class _Gadgets:
    """The activation's gadgets in the form ``(a_j, c_j, w_j)`` that :meth:`_Layer.gadget` takes."""

    activation: str
    step_offsets: tuple
    step_weights: tuple
    step_constant: float
    reach: float
    powers: dict  # order -> Stencil (1: identity, 2: square, 3: cube)

    @classmethod
    def of(cls, activation: str, k: int):
        offsets, weights, constant = sg.step_form(activation)
        orders = sorted({1, 2} | set(range(1, k + 1)))
        return cls(activation, offsets, weights, constant, sg.step_reach(activation),
                   {a: sg.power_stencil(activation, a) for a in orders})

    def step(self, layer: _Layer, signal: _Signal, slope) -> _Signal:
        """``H(slope · signal)`` for every row (``slope`` a number or one per row)."""
        scaled = signal * slope
        return layer.gadget([(scaled, (1.0,) * len(self.step_offsets), self.step_offsets, self.step_weights)],
                            self.step_constant)

    def power(self, layer: _Layer, signal: _Signal, order: int) -> _Signal:
        st = self.powers[order]
        return layer.gadget([(signal, tuple(j * st.delta for j in st.offsets), (st.base,) * st.neurons, st.weights)],
                            st.constant)

    def identity(self, layer: _Layer, signal: _Signal) -> _Signal:
        return self.power(layer, signal, 1)

    def product(self, layer: _Layer, x: _Signal, y: _Signal) -> _Signal:
        """``x · y = [sq(x + y) - sq(x - y)] / 4`` row by row (the squares' constants cancel)."""
        st = self.powers[2]
        a = tuple(j * st.delta for j in st.offsets)
        c = (st.base,) * st.neurons
        w = tuple(v / 4 for v in st.weights)
        return layer.gadget([(x + y, a, c, w), (x - y, a, c, tuple(-v for v in w))])


def multi_indices(k: int, d: int) -> list[tuple[int, ...]]:
    """The exponents ``α ∈ N^d`` with ``|α| <= k``, graded (``α = 0`` first)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be an int >= 0, got {k!r}")
    positive_int("d", d)
    return sorted((a for a in itertools.product(range(k + 1), repeat=d) if sum(a) <= k), key=lambda a: (sum(a), a[::-1]))


def local_polynomials(f: Callable, K: int, k: int, d: int, shifts: tuple, *, dtype=torch.float64, device=None):
    """Coefficients ``c[α, cell]`` of ``p_cell(u) = Σ_α c_α u^α`` fitted to ``f`` on every fine cell of one grid.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    K : int
        The coarse cells per axis (fine side ``h = 1/K²``).
    k : int
        The degree, ``0 <= k <= 3``.
    d : int
        The dimension, 1 or 2.
    shifts : tuple of float
        The grid's shift on each axis.
    dtype : torch.dtype
        ``torch.float64`` only.
    device : str or torch.device, optional
        Where to evaluate (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.Tensor
        Shape ``(len(multi_indices(k, d)), (K+2)^d, K^d)``: per monomial, coarse index ``i ∈ {-1..K}^d`` and fine
        index ``l ∈ {0..K-1}^d``; cells outside ``[0, 1]^d`` get 0.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> c = smooth.local_polynomials(lambda x: 1 + 2 * x[:, 0], 2, 1, 1, (0.0,))
    >>> round(float(c[0, 1, 0]), 12), round(float(c[1, 1, 0]), 12)
    (1.0, 0.5)

    Notes
    -----
    The cell of ``(i, l)`` on axis ``j`` is ``[a, a + h]``, ``a = shifts[j] + (i_j K + l_j) h``, ``u = (x - a)/h``;
    ``p`` is the least-squares fit at the tensor Chebyshev points (``k + 1`` per axis) of the part inside
    ``[0, 1]^d``, exact on polynomials of degree ``<= k``, computed with an exact pseudo-inverse (bitwise repeatable).
    """
    K, d, k = cells("K", K), dimension(d), degree(k)
    float64_only(dtype)
    f = target(f, d, device_of(device))
    budget.refuse_beyond("K", K, cost=8 * (k + 1) ** d * ((K + 2) * K) ** d * (k + 1) ** d, limit=budget.memory(),
                         unit="bytes")
    if not isinstance(shifts, tuple) or not all(isinstance(s, (int, float)) and math.isfinite(s) for s in shifts):
        raise TypeError(f"shifts must be a tuple of finite numbers, one per axis, got {shifts!r}")
    if len(shifts) != d:
        raise ValueError(f"shifts must give one shift per axis, got {len(shifts)} for d = {d}")
    h = 1.0 / K**2
    alphas = torch.tensor(multi_indices(k, d), dtype=dtype, device=device)  # (A, d)
    coarse = torch.arange(-1, K + 1, dtype=dtype, device=device)
    fine = torch.arange(K, dtype=dtype, device=device)
    corner_1d = [shifts[j] + (coarse[:, None] * K + fine[None, :]) * h for j in range(d)]  # (K+2, K) per axis
    corners = torch.stack(torch.meshgrid(*[c.reshape(-1) for c in corner_1d], indexing="ij"), -1).reshape(-1, d)
    # reorder axes so that cells are (coarse multi-index, fine multi-index) in row-major order
    shape = [K + 2, K] * d
    order = [2 * j for j in range(d)] + [2 * j + 1 for j in range(d)]
    corners = corners.reshape(*shape, d).permute(*order, 2 * d).reshape(-1, d)
    lo = ((0.0 - corners) / h).clamp(0.0, 1.0)
    hi = ((1.0 - corners) / h).clamp(0.0, 1.0)
    inside = ((hi - lo) > 1e-12).all(dim=1)
    nodes_1d = 0.5 - 0.5 * torch.cos((2 * torch.arange(k + 1, dtype=dtype, device=device) + 1) * math.pi / (2 * k + 2))
    grid = torch.stack(torch.meshgrid(*([nodes_1d] * d), indexing="ij"), -1).reshape(-1, d)  # (Q, d) in [0,1]^d
    coefficients = torch.zeros(alphas.shape[0], corners.shape[0], dtype=dtype, device=device)
    if inside.any():
        lo_in, hi_in, corner_in = lo[inside], hi[inside], corners[inside]
        u = lo_in[:, None, :] + (hi_in - lo_in)[:, None, :] * grid[None]  # (C, Q, d)
        x = (corner_in[:, None, :] + h * u).clamp(0.0, 1.0)
        values = evaluate_target(f, x.reshape(-1, d)).reshape(x.shape[0], x.shape[1])
        coefficients[:, inside] = _fit(values, lo_in, hi_in, nodes_1d, k, d).T
    return coefficients.reshape(alphas.shape[0], (K + 2) ** d, K**d)


def _fit(values: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor, nodes: torch.Tensor, k: int, d: int) -> torch.Tensor:
    """The least-squares coefficients ``(C, A)`` of every cell's values at its nodes ``lo + (hi - lo) · node``,
    bitwise repeatable: cells share one of a few boxes ``(lo, hi)``, whose pseudo-inverse is computed once in exact
    rational arithmetic (:func:`_pseudo_inverse`) and applied by elementwise products summed in a fixed order
    (LAPACK's batched ``lstsq`` differed by an ulp from one call to the next)."""
    boxes, which = torch.unique(torch.cat([lo, hi], 1), dim=0, return_inverse=True)
    node_values = tuple(float(v) for v in nodes.tolist())
    out = torch.zeros(values.shape[0], len(multi_indices(k, d)), dtype=values.dtype, device=values.device)
    for b, box in enumerate(boxes.tolist()):
        cells = which == b
        pinv = torch.tensor(_pseudo_inverse(tuple(box), node_values, k, d), dtype=values.dtype, device=values.device)
        part = values[cells]
        total = part[:, :1] * pinv[None, :, 0]
        for q in range(1, pinv.shape[1]):
            total = total + part[:, q:q + 1] * pinv[None, :, q]
        out[cells] = total
    return out


@functools.lru_cache(maxsize=64)
def _pseudo_inverse(box: tuple, nodes: tuple, k: int, d: int) -> tuple:
    """``(VᵀV)⁻¹Vᵀ`` (A x Q) for the tensor nodes ``u = lo + (hi - lo) · node`` of the box ``lo, hi`` (``box`` is
    ``lo + hi``, ``d`` numbers each) and the monomials of :func:`multi_indices`, exact in rationals, rounded once."""
    lo, hi = [Fraction(v) for v in box[:d]], [Fraction(v) for v in box[d:]]
    axis = [[lo[j] + (hi[j] - lo[j]) * Fraction(t) for t in nodes] for j in range(d)]
    points = list(itertools.product(*axis))
    alphas = multi_indices(k, d)
    V = [[math.prod(u[j] ** a[j] for j in range(d)) for a in alphas] for u in points]
    A = len(alphas)
    gram = [[sum(row[i] * row[j] for row in V) for j in range(A)] + [V[q][i] for q in range(len(V))] for i in range(A)]
    for col in range(A):  # Gauss-Jordan on [VᵀV | Vᵀ]: exact, the pivot nonzero (VᵀV is positive definite)
        pivot = gram[col][col]
        gram[col] = [v / pivot for v in gram[col]]
        for r in range(A):
            if r != col and gram[r][col] != 0:
                factor = gram[r][col]
                gram[r] = [v - factor * w for v, w in zip(gram[r], gram[col])]
    return tuple(tuple(float(v) for v in row[A:]) for row in gram)


def mid_range(f: Callable, d: int, *, samples: int = 257, dtype=torch.float64, device=None) -> float:
    """``m = (max f + min f)/2`` over a grid of ``samples`` points per axis of ``[0, 1]^d``: the offset that the
    construction removes from ``f`` (and adds back exactly, as the output bias)."""
    line = torch.linspace(0.0, 1.0, samples, dtype=dtype, device=device)
    grid = torch.stack(torch.meshgrid(*([line] * d), indexing="ij"), -1).reshape(-1, d)
    values = evaluate_target(f, grid)
    return 0.5 * float(values.max() + values.min())


def build(f: Callable, *, k: int, K: int, activation: str, d: int, coarse_factor: bool = True,
          dtype=torch.float64, device=None) -> nn.Sequential:
    """The network of the module doc, as ``Sequential(Linear, σ, ..., Linear)`` (inputs validated by the caller).

    ``coarse_factor=False`` drops ``B_c`` from the weights ``ω_j`` (the negative control: the weights of
    grid 0 then fail to vanish inside its coarse bands).
    """
    gadgets = _Gadgets.of(activation, k)
    h = 1.0 / K**2
    slope = gadgets.reach / (BAND * h)  # steps in x: saturated outside [-BAND h, BAND h]
    sharp = 2.0 * gadgets.reach  # steps of sums of (nearly) 0/1 signals: saturated at distance 1/2
    shift = (0.0, h / 2)
    grids = list(itertools.product((0, 1), repeat=d))
    alphas = multi_indices(k, d)
    kw = {"dtype": dtype, "device": device}
    coarse_cells = list(itertools.product(range(K + 2), repeat=d))  # index i + 1 for i = -1..K
    fine_cells = list(itertools.product(range(K), repeat=d))

    # local polynomials of f - m (m the mid-range of f), normalised so that |p| <= 1 on every cell; the output
    # layer multiplies by S and adds m as a bias, so round-off scales with the oscillation of f, not with |f|
    middle = mid_range(f, d, **kw)
    centred = lambda t: evaluate_target(f, t) - middle
    tables = {g: local_polynomials(centred, K, k, d, tuple(shift[gj] for gj in g), **kw) for g in grids}
    scale = max(float(t.abs().sum(0).max()) for t in tables.values()) or 1.0

    x = _Signal(torch.eye(d, **kw), torch.zeros(d, **kw))
    breaks = torch.arange(K + 1, **kw) / K

    # layer 1: coarse staircases, coordinates, coarse bumps
    layer1 = _Layer(None, **kw)
    stairs, coords, bumps = {}, [], []
    for j in range(d):
        xj = x[[j] * (K + 1)]
        for s in (0, 1):
            stairs[j, s] = gadgets.step(layer1, xj - shift[s] - breaks, slope)
        coords.append(gadgets.identity(layer1, x[[j]]))
        left = gadgets.step(layer1, xj - breaks + BUMP * h, slope)
        right = gadgets.step(layer1, xj - breaks - BUMP * h, slope)
        bumps.append(1.0 - (left - right).sum())
    onehot_coarse, position = {}, {}
    for j in range(d):
        for s in (0, 1):
            steps = stairs[j, s]
            position[j, s] = K * (coords[j] - shift[s]) - (steps.sum() - 1.0)
            onehot_coarse[j, s] = _Signal.cat([1.0 - steps[[0]], steps[:-1] - steps[1:], steps[[K]]])

    # layer 2: fine staircases on t, fine bumps, t and B_c carried, coarse box indicators
    layer2 = _Layer(layer1, **kw)
    fine_breaks = torch.arange(1, K, **kw) / K
    onehot_fine, local, fine_factor, coarse_carried, boxes = {}, {}, [], [], {}
    for j in range(d):
        for s in (0, 1):
            t = position[j, s]
            steps = gadgets.step(layer2, t[[0] * (K - 1)] - fine_breaks, slope / K)
            carried = gadgets.identity(layer2, t)
            local[j, s] = K * carried - steps.sum()
            onehot_fine[j, s] = _Signal.cat([1.0 - steps[[0]], steps[:-1] - steps[1:], steps[[K - 2]]])
        t0 = position[j, 0][[0] * (K - 1)]
        left = gadgets.step(layer2, t0 - fine_breaks + BUMP / K, slope / K)
        right = gadgets.step(layer2, t0 - fine_breaks - BUMP / K, slope / K)
        fine_factor.append(1.0 - (left - right).sum())
        coarse_carried.append(gadgets.identity(layer2, bumps[j]))
    for g in grids:
        sums = _Signal.cat([sum(onehot_coarse[j, g[j]][[i[j]]] for j in range(d)) for i in coarse_cells])
        boxes[g] = gadgets.step(layer2, sums - (d - 0.5), sharp)

    # layer 3: fine box indicators, coarse boxes re-sharpened, powers of u, 1-D weights
    layer3 = _Layer(layer2, **kw)
    fine_boxes, boxes3, powers, weights_1d = {}, {}, {}, []
    for g in grids:
        sums = _Signal.cat([sum(onehot_fine[j, g[j]][[l[j]]] for j in range(d)) for l in fine_cells])
        fine_boxes[g] = gadgets.step(layer3, sums - (d - 0.5), sharp)
        boxes3[g] = gadgets.step(layer3, boxes[g] - 0.5, sharp)
    for j in range(d):
        for s in (0, 1):
            for a in range(1, k + 1):
                powers[j, s, a] = gadgets.power(layer3, local[j, s], a)
        if coarse_factor:
            weights_1d.append(gadgets.product(layer3, coarse_carried[j], fine_factor[j]))
        else:
            weights_1d.append(gadgets.identity(layer3, fine_factor[j]))

    # layer 4: the two-scale table, monomials, grid weights
    layer4 = _Layer(layer3, **kw)
    coefficient, monomial, grid_weight = {}, {}, {}
    for g in grids:
        for n, alpha in enumerate(alphas):
            z = fine_boxes[g].combine(tables[g][n] / scale)  # (K+2)^d rows: z_{α,i} = Σ_l V_α[i,l] W_l
            coefficient[g, alpha] = gadgets.product(layer4, boxes3[g], z).sum()
            factors = [powers[j, g[j], alpha[j]] for j in range(d) if alpha[j] > 0]
            if len(factors) == 1:
                monomial[g, alpha] = gadgets.identity(layer4, factors[0])
            elif len(factors) == 2:
                monomial[g, alpha] = gadgets.product(layer4, *factors)
        one_d = [weights_1d[j] if g[j] == 0 else 1.0 - weights_1d[j] for j in range(d)]
        grid_weight[g] = gadgets.identity(layer4, one_d[0]) if d == 1 else gadgets.product(layer4, *one_d)

    # layer 5: local polynomials p_g = Σ_α C_α u^α, grid weights carried
    layer5 = _Layer(layer4, **kw)
    polynomial, weight5 = {}, {}
    for g in grids:
        terms = [gadgets.identity(layer5, coefficient[g, alphas[0]])]
        terms += [gadgets.product(layer5, coefficient[g, a], monomial[g, a]) for a in alphas[1:]]
        polynomial[g] = sum(terms[1:], terms[0])
        weight5[g] = gadgets.identity(layer5, grid_weight[g])

    # layer 6: weighted superposition, output
    layer6 = _Layer(layer5, **kw)
    blended = [gadgets.product(layer6, weight5[g], polynomial[g]) for g in grids]
    output = sum(blended[1:], blended[0]) * scale + middle

    maps = [layer.finish() for layer in (layer1, layer2, layer3, layer4, layer5, layer6)]
    maps.append(layer6.to_neurons(output.rows, output.const))
    return _sequential(maps, activation)


def _sequential(maps, activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for index, (weight, bias) in enumerate(maps):
        linear = nn.Linear(weight.shape[1], weight.shape[0], dtype=weight.dtype, device=weight.device)
        with torch.no_grad():
            linear.weight.copy_(weight)
            linear.bias.copy_(bias)
        if index:
            layers.append(sg.module(activation))
        layers.append(linear)
    net = nn.Sequential(*layers)
    net.requires_grad_(False)
    return net


def refuse_large(K: int, k: int, d: int) -> None:
    """A ``ValueError`` naming ``K`` when the network's ``N <= PARAMETER_BOUND (K + 2)^(2d)`` float64 parameters
    exceed :func:`nnproofs.budget.memory` (a budget of 4 GiB at ci: ``K <= 1360`` in d = 1 at k = 1, ``K <= 12`` in d = 2)."""
    budget.refuse_beyond("K", K, cost=8 * PARAMETER_BOUND[d][k] * (K + 2) ** (2 * d), limit=budget.memory(),
                         unit="bytes")


def critical_points(K: int, *, offsets: bool | tuple = True) -> np.ndarray:
    """The 1-D points where the construction is most fragile, sorted, in ``[0, 1]``.

    Parameters
    ----------
    K : int
        The coarse cells per axis (fine side ``h = 1/K²``).
    offsets : bool or tuple
        ``True`` for the offsets :data:`CRITICAL_OFFSETS`, a tuple of other multiples of a half-band ``h/32``, or
        ``False`` for the centres alone.

    Returns
    -------
    numpy.ndarray
        The centres, each with the offsets ``±o × h/32``, that lie in ``[0, 1]``.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.critical_points(2, offsets=False)[:3].tolist()
    [0.0, 0.03125, 0.125]

    Notes
    -----
    The centres are every breakpoint of both grids (``m h``, ``m h + h/2``) and every bump edge (``m h ± h/8``).
    """
    h = 1.0 / cells("K", K) ** 2
    if not isinstance(offsets, (bool, tuple)):
        raise TypeError(f"offsets must be True, False or a tuple of multiples of a half-band, got {offsets!r}")
    budget.refuse_beyond("K", K, cost=8 * 4 * (K * K + 1) * 2 * (len(offsets) if isinstance(offsets, tuple) else 6),
                         limit=budget.memory(), unit="bytes")
    m = np.arange(K**2 + 1)
    centres = np.concatenate([m * h, m * h + h / 2, m * h + BUMP * h, m * h - BUMP * h])
    offsets = np.array(sorted({sign * o * BAND * h for o in (offsets if isinstance(offsets, tuple) else CRITICAL_OFFSETS if offsets else (0.0,))
                               for sign in (-1, 1)}))
    points = (centres[:, None] + offsets[None, :]).reshape(-1)
    return np.unique(points[(points >= 0.0) & (points <= 1.0)])


def constant_depth_network(f: Callable, *, k: int, K: int, activation: str = "gelu", d: int = 1,
                           dtype=torch.float64, device=None) -> nn.Sequential:
    """The two-scale network of Construction ``con-two-scale`` for ``f`` on ``[0, 1]^d``.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor in ``[0, 1]^d`` to ``(n,)``.
    k : int
        The local degree, ``0 <= k <= 3``.
    K : int
        The coarse cells per axis (``K²`` fine cells per axis).
    activation : str
        ``"gelu"``, ``"silu"``, ``"softplus"``, ``"tanh"`` or ``"sigmoid"``.
    d : int
        The dimension, 1 or 2.
    dtype : torch.dtype
        ``torch.float64`` only (the gadgets divide by ``δ² ≈ 1e-10``).
    device : str or torch.device, optional
        Where to build (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.nn.Sequential
        Seven ``Linear`` maps with ``σ`` between them, weights set by formula (:mod:`nnproofs.smooth.network`).

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> net = smooth.constant_depth_network(smooth.chapter_target, k=1, K=4)
    >>> x = torch.tensor([[0.3]], dtype=torch.float64)
    >>> bool(abs(net(x) - smooth.chapter_target(x)) < 1e-2)
    True

    Notes
    -----
    Local polynomials of degree ``k`` on the fine cells, read from a two-scale table and blended by a partition of
    unity over ``2^d`` shifted grids. The build is bitwise repeatable (the local fits use an exact pseudo-inverse).
    """
    k, K, d, name = degree(k), cells("K", K), dimension(d), sg.activation_name(activation)
    float64_only(dtype)
    refuse_large(K, k, d)
    device = device_of(device)
    return build(target(f, d, device), k=k, K=K, activation=name, d=d, device=device)
