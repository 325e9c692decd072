"""Chapter 2, Network B in :math:`d \\ge 2` (``thm-korobov-super``, :math:`m = 2`): sparse-grid surpluses stored as bits.

One :class:`nnproofs.korobov.bit_table.BitTable` of surpluses per level of the sparse grid, read at the
level's flat cell index from the binary digits of :math:`x`; Network A's template gives the hat product.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from ..gadgets import yarotsky_product
from ..networks import affine_maps
from .bit_table import BitTable, floor_stage
from .explicit import explicit_sparse_network_b
from .network_a import basis_product_network
from .sizes import BAND, MAX_BITS, ROUNDING
from .sparsegrid import sparse_grid_interpolant


class SparseSuperApproximationNetwork(nn.Module):
    """Network B in :math:`d \\ge 2` (:math:`m = 2`): the sparse-grid interpolant with its surpluses stored as bits.

    The interpolant is :math:`I_n f` with hats (:mod:`nnproofs.korobov.sparsegrid`) of level
    :math:`n = \\log_2 (WL)^2`, the level whose finest cells in one direction are the :math:`(WL)^2`
    cells of the one-dimensional network. For :math:`x \\in [0, 1]^d`:

    1. *binary digits* — :math:`n - 1` floor stages of base 2 per coordinate (:func:`floor_stage`)
       give the digits :math:`b_{j,1}, b_{j,2}, \\dots` of :math:`x_j` and the remainders
       :math:`r_{j,t} = 2^t x_j - \\lfloor 2^t x_j \\rfloor`; the cell of level :math:`l_j` is
       :math:`c_j = \\sum_{t < l_j} b_{j,t} 2^{l_j - 1 - t}` and the local coordinate
       :math:`t_j = 2 r_{j, l_j - 1} - 1 \\in [-1, 1]`, exact off bands of measure at most
       :math:`d(n-1)\\delta/2` (``band_measure``);
    2. *lookup, per level* :math:`\\mathbf l` — the flat cell index
       :math:`k_{\\mathbf l} = \\sum_j c_j\\,\\text{stride}_{\\mathbf l, j} < K_{\\mathbf l} = 2^{|\\mathbf l|_1 - d}`
       (affine in the digits) selects the surplus :math:`v_{\\mathbf l, k}` from the level's
       :class:`BitTable` of :math:`K'_{\\mathbf l} = (W_{\\mathbf l} L_{\\mathbf l})^2 \\ge K_{\\mathbf l}` rows
       (zero-padded; :math:`W_{\\mathbf l} L_{\\mathbf l}` the smallest power of two, at least 2, whose
       square holds the level, :math:`L_{\\mathbf l} \\le L` and :math:`W_{\\mathbf l} \\le W`), read at the
       multiple :math:`k_{\\mathbf l}/K'_{\\mathbf l}` of :math:`1/K'_{\\mathbf l}`, so the table's own
       floor stages have no bands;
    3. *shape* — :math:`T_{\\mathbf l}` is :func:`basis_product_network` with arguments :math:`(d, s)`, at :math:`t`:
       Network A's template, within :math:`(d-1)4^{-s}` of :math:`\\prod_j (1 - |t_j|)`;
    4. *recombination* —
       :math:`\\Phi = \\operatorname{clip}_M \\sum_{\\mathbf l} lo_{\\mathbf l} T_{\\mathbf l}
       + span_{\\mathbf l}\\,\\tilde\\times_s(\\hat c_{\\mathbf l}, T_{\\mathbf l})`,
       :math:`M = 1 + \\sum_{\\mathbf l}\\max_k |v_{\\mathbf l, k}|`.

    Off the bands :math:`|\\Phi - I_n f| \\le \\sum_{\\mathbf l} span_{\\mathbf l} 2^{-J}
    + (|lo_{\\mathbf l}| + span_{\\mathbf l})(d-1)4^{-s} + span_{\\mathbf l} 4^{-s}` plus round-off
    (``error_bound``); ``coefficient_scale`` :math:`c \\ne 1` stores :math:`c\\,v_{\\mathbf l, k}` instead
    (near-miss control; ``interpolant`` stays :math:`I_n f`). Defaults :math:`J = \\min(2n + 8, 53)` and :math:`s = n + 4`, as in
    :math:`d = 1`. Resources: :meth:`explicit` writes the network out (the digit stages in sequence,
    then the levels' tables and templates side by side, then the products); ``width``, ``depth`` and
    ``nonzero_parameters`` are the layout arithmetic of :meth:`layout`, equal to the counts on those
    weights (a test); ``stored_bits`` sums :math:`J K'_{\\mathbf l}` over the levels.

    Parameters
    ----------
    f, d, W, L, coefficient_bits, product_depth, coefficient_scale
        As for :func:`~nnproofs.korobov.super_approximation_network`, which validates them and is the way to
        build one.
    """

    def __init__(self, f: Callable, *, d: int, W: int, L: int, coefficient_bits: int | None = None,
                 product_depth: int | None = None, coefficient_scale: float = 1.0):
        super().__init__()
        self.d, self.m, self.W, self.L = d, 2, W, L
        self.band = BAND
        self.K = (W * L) ** 2  # finest cells per direction, as in d = 1
        self.level = 2 * int(round(math.log2(W * L)))
        n = self.level
        self.J = min(2 * n + 8, MAX_BITS[torch.float64]) if coefficient_bits is None else coefficient_bits
        self.s = n + 4 if product_depth is None else product_depth
        self.interpolant = sparse_grid_interpolant(f, d=d, level=n)
        device = self.interpolant.points.device
        levels = self.interpolant.levels.tolist()
        offsets = self.interpolant.offsets.tolist()
        tables = []
        for k, level in enumerate(levels):
            cells = 2 ** (sum(level) - d)
            side = max(1, math.ceil(math.log2(cells) / 2))  # W_l L_l = 2^side >= sqrt(cells), at least 2
            L_l = min(L, 2**side)
            W_l = 2**side // L_l
            surpluses = self.interpolant.surpluses[offsets[k] : offsets[k] + cells] * coefficient_scale
            padded = torch.zeros((W_l * L_l) ** 2, 1, dtype=torch.float64, device=device)
            padded[:cells, 0] = surpluses
            tables.append(BitTable(padded, W=W_l, L=L_l, J=self.J))
        self.tables = nn.ModuleList(tables)
        self.register_buffer("strides", self.interpolant.strides.to(torch.float64))
        self.template = basis_product_network(d, self.s).to(device)
        self.product = yarotsky_product(self.s, device=device)
        maxima = [coefficient_scale * float(self.interpolant.surpluses[offsets[k] : offsets[k] + 2 ** (sum(level) - d)]
                                                 .abs().max()) for k, level in enumerate(levels)]
        self.clip_level = 1.0 + sum(maxima)
        self.stored_bits = sum(table.stored_bits for table in tables)
        self.band_measure = d * (n - 1) * BAND / 2
        layers = self.layout()
        self.depth = sum(count for _, count, _, _ in layers)
        self.width = max(width for _, _, width, _ in layers)
        self.nonzero_parameters = sum(nonzero for _, _, _, nonzero in layers)

    def evaluate(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """:math:`\\Phi(x)` ``(n,)`` and the mask ``(n,)`` of points in a band of the digit stages."""
        x = self.interpolant.validate_points(x)
        if x.dtype != torch.float64:
            raise TypeError(f"x must be float64 (cells of width 2^-{self.level}, words of up to 53 bits), got {x.dtype}")
        d, n = self.d, self.level
        r = x.T.reshape(-1)  # (d * points,)
        digits, remainders = [], [r]
        in_band = torch.zeros_like(r, dtype=torch.bool)
        for _ in range(n - 1):
            step, r = floor_stage(r, 2, self.band)
            in_band |= (step > 0).any(dim=1) & (step < 1).any(dim=1)
            digits.append(step[:, 0])
            remainders.append(r)
        points = x.shape[0]
        digits = [b.reshape(d, points) for b in digits]
        remainders = [t.reshape(d, points) for t in remainders]
        in_band = in_band.reshape(d, points).any(dim=0)
        out = torch.zeros(points, dtype=x.dtype, device=x.device)
        for k, (level, table) in enumerate(zip(self.interpolant.levels.tolist(), self.tables)):
            cells = torch.zeros(d, points, dtype=x.dtype, device=x.device)
            for j, l_j in enumerate(level):
                for t in range(l_j - 1):
                    cells[j] = cells[j] + digits[t][j] * 2.0 ** (l_j - 2 - t)
            flat = (cells * self.strides[k][:, None]).sum(dim=0)
            c_hat, _, _ = table.read(flat / table.K, self.band)
            local = torch.stack([2 * remainders[l_j - 1][j] - 1 for j, l_j in enumerate(level)], dim=1)
            shape = self.template(local)[:, 0]
            product = self.product(torch.stack([c_hat[:, 0], shape], dim=1))[:, 0]
            out = out + table.lo[0] * shape + table.span[0] * product
        clipped = -self.clip_level + torch.relu(out + self.clip_level) - torch.relu(out - self.clip_level)
        return clipped, in_band

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi(x)` for ``x`` ``(n, d)`` in :math:`[0, 1]^d`."""
        return self.evaluate(x)[0]

    @property
    def error_bound(self) -> float:
        """:math:`\\sum_{\\mathbf l} span_{\\mathbf l}(2^{-J} + 4^{-s}) + (|lo_{\\mathbf l}| + span_{\\mathbf l})(d-1)4^{-s}`, plus ``ROUNDING`` times :math:`M`."""
        bound = ROUNDING * self.clip_level
        for table in self.tables:
            lo, span = abs(float(table.lo[0])), float(table.span[0])
            bound += span * (2.0**-self.J + 4.0**-self.s) + (lo + span) * (self.d - 1) * 4.0**-self.s
        return bound

    def layout(self) -> list[tuple[str, int, int, int]]:
        """``(stage, hidden layers, width, nonzero parameters)`` of the network :meth:`explicit` builds, and ``output``.

        The layout arithmetic (a neuron's nonzero parameters are the previous-layer neurons it reads plus a
        nonzero bias). Digit :math:`t` of each coordinate: two pairs (a weight and a bias each), the step
        (two reads), the remainder (two reads), with the :math:`2t - 1` values found before carried (one
        read each) and the step carried into the remainder's layer. The levels side by side, layer by layer
        (widths add): each level's table (:meth:`BitTable.layout`, its first stage reading the
        :math:`\\sum_j (l_j - 1)` digits of :math:`k_{\\mathbf l}`) and its template (the maps of
        :func:`basis_product_network`, the first fused with :math:`t = 2r - 1`), the shallower carrying
        its output, one ReLU per layer (the first reading the output's terms). Then the products, their
        first maps reading :math:`\\hat c_{\\mathbf l}` and :math:`T_{\\mathbf l}`, with :math:`T_{\\mathbf l}`
        carried; the clip reads :math:`T_{\\mathbf l}` where :math:`lo_{\\mathbf l} \\ne 0`, the products'
        output maps and a bias; the output map reads the clip's two neurons and a bias. This arithmetic
        equals the counts on :meth:`explicit` (a test). It is not independent of the weights: the digit
        stages are pure arithmetic in :math:`d, n`, but the lookup stages count the nonzero double
        differences of the stored bits (:meth:`BitTable.layout`), the template and product stages the
        nonzero entries of their maps, and the clip the nonzero :math:`lo_{\\mathbf l}` and the products' outputs.
        """
        def nonzero(tensor) -> int:
            return int((tensor != 0).sum())

        d, n = self.d, self.level
        layers: list[tuple[str, int, int, int]] = []
        for t in range(1, n):
            found = 2 * t - 1  # r_0..r_{t-1}, b_1..b_{t-1}
            layers += [(f"digit {t}: pairs", 1, d * (2 + found), d * (4 + found)),
                       (f"digit {t}: step", 1, d * (1 + found), d * (2 + found)),
                       (f"digit {t}: remainder", 1, d * (2 + found), d * (3 + found))]
        template = affine_maps(self.template)
        (first_w, first_b), (out_w, out_b) = template[0], template[-1]
        shape_layers = ([(first_w.shape[0], nonzero(first_w) + nonzero(first_b - first_w.sum(dim=1)))]
                        + [(w.shape[0], nonzero(w) + nonzero(b)) for w, b in template[1:-1]])
        blocks = []  # per block: hidden (neurons, nonzero) per layer, (reads, bias) of its output
        for level, table in zip(self.interpolant.levels.tolist(), self.tables):
            rows = table.layout(input_weights=sum(l_j - 1 for l_j in level))
            blocks.append(([(neurons, z) for _, _, neurons, z in rows], (1, 0.0)))  # c_hat: one neuron
            blocks.append((list(shape_layers), (nonzero(out_w), float(out_b))))
        side = max(len(hidden) for hidden, _ in blocks)
        widths, total, reads = [0] * side, 0, []
        for hidden, (terms, bias) in blocks:
            missing = side - len(hidden)
            if missing:  # carried: the first ReLU reads the output's terms, the next ones one neuron
                hidden = hidden + [(1, terms + nonzero(torch.tensor(bias)))] + [(1, 1)] * (missing - 1)
                terms, bias = 1, 0.0
            for i, (neurons, z) in enumerate(hidden):
                widths[i] += neurons
                total += z
            reads.append((terms, bias))
        layers.append(("levels: tables beside templates", side, max(widths), total))
        product = affine_maps(self.product)
        (p_w, p_b), p_out = product[0], nonzero(product[-1][0])
        total = 0
        for (c_reads, c_bias), (t_reads, t_bias) in zip(reads[0::2], reads[1::2]):
            total += (nonzero(p_w[:, 0]) * c_reads + nonzero(p_w[:, 1]) * t_reads
                      + nonzero(p_w[:, 0] * c_bias + p_w[:, 1] * t_bias + p_b))
            total += sum(nonzero(w) + nonzero(b) for w, b in product[1:-1])
            total += t_reads + nonzero(torch.tensor(t_bias)) + len(product) - 2  # T_l carried
        count = len(self.tables)
        layers.append(("products c_l T_l", len(product) - 1, count * (max(w.shape[0] for w, _ in product[:-1]) + 1),
                       total))
        sum_reads = sum(nonzero(table.lo[0]) + p_out for table in self.tables)
        sum_bias = sum(float(table.span[0]) * float(product[-1][1][0]) for table in self.tables)
        layers.append(("clip", 1, 2, nonzero(torch.tensor([sum_bias + self.clip_level, sum_bias - self.clip_level]))
                       + 2 * sum_reads))
        layers.append(("output", 0, 0, 3))
        return layers

    def explicit(self):
        """This network written out layer by layer (:func:`nnproofs.korobov.explicit.explicit_sparse_network_b`)."""
        return explicit_sparse_network_b(self)
