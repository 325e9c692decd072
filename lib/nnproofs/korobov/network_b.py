"""Chapter 2, Network B in :math:`d = 1` (``thm-korobov-super``): the interpolant on :math:`(WL)^2` cells, stored as bits.

:class:`SuperApproximationNetwork` reads the coefficients of the cell of :math:`x` from a :class:`BitTable`
and recombines them with Yarotsky's products; :func:`band_profile` looks inside its bands, where it is not
the interpolant; :func:`super_approximation_network` builds Network B in any dimension
(:mod:`nnproofs.korobov.network_b_sparse` for :math:`d \\ge 2`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import torch
from torch import nn

from .. import budget
from ..gadgets import yarotsky_product, yarotsky_square
from ..measure import evaluate_target, network_gradient
from ..networks import affine_maps
from ..validate import positive_int
from .bit_table import PROBE_BAND, BitTable
from .explicit import explicit_network_b
from .network_b_sparse import SparseSuperApproximationNetwork
from .sizes import (BAND, MAX_BASE, MAX_BITS, ROUNDING, require_coefficient_scale, require_product_depth,
                    require_sizes, require_smoothness, require_stored_bits)
from .sparsegrid import sparse_grid_interpolant, sparse_grid_size


class SuperApproximationNetwork(nn.Module):
    """Network B in :math:`d = 1`: the degree-:math:`(m-1)` interpolant on :math:`(WL)^2` cells, stored as bits.

    For :math:`x \\in [0, 1]`, with :math:`W, L` powers of two, the cell :math:`k = \\lfloor Kx\\rfloor` and
    :math:`\\tau = Kx - k`: the interpolant :math:`I_n f` (:mod:`nnproofs.korobov.sparsegrid`, level
    :math:`n = \\log_2 K`, degree :math:`m - 1`) is the polynomial :math:`\\sum_{e<m} c_{k,e}\\tau^e` on
    cell :math:`k`. Steps 1-4 (cell location, quantisation to :math:`J` bits, lookup, bit
    extraction) are the :class:`BitTable` of the :math:`c_{k,e}` read at :math:`r = x`, which also
    returns :math:`\\tau`; step 5 recombines,
    :math:`lo_0 + span_0\\hat c_0 + \\sum_{e \\ge 1} lo_e\\pi_e + span_e\\tilde\\times_s(\\hat c_e, \\pi_e)`
    with :math:`\\pi_1 = \\tau`, :math:`\\pi_2 = f_s(\\tau) \\approx \\tau^2` (Yarotsky's square),
    clipped to :math:`[-M, M]`, :math:`M = 1 + \\sum_e \\max_k |c_{k,e}|`.

    Off the bands :math:`|\\Phi - I_n f|` is at most ``error_bound`` (quantisation :math:`2^{-J}`,
    products :math:`2^{-2s}`). ``coefficient_scale`` :math:`c \\ne 1` stores :math:`c\\,c_{k,e}` instead
    (near-miss control: :math:`\\Phi \\approx c\\,I_n f` while ``interpolant`` stays :math:`I_n f`).
    Defaults :math:`J = \\min(mn + 8, 53)` and :math:`s = \\lceil mn/2\\rceil + 4` grow like
    :math:`\\log(WL)`, which keeps this below :math:`\\|f - I_n f\\| \\approx K^{-m}` (the theorem's
    logarithmic factors). Resources of the layered network (all stages in sequence, every
    value that a later layer needs carried by one ReLU): ``width``, ``depth``,
    ``nonzero_parameters`` (counted in :meth:`layout`), ``stored_bits`` :math:`= PK` with
    :math:`P = mJ` bit-planes.

    ``shifted=True`` (:math:`m = 2`, the second local network of :class:`PartitionedNetwork`) uses
    the cells :math:`[(k - \\tfrac12)h, (k + \\tfrac12)h)`, :math:`h = 1/K`, :math:`k = 0..K`, whose bands
    lie just left of the mid-cells :math:`(k - \\tfrac12)h`. On such a cell :math:`I_n f` has its kink in
    the middle: :math:`I_n f = A + B\\tau + C\\,2\\rho(\\tau - \\tfrac12)` with
    :math:`A = I_n f((k - \\tfrac12)h)`, :math:`B = 2(I_n f(kh) - A)`,
    :math:`C = I_n f((k + \\tfrac12)h) - 2I_n f(kh) + A` (:math:`I_n f` continued oddly beyond the ends,
    where :math:`f = 0`); the table has :math:`4K` rows, the :math:`K + 1` cells read at
    :math:`r = (x + h/2)/4`.

    Parameters
    ----------
    f, m, W, L, coefficient_bits, product_depth, coefficient_scale
        As for :func:`super_approximation_network`, which validates them and is the way to build one.
    shifted : bool, optional
        The half-cell shifted copy (above).
    """

    def __init__(self, f: Callable, *, m: int, W: int, L: int, coefficient_bits: int | None = None,
                 product_depth: int | None = None, shifted: bool = False, coefficient_scale: float = 1.0):
        super().__init__()
        self.m, self.W, self.L, self.shifted = m, W, L, shifted
        self.band = BAND  # delta: width of the bands, in units of each floor stage's digit
        self.K = (W * L) ** 2
        self.level = int(round(math.log2(self.K)))
        self.J = min(m * self.level + 8, MAX_BITS[torch.float64]) if coefficient_bits is None else coefficient_bits
        self.s = math.ceil(m * self.level / 2) + 4 if product_depth is None else product_depth
        self.interpolant = sparse_grid_interpolant(f, d=1, level=self.level, degree=m - 1)
        device = self.interpolant.points.device
        if shifted:  # cells [(k - 1/2)h, (k + 1/2)h), k = 0..K, in a table of 4K rows
            table_w, table_l = (2 * W, L) if 2 * W <= MAX_BASE else (W, 2 * L)
            centre = torch.arange(self.K + 1, dtype=torch.float64, device=device) / self.K
            v_minus, v_0, v_plus = (self._reflected(centre + tau / self.K) for tau in (-0.5, 0.0, 0.5))
            coefficients = torch.zeros(4 * self.K, 3, dtype=torch.float64, device=device)
            coefficients[: self.K + 1] = torch.stack([v_minus, 2 * (v_0 - v_minus), v_plus - 2 * v_0 + v_minus], dim=1)
        else:
            table_w, table_l = W, L
            left = torch.arange(self.K, dtype=torch.float64, device=device) / self.K
            nodes = [self.interpolant((left + tau / self.K)[:, None]) for tau in ((0.0, 1.0) if m == 2 else (0.0, 0.5, 1.0))]
            if m == 2:
                coefficients = torch.stack([nodes[0], nodes[1] - nodes[0]], dim=1)
            else:  # the parabola through tau = 0, 1/2, 1
                v0, vh, v1 = nodes
                coefficients = torch.stack([v0, -3 * v0 + 4 * vh - v1, 2 * v0 - 4 * vh + 2 * v1], dim=1)
        coefficients = coefficients * coefficient_scale  # 1, or a near-miss control
        self.table = BitTable(coefficients, W=table_w, L=table_l, J=self.J)
        self.P = self.table.P
        self.amplitude = float(coefficients.abs().max(dim=0).values.sum())  # bounds |φ| (a sum of one cell per level)
        self.clip_level = 1.0 + self.amplitude
        self.product = yarotsky_product(self.s, device=device)
        self.square = yarotsky_square(self.s, device=device)
        self.stored_bits = self.table.stored_bits
        layers = self.layout()
        self.depth = sum(count for _, count, _, _ in layers)
        self.width = max(width for _, _, width, _ in layers)
        self.nonzero_parameters = sum(nonzero for _, _, _, nonzero in layers)

    def _reflected(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`I_n f(x)` on :math:`[0, 1]`, continued linearly (oddly, as :math:`f = 0` at both ends) to :math:`[-h/2, 1 + h/2]`."""
        inside = torch.where(x < 0, -x, torch.where(x > 1, 2 - x, x))
        return torch.where((x < 0) | (x > 1), -1.0, 1.0) * self.interpolant(inside[:, None])

    def band_widths(self, band: float | None = None) -> torch.Tensor:
        """Widths in :math:`x` of the bands of the four floor stages: ``band`` (default ``self.band``) over :math:`W, W^2, W^2L, K`, per table row size."""
        t = self.table
        scale = 4.0 if self.shifted else 1.0  # r = (x + h/2) / 4 for the shifted copy
        steps = torch.tensor([t.W, t.W**2, t.W**2 * t.L, t.K], dtype=torch.float64, device=t.lookup.device)
        return scale * (self.band if band is None else band) / steps

    def evaluate(self, x: torch.Tensor, band: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """:math:`\\Phi(x)` ``(n,)`` and the mask ``(n,)`` of points in a band (some step strictly between 0 and 1).

        ``band`` replaces the width :math:`\\delta` of the bands (a probe; default ``self.band``).
        """
        c_hat, tau, in_band = self.table.read(self._table_input(x), self.band if band is None else band)
        # 5. recombination
        if self.shifted:
            powers = [tau, 2 * torch.relu(tau - 0.5)]
        else:
            powers = [tau] if self.m == 2 else [tau, self.square(tau[:, None])[:, 0]]
        lo, span = self.table.lo, self.table.span
        out = lo[0] + span[0] * c_hat[:, 0]
        for e, power in enumerate(powers, start=1):
            out = out + lo[e] * power + span[e] * self.product(torch.stack([c_hat[:, e], power], dim=1))[:, 0]
        clipped = -self.clip_level + torch.relu(out + self.clip_level) - torch.relu(out - self.clip_level)
        return clipped, in_band

    def in_band(self, x: torch.Tensor, band: float | None = None) -> torch.Tensor:
        """The mask ``(n,)`` of :meth:`evaluate`, from the floor stages alone (:meth:`BitTable.locate`)."""
        return self.table.locate(self._table_input(x), self.band if band is None else band)[2]

    def _table_input(self, x: torch.Tensor) -> torch.Tensor:
        """``r`` ``(n,)`` at which the table is read: :math:`x`, or :math:`(x + h/2)/4` for the shifted copy; ``x`` validated."""
        if not isinstance(x, torch.Tensor) or x.ndim != 2 or x.shape[1] != 1:
            raise ValueError(f"x must be a tensor of shape (n, 1), got {getattr(x, 'shape', type(x).__name__)}")
        if x.dtype != torch.float64:
            raise TypeError(f"x must be float64 (words of up to 53 bits, cells of width 2^-{self.level}), "
                            f"got {x.dtype}")
        if not bool(((x >= 0) & (x <= 1)).all()):
            raise ValueError("x must lie in [0, 1]")
        return (x[:, 0] + 0.5 / self.K) / 4 if self.shifted else x[:, 0]

    @property
    def lookup(self) -> torch.Tensor:
        """The double differences :math:`A` of the stored words (:class:`BitTable`), ``(L, P, W, W)``."""
        return self.table.lookup

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi(x)` for ``x`` ``(n, 1)`` in :math:`[0, 1]`."""
        return self.evaluate(x)[0]

    def gradient(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi'(x)`, ``(n, 1)``, by automatic differentiation through the network.

        Off the bands it is the derivative of the stored polynomial, :math:`K\\,\\partial_\\tau`, to
        quantisation and product errors; inside a band it is of order :math:`1/\\delta` (see
        :func:`band_profile`).
        """
        return network_gradient(self, x)

    @property
    def error_bound(self) -> float:
        """A bound on :math:`|\\Phi - I_n f|` off the bands.

        .. math:: \\sum_e span_e 2^{-J} + \\sum_{e \\ge 1} span_e 2^{-2s} + (|lo_2| + span_2) 2^{-2s-2}:

        quantisation (each :math:`\\hat c_e` within :math:`2^{-J}`, times :math:`|\\pi_e| \\le 1`), the
        products :math:`\\tilde\\times_s` and, for :math:`m = 3`, the square
        :math:`f_s(\\tau) - \\tau^2 \\in [0, 2^{-2s-2}]`;
        plus float64 round-off, ``ROUNDING`` times the clip level :math:`M`.
        """
        lo, span = self.table.lo, self.table.span
        bound = self.table.quantisation_bound + float(span[1:].sum()) * 4.0**-self.s + ROUNDING * self.clip_level
        if self.m == 3:
            bound += (abs(float(lo[2])) + float(span[2])) * 4.0**-self.s / 4
        return bound

    def layout(self) -> list[tuple[str, int, int, int]]:
        """``(stage, hidden layers, width, nonzero parameters)`` of the layered network, stage by stage, and ``output``.

        Steps 1-4 are counted by :meth:`BitTable.layout`. Then the products (the square too for
        :math:`m = 3`, the kink :math:`2\\rho(\\tau - \\tfrac12)` first for the shifted copy): their hidden
        layers as in :func:`nnproofs.networks.architecture`, their first maps reading single neurons,
        with every value a later layer needs carried by one ReLU per layer (two for the signed
        :math:`c_1\\tau` of :math:`m = 3`); a product's output map is fused into the layer that reads it.
        The clip reads :math:`c_0`, :math:`\\tau` and the powers where their coefficients :math:`span_0, lo_e` are
        nonzero and the products' outputs, plus a bias; the output map reads the clip's two neurons and a bias.
        This arithmetic equals the nonzero parameters counted on :meth:`explicit` (a test). It reads the
        weights where they may vanish: the lookup's nonzero double differences of the stored bits, the
        products' nonzero map entries and the nonzero :math:`span_0, lo_e` of the table.
        """
        layers = self.table.layout(input_bias=self.shifted)

        def layer(name: str, *groups: tuple[int, int]) -> None:  # groups of (neurons, nonzero parameters)
            layers.append((name, 1, sum(g[0] for g in groups), sum(g[1] for g in groups)))

        def nonzero(tensor) -> int:
            return int((tensor != 0).sum())

        product, square = affine_maps(self.product), affine_maps(self.square)
        p_hidden = sum(nonzero(w) + nonzero(b) for w, b in product[:-1])
        p_width, p_depth, p_out = max(w.shape[0] for w, _ in product[:-1]), len(product) - 1, nonzero(product[-1][0])
        lo, span = self.table.lo, self.table.span
        reads = nonzero(span[0]) + nonzero(lo[1]) + nonzero(span[1]) * p_out  # c_0, tau, c_1 tau
        if self.shifted:
            layer("kink 2 rho(tau - 1/2)", (1, 2), (3, 3), (1, 1))  # the kink; c_0, c_1, c_2; tau
            layers.append(("products c_1 tau, c_2 kink", p_depth, 2 * p_width + 3, 2 * p_hidden + 3 * p_depth))
            reads += nonzero(lo[2]) + nonzero(span[2]) * p_out
        elif self.m == 2:
            layers.append(("product c_1 tau", p_depth, p_width + 2, p_hidden + 2 * p_depth))
        else:
            s_hidden = sum(nonzero(w) + nonzero(b) for w, b in square[:-1])
            s_width, (s_w, s_b) = max(w.shape[0] for w, _ in square[:-1]), square[-1]
            layers.append(("square tau, product c_1 tau", self.s, s_width + p_width + 3, s_hidden + p_hidden + 3 * self.s))
            first_w, first_b = product[0]  # reads c_2 and the square's output map
            first = (nonzero(first_w[:, 0]) + nonzero(first_w[:, 1]) * nonzero(s_w)
                     + nonzero(first_w[:, 1] * s_b + first_b))
            carries = 2 + nonzero(s_w) + nonzero(s_b) + 2 * (p_out + nonzero(product[-1][1]))  # c_0, tau, square, ±c_1 tau
            layers.append(("product c_2 tau^2", self.s, p_width + 5,
                           first + p_hidden - nonzero(first_w) - nonzero(first_b) + carries + 5 * (self.s - 1)))
            reads = (nonzero(span[0]) + nonzero(lo[1]) + 2 * nonzero(span[1]) + nonzero(lo[2])  # c_0, tau, ±c_1 tau, square
                     + nonzero(span[2]) * p_out)  # c_2 tau^2
        layer("clip", (2, 2 * (reads + 1)))
        layers.append(("output", 0, 0, 3))
        return layers

    def explicit(self, band: float | None = None):
        """This network written out layer by layer (:func:`nnproofs.korobov.explicit.explicit_network_b`)."""
        return explicit_network_b(self, band)



@dataclasses.dataclass(frozen=True)
class BandProfile:
    """Network B sampled across its bands :math:`\\Omega_\\varepsilon` (:func:`band_profile`).

    ``variation``: estimate of :math:`\\int_{\\Omega_\\varepsilon} |\\Phi'|`, the total variation of
    :math:`\\Phi` over all :math:`K - 1` boundaries (mean over the sampled boundaries times
    :math:`K - 1`; per boundary a lower bound, since a sampled piecewise-linear function varies at
    least as much as its samples); ``target_variation``: the same for :math:`f`; ``sup_error``:
    :math:`\\max |\\Phi - f|` on the samples; ``max_slope``: the largest difference quotient of
    :math:`\\Phi` between neighbouring samples; ``band_measure``: :math:`|\\Omega_\\varepsilon|`, the
    summed widths of every stage's bands; ``error_integrals``: estimates of
    :math:`\\int |\\Phi - f|^p` over the sampled windows (which contain every band) for
    :math:`p = 1, 2` (trapezoidal rule on the samples, scaled like ``variation``);
    ``boundaries``: how many boundaries were sampled.
    """

    variation: float
    target_variation: float
    sup_error: float
    max_slope: float
    band_measure: float
    error_integrals: dict[int, float]
    boundaries: int


def band_profile(network: SuperApproximationNetwork, f: Callable, *, boundaries: int = 31,
                 samples: int = 17) -> BandProfile:
    """How Network B behaves inside its bands, where it is *not* the interpolant.

    Parameters
    ----------
    network : SuperApproximationNetwork
        Network B in :math:`d = 1`, as :func:`super_approximation_network` builds it.
    f : callable
        The target, mapping an ``(n, 1)`` float64 tensor to ``(n,)`` values.
    boundaries : int, optional
        Cell boundaries :math:`k/K` sampled, spread evenly (all of them when :math:`K - 1` is smaller).
    samples : int, optional
        Points across each of the four floor stages' band widths, at least 2.

    Returns
    -------
    BandProfile
        The variation of :math:`\\Phi` over the bands, the largest error and slope there, the bands'
        measure and the integrals of :math:`|\\Phi - f|^p` over them (:math:`p = 1, 2`).

    Examples
    --------
    >>> from nnproofs import korobov
    >>> f = korobov.korobov_example(1)
    >>> net = korobov.super_approximation_network(f, m=2, W=2, L=2)
    >>> korobov.band_profile(net, f).sup_error > 0.1
    True

    Notes
    -----
    Bands of width :math:`2^{-46}` are mostly thinner than the float64 spacing of :math:`x`; they are
    sampled with the bands widened to ``PROBE_BAND`` :math:`= 2^{-30}`, and integrals and slopes are
    rescaled (inside a band the network depends on :math:`x` only through how far the step has risen). In
    :math:`L_p` the bands cost at most :math:`2M|\\Omega_\\varepsilon|^{1/p}`; in :math:`W^1_p` they do not
    shrink at all, since :math:`\\|(\\Phi - f)'\\|_{L_1(\\Omega_\\varepsilon)} \\ge \\int_{\\Omega_\\varepsilon}|\\Phi'|
    - \\int_{\\Omega_\\varepsilon}|f'|`.
    """
    if not isinstance(network, SuperApproximationNetwork):
        raise TypeError(f"network must be a SuperApproximationNetwork, got {type(network).__name__}")
    for name, tensor in (*network.named_parameters(), *network.named_buffers()):
        if tensor.is_floating_point() and (tensor.dtype != torch.float64 or not bool(torch.isfinite(tensor).all())):
            raise ValueError(f"network must hold finite float64 weights (as super_approximation_network builds "
                             f"them); {name} is {tensor.dtype}{'' if tensor.dtype != torch.float64 else ' with non-finite entries'}")
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, 1) tensors to (n,) values, got {type(f).__name__}")
    positive_int("boundaries", boundaries)
    positive_int("samples", samples)
    name, value = ("samples", samples) if samples > boundaries else ("boundaries", boundaries)
    budget.refuse_beyond(name, value, cost=8 * 64 * boundaries * samples, limit=budget.memory(), unit="bytes")
    if samples < 2:
        raise ValueError(f"samples must be at least 2 points per band width, got {samples}")
    K, W, L = network.K, network.W, network.L
    device = network.lookup.device
    scale = network.band / PROBE_BAND
    widths = network.band_widths(PROBE_BAND)
    fractions = torch.linspace(0, 1, samples, dtype=torch.float64, device=device)
    offsets = torch.cat([(fractions[:, None] * widths).reshape(-1), 2 * widths[:1]]).unique()  # ascending
    cells = torch.unique(torch.linspace(1, K - 1, min(boundaries, K - 1), device=device).round()).to(torch.float64)
    x = (cells[:, None] / K - offsets.flip(0)[None, :]).reshape(-1, 1)  # increasing along each row
    with torch.no_grad():
        values, _ = network.evaluate(x, band=PROBE_BAND)
    values = values.reshape(cells.numel(), -1)
    target = evaluate_target(f, x).reshape(cells.numel(), -1)
    steps = x.reshape(cells.numel(), -1).diff(dim=1)
    jumps = values.diff(dim=1).abs()
    slopes = torch.where(steps > 0, jumps / steps.clamp(min=torch.finfo(torch.float64).tiny), torch.zeros_like(jumps))
    error = (values - target).abs()
    integrals = {p: float((0.5 * (error[:, 1:] ** p + error[:, :-1] ** p) * steps).sum()) for p in (1, 2)}
    per_boundary = (K - 1) / cells.numel()
    measure = network.band * ((W - 1) / W + W * (W - 1) / W**2 + W * W * (L - 1) / (W * W * L)
                              + W * W * L * (L - 1) / K)
    return BandProfile(
        variation=float(jumps.sum()) * per_boundary,
        target_variation=float(target.diff(dim=1).abs().sum()) * per_boundary * scale,
        sup_error=float((values - target).abs().max()),
        max_slope=float(slopes.max()) / scale,
        band_measure=measure,
        error_integrals={p: value * per_boundary * scale for p, value in integrals.items()},
        boundaries=int(cells.numel()),
    )


def super_approximation_network(f: Callable, *, m: int, W: int, L: int, d: int = 1,
                                coefficient_bits: int | None = None, product_depth: int | None = None,
                                coefficient_scale: float = 1.0
                                ) -> SuperApproximationNetwork | SparseSuperApproximationNetwork:
    """Network B for ``f`` on :math:`[0, 1]^d` with nominal width ``W`` and depth ``L``.

    Parameters
    ----------
    f : callable
        The target, mapping an ``(n, d)`` float64 tensor to ``(n,)`` values, zero on the boundary.
    m : int
        The degree of the stored interpolant plus one: 2 (hats) or 3 (quadratics) in :math:`d = 1`, 2 in
        :math:`d \\ge 2`.
    W, L : int
        Nominal width and depth, powers of two (so that :math:`K = (WL)^2` is a sparse-grid level and cell
        location is exact in binary arithmetic), ``L <= 53`` (bits per float64 word).
    d : int, optional
        The dimension.
    coefficient_bits : int, optional
        A fixed number :math:`J` of bits per coefficient instead of :math:`\\min(mn + 8, 53)`, which grows
        with :math:`\\log K` (negative control: a fixed :math:`J`).
    product_depth : int, optional
        The depth :math:`s` of Yarotsky's products instead of :math:`\\lceil mn/2\\rceil + 4`.
    coefficient_scale : float, optional
        :math:`c > 0`: every coefficient (surplus in :math:`d \\ge 2`) stored times :math:`c` (near-miss
        control; 1 is Network B).

    Returns
    -------
    SuperApproximationNetwork or SparseSuperApproximationNetwork
        :class:`SuperApproximationNetwork` in :math:`d = 1`, :class:`SparseSuperApproximationNetwork` in
        :math:`d \\ge 2`; ``width``, ``depth`` and ``nonzero_parameters`` equal the counts on ``explicit()``.

    Examples
    --------
    >>> from nnproofs import korobov
    >>> net = korobov.super_approximation_network(korobov.korobov_example(1), m=2, W=2, L=2)
    >>> net.K, net.J
    (16, 16)

    Notes
    -----
    The stored bits are limited by ``MAX_STORED_BITS`` (a memory cap of this library, not of float64).
    """
    positive_int("d", d)
    require_smoothness(m)
    if d >= 2 and m != 2:
        raise ValueError(f"m={m} with d={d} is not implemented: Network B in d >= 2 stores hat surpluses; allowed: m = 2")
    require_sizes(W, L)
    if coefficient_bits is not None:
        positive_int("coefficient_bits", coefficient_bits)
        if coefficient_bits > MAX_BITS[torch.float64]:
            raise ValueError(f"coefficient_bits={coefficient_bits} exceeds 53; allowed: 1..53")
    if product_depth is not None:
        require_product_depth("product_depth", product_depth)
    coefficient_scale = require_coefficient_scale(coefficient_scale)
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, {d}) tensors to (n,) values, got {type(f).__name__}")
    level = 2 * int(round(math.log2(W * L)))
    bits = min(m * level + 8, MAX_BITS[torch.float64]) if coefficient_bits is None else coefficient_bits
    require_stored_bits((W * L) ** 2 * m * bits if d == 1 else sparse_grid_size(level, d) * bits, W, L, d)
    if d >= 2:
        return SparseSuperApproximationNetwork(f, d=d, W=W, L=L, coefficient_bits=coefficient_bits,
                                               product_depth=product_depth, coefficient_scale=coefficient_scale)
    return SuperApproximationNetwork(f, m=m, W=W, L=L, coefficient_bits=coefficient_bits, product_depth=product_depth,
                                     coefficient_scale=coefficient_scale)

