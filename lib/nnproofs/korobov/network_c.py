"""Chapter 2, Network C (``thm-korobov-sobolev``, :math:`d = 1`, :math:`m = 2`): Network B and its half-cell shift glued by a partition of unity.

The partition vanishes on the bands of each local network, so Network C has no bands and its derivative
error falls like :math:`(WL)^{-2}` everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from ..gadgets import sawtooth, yarotsky_product
from ..measure import network_gradient
from ..networks import affine_maps
from .bit_table import PROBE_BAND
from .explicit import explicit_network_c
from .network_b import SuperApproximationNetwork
from .sizes import MAX_BITS, require_sizes, require_stored_bits


class PartitionedNetwork(nn.Module):
    """Network C in :math:`d = 1`, :math:`m = 2` (``thm-korobov-sobolev``): two local networks glued by a partition of unity.

    :math:`\\phi_0` is Network B (:class:`SuperApproximationNetwork`), whose bands lie just left of the
    cell boundaries :math:`kh`; :math:`\\phi_1` is its half-cell shift (``shifted=True``), whose bands
    lie just left of the mid-cells :math:`(k - \\tfrac12)h`. With Yarotsky's sawtooth
    :math:`g_{n+1}(x) = 1 - |2\\{Kx\\} - 1|` (:func:`nnproofs.gadgets.sawtooth`, :math:`K` teeth, exact),

    .. math:: g_0 = \\min(\\max(2g_{n+1} - \\tfrac12, 0), 1), \\qquad g_1 = 1 - g_0,

    so :math:`g_0 = 0` within :math:`h/8` of every boundary and :math:`g_1 = 0` within :math:`h/8` of
    every mid-cell: each local network is used only where it has no band. The output is
    :math:`\\Phi = \\sum_\\nu 2M\\,\\tilde\\times_t\\big(g_\\nu, \\tfrac{\\phi_\\nu + M}{2M}\\big) - M g_\\nu`
    (:math:`M` the larger clip level), and :math:`\\tilde\\times_t(0, \\cdot) = 0` exactly, so the bands
    vanish from :math:`\\Phi` and its derivative: :math:`\\Phi` is continuous and piecewise linear.

    Derivative error. :math:`\\Phi' - f' = \\sum_\\nu g_\\nu(\\phi_\\nu - f)' + g_\\nu'(\\phi_\\nu - f)` up
    to the products: the first term is the interpolant's :math:`O(K^{-1})`, the second
    :math:`|g'| \\le 4K` times :math:`O(K^{-2})`, and the products' derivative error
    :math:`2\\cdot 2^{-t}(|g'| + |\\psi'|)` times :math:`2M`, against the interpolant's, which scales with the
    amplitude :math:`a = \\sum_l \\max|c_l|` of its coefficients, needs
    :math:`t = 2n + 9 + \\lceil\\log_2 (M/a)\\rceil` (``t``: the same for :math:`f` and :math:`cf`); the local networks use products of depth :math:`n + 4`, as Network B does for
    :math:`W^1`. Float64 limits the size: :math:`g_{n+1}(x)` keeps about :math:`53 - n` bits of
    :math:`x`, so the inputs of the products are dyadic of level about :math:`51 - n`; when that is
    below :math:`t` every input sits on a kink of Yarotsky's pieces, where the derivative is a
    convention of the ReLU (:math:`\\rho'(0) = 0`), and :math:`|g'| = 4K` amplifies it. The class refuses
    :math:`t + n + 2 > 53`, which allows :math:`WL \\le 64` (:math:`K \\le 2^{12}`) when :math:`M/a \\le 2`, that is
    :math:`a \\ge 1`, and less for smaller amplitudes. Off the bands of both local networks
    :math:`|\\Phi - I_n f| \\le` ``error_bound`` (the larger local bound plus :math:`4M\\,4^{-t}`).
    Resources: the two local networks and the partition side by side (the width of each at its
    widest, an upper bound), then the two products with :math:`g_\\nu` carried beside them.

    Parameters
    ----------
    f, W, L, shift
        As for :func:`partitioned_network`, which validates them and is the way to build one.
    """

    def __init__(self, f: Callable, *, W: int, L: int, shift: bool = True):
        super().__init__()
        self.W, self.L, self.m = W, L, 2
        level = 2 * int(round(math.log2(W * L)))
        self._require_float64(W * L, level, 2 * level + 9, ">=")  # at once, before the local networks
        self.local = nn.ModuleList([SuperApproximationNetwork(f, m=2, W=W, L=L, product_depth=level + 4),
                                    SuperApproximationNetwork(f, m=2, W=W, L=L, product_depth=level + 4, shifted=shift)])
        self.K, self.level, self.interpolant = self.local[0].K, level, self.local[0].interpolant
        self.clip_level = max(net.clip_level for net in self.local)
        amplitude = max(net.amplitude for net in self.local)
        if not amplitude > 0:
            raise ValueError("f vanishes at every node of the sparse grid: Network C's products are sized relative to"
                             " the interpolant's amplitude, which is 0")
        self.t = 2 * level + 9 + max(0, math.ceil(math.log2(self.clip_level / amplitude)))
        self._require_float64(W * L, level, self.t, "=", amplitude)
        device = self.interpolant.points.device
        self.sawtooth = sawtooth(level + 1, device=device)
        self.product = yarotsky_product(self.t, device=device)
        self.error_bound = max(net.error_bound for net in self.local) + 4 * self.clip_level * 4.0**-self.t
        self.stored_bits = sum(net.stored_bits for net in self.local)
        self.depth, self.width, self.nonzero_parameters = self.layout()

    @staticmethod
    def _require_float64(wl: int, level: int, t: int, relation: str, amplitude: float | None = None) -> None:
        """Refuse a product depth (``relation`` ``t``: ``"="`` or ``">="``) that float64 cannot resolve after the sawtooth of
        level ``level``; ``amplitude``: the interpolant's, which sets ``t``."""
        if t + level + 2 > MAX_BITS[torch.float64]:
            why = ("" if amplitude is None else f" (t = 2n + 9 + ceil(log2(M/a)) with the interpolant's amplitude"
                                                f" a = {amplitude:.3g}: a smaller a needs deeper products)")
            raise ValueError(f"W*L={wl} is too large for Network C in float64: g(x) = sawtooth(Kx) keeps about "
                             f"{MAX_BITS[torch.float64] - level - 2} bits of x, fewer than the depth t{relation}{t} of its "
                             f"products{why}, so every input lands on a kink of their pieces; allowed: "
                             f"t + 2 log2(W*L) + 2 <= {MAX_BITS[torch.float64]} (W*L <= 64 for a >= 1)")

    def layout(self) -> tuple[int, int, int]:
        """Depth, width and nonzero parameters by the layout arithmetic of :func:`nnproofs.korobov.explicit.explicit_network_c`.

        The local networks (:meth:`SuperApproximationNetwork.layout`, their output maps replaced by
        :math:`\\psi_\\nu = (\\phi_\\nu + M)/(2M)`, two reads and a bias where the local clip level is not :math:`M`) and the partition (the sawtooth, then the clip:
        :math:`g_0` two reads, :math:`g_1 = 1 - g_0` two reads and a bias) side by side, layer by layer
        (widths add); the shallower carry their outputs, one ReLU each per layer (the first reading their
        output's terms). Then the two products :math:`\\tilde\\times_t(g_\\nu, \\psi_\\nu)`, their first maps reading
        those terms, with :math:`g_0, g_1` carried, and the output map.
        """
        def nonzero(tensor) -> int:
            return int((tensor != 0).sum())

        widths, nonzeros, depths, reads = [], [], [], []  # per part: hidden widths, nonzero, depth, output terms
        for net in self.local:
            rows = [row for row in net.layout() if row[0] != "output"]
            widths.append([width for _, count, width, _ in rows for _ in range(count)])
            nonzeros.append(sum(z for *_, z in rows))
            reads.append([(2, (-net.clip_level + self.clip_level) * (1.0 / (2 * self.clip_level)))])  # psi: the clip's two neurons
        teeth = affine_maps(self.sawtooth)
        (t_w, t_b) = teeth[-1]
        widths.append([w.shape[0] for w, _ in teeth[:-1]] + [2])
        nonzeros.append(sum(nonzero(w) + nonzero(b) for w, b in teeth[:-1])
                        + 2 * nonzero(t_w) + nonzero(2 * t_b - 0.5) + nonzero(2 * t_b - 1.5))
        reads.append([(2, 0.0), (2, 1.0)])  # g_0 = rho_1 - rho_2, g_1 = 1 - g_0
        side = max(len(w) for w in widths)
        total = sum(nonzeros)
        for part in range(3):
            missing = side - len(widths[part])
            if missing:
                outputs = reads[part]
                total += sum(n + nonzero(torch.tensor(b)) for n, b in outputs) + (missing - 1) * len(outputs)
                widths[part] += [len(outputs)] * missing
                reads[part] = [(1, 0.0)] * len(outputs)
        product = affine_maps(self.product)
        (first_w, first_b), p_out = product[0], nonzero(product[-1][0])
        for nu in range(2):
            (g_reads, g_bias), (psi_reads, psi_bias) = reads[2][nu], reads[nu][0]
            total += (nonzero(first_w[:, 0]) * g_reads + nonzero(first_w[:, 1]) * psi_reads
                      + nonzero(first_w[:, 0] * g_bias + first_w[:, 1] * psi_bias + first_b))
            total += sum(nonzero(w) + nonzero(b) for w, b in product[1:-1])
            total += g_reads + nonzero(torch.tensor(g_bias)) + (len(product) - 2)  # g_nu carried
        total += 2 * p_out + 2 + nonzero(2 * product[-1][1])  # the output map
        width = max(max(sum(w[i] for w in widths) for i in range(side)),
                    2 * max(w.shape[0] for w, _ in product[:-1]) + 2)
        return side + len(product) - 1, width, total

    def explicit(self):
        """This network written out layer by layer (:func:`nnproofs.korobov.explicit.explicit_network_c`)."""
        return explicit_network_c(self)

    def partition(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`(g_0, g_1)` at ``x`` ``(n, 1)``: ``(n, 2)``."""
        tooth = self.sawtooth(x)[:, 0]
        g0 = torch.relu(2 * tooth - 0.5) - torch.relu(2 * tooth - 1.5)
        return torch.stack([g0, 1 - g0], dim=1)

    def forward(self, x: torch.Tensor, band: float | None = None) -> torch.Tensor:
        """:math:`\\Phi(x)` for ``x`` ``(n, 1)`` in :math:`[0, 1]` (``band``: probe width for the local networks' bands)."""
        g = self.partition(x)
        out = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
        M = self.clip_level
        for nu, net in enumerate(self.local):
            psi = (net.evaluate(x, band)[0] + M) / (2 * M)
            out = out + 2 * M * self.product(torch.stack([g[:, nu], psi], dim=1))[:, 0] - M * g[:, nu]
        return out

    def gradient(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi'(x)`, ``(n, 1)``, by automatic differentiation (everywhere: :math:`\\Phi` has no bands)."""
        return network_gradient(self, x)

    def band_samples(self, *, boundaries: int = 31, samples: int = 9, band: float = PROBE_BAND) -> torch.Tensor:
        """Points ``(n, 1)`` across every band of both local networks, at ``boundaries`` of their boundaries each.

        For the local networks probed with band width ``band`` (:func:`band_profile` explains why
        :math:`2^{-46}` cannot be sampled): ``samples`` offsets across each of the four stages' band
        widths, left of the boundaries :math:`kh` (:math:`\\phi_0`) and :math:`(k - \\tfrac12)h` (:math:`\\phi_1`).
        """
        points = []
        fractions = torch.linspace(0, 1, samples, dtype=torch.float64)
        cells = torch.unique(torch.linspace(1, self.K - 1, min(boundaries, self.K - 1)).round())
        for net in self.local:
            shift = 0.5 if net.shifted else 0.0
            offsets = (fractions[:, None] * net.band_widths(band).cpu()).reshape(-1).unique()
            edges = (cells - shift) / self.K
            points.append((edges[:, None] - offsets[None, :]).reshape(-1))
        x = torch.cat(points).clamp(0, 1)
        return x[:, None].to(self.interpolant.points.device)



def partitioned_network(f: Callable, *, W: int, L: int, shift: bool = True) -> PartitionedNetwork:
    """Network C (:class:`PartitionedNetwork`) for ``f`` on :math:`[0, 1]`, nominal ``W``, ``L`` as for Network B.

    Parameters
    ----------
    f : callable
        The target, mapping an ``(n, 1)`` float64 tensor to ``(n,)`` values, zero at 0 and 1.
    W, L : int
        Nominal width and depth, powers of two with :math:`WL \\le 64` (beyond it float64 leaves the
        products' inputs on the kinks of Yarotsky's pieces).
    shift : bool, optional
        ``False`` (negative control) makes the second local network an unshifted copy of the first, so its
        bands fall where :math:`g_1 = 1`.

    Returns
    -------
    PartitionedNetwork
        The network; ``interpolant``, ``error_bound``, ``partition(x)``, ``gradient(x)`` and
        ``explicit()`` (written out layer by layer, its resources counted on the weights).

    Examples
    --------
    >>> from nnproofs import korobov
    >>> net = korobov.partitioned_network(korobov.korobov_example(1), W=2, L=2)
    >>> net.K
    16
    """
    require_sizes(W, L)
    if not isinstance(shift, bool):
        raise TypeError(f"shift must be a bool, got {shift!r}")
    level = 2 * int(round(math.log2(W * L)))
    require_stored_bits(4 * (W * L) ** 2 * 3 * min(2 * level + 8, MAX_BITS[torch.float64]), W, L, 1)
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, 1) tensors to (n,) values, got {type(f).__name__}")
    return PartitionedNetwork(f, W=W, L=L, shift=shift)

