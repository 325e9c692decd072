"""Chapter 2, Network A: the sparse-grid interpolant as an explicit ReLU network.

Exact hats and a balanced tree of Yarotsky's zero-preserving products :math:`\\tilde\\times_s` give every
basis function (:func:`basis_product_network`); one copy per grid point, with the surpluses as output
weights, is :class:`ReLUSparseGridNetwork`, within
:math:`\\#\\text{levels}\\cdot\\max|v|\\,(d-1)\\,2^{-2s}` of :math:`I_n f` (``eq-network-a-bound``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import torch
from torch import nn

from .. import budget
from ..compiled import CompileUnavailable, compiled_columns
from ..fused import fused_network_a
from ..gadgets import clip_unit, hat, identity_network, yarotsky_product
from ..measure import network_gradient
from ..networks import affine_maps, architecture, compose, forward_columns, linear_map, parallel
from ..pieces import breakpoints
from ..pruning import prune_inactive
from ..validate import positive_int
from .sizes import ROUNDING, require_product_depth
from .sparsegrid import SparseGridInterpolant

CHUNK_NEURONS = 1 << 23  # points x basis functions x template width evaluated at once
MAX_SEQUENTIAL_PARAMETERS = 1 << 24  # to_sequential refuses larger dense matrices


def product_block(product: Callable[[int], nn.Module], s: int) -> nn.Sequential:
    """``product(s)``, a ReLU network of two inputs, or a TypeError naming ``product``."""
    if not callable(product):
        raise TypeError(f"product must be a callable s -> nn.Sequential (a ReLU product), got {type(product).__name__}")
    try:
        block = product(s)
    except (TypeError, ValueError) as error:
        raise TypeError(f"product({s}) failed: {error}") from error
    if not isinstance(block, nn.Sequential):
        raise TypeError(f"product must return an nn.Sequential of Linear and ReLU layers, got {type(block).__name__}")
    if any(p.dtype != torch.float64 for p in block.parameters()):
        raise TypeError(f"product({s}) must hold float64 weights (the error is measured in float64)")
    return block


def basis_product_network(d: int, s: int, product: Callable[[int], nn.Module] = yarotsky_product) -> nn.Sequential:
    """:math:`t \\mapsto \\prod_{j=1}^d \\phi(t_j)` as a ReLU network (the template of every basis function of Network A).

    Parameters
    ----------
    d : int
        Dimension.
    s : int
        Depth of the products, at most ``MAX_PRODUCT_DEPTH``.
    product : callable
        ``s -> nn.Sequential``, a ReLU network of two inputs; default :math:`\\tilde\\times_s`.

    Returns
    -------
    nn.Sequential
        Exact hats :math:`\\phi` (:func:`nnproofs.gadgets.hat`), then a balanced binary tree of ``product(s)``,
        each clipped to :math:`[0, 1]` (:func:`clip_unit`); depth :math:`1 + \\lceil\\log_2 d\\rceil (s + 1)`.

    Notes
    -----
    Error at most :math:`(d-1)2^{-2s}` (each product adds :math:`2^{-2s}`; clipping and factors in
    :math:`[0,1]` do not increase errors); :math:`d = 1` is the hat alone, exact. Budget: about
    :math:`(8d)^2(1 + \\lceil\\log_2 d\\rceil(s+1))` float64 parameters within ``budget.memory()``.

    Examples
    --------
    >>> import torch
    >>> template = basis_product_network(2, 6)
    >>> float(template(torch.tensor([[0.0, 0.0]], dtype=torch.float64)))
    1.0
    """
    positive_int("d", d)
    require_product_depth("s", s)
    budget.refuse_beyond("d", d, cost=8 * (8 * d) ** 2 * (1 + (d - 1).bit_length() * (s + 1)), limit=budget.memory(),
                         unit="bytes")
    net = parallel(*[hat(-1.0, 0.0, 1.0) for _ in range(d)])
    factors = d
    pair = compose(clip_unit(), product_block(product, s)) if d > 1 else None  # one block, every product of the tree
    while factors > 1:
        blocks = [pair] * (factors // 2) + ([identity_network(architecture(pair).depth)] if factors % 2 else [])
        net = compose(parallel(*blocks), net)
        factors = len(blocks)
    return net


ZERO_TOLERANCE = 2.0**-46  # |product(a, 0)| at rounding level: float64 sums the blocks of a layer in different orders


def _axis_line(block: nn.Sequential, axis: int, at: float = 0.0) -> nn.Sequential:
    """The 1-D network :math:`t \\mapsto` ``block`` at :math:`(t, at)` (``axis = 0``) or :math:`(at, t)` (``axis = 1``)."""
    weight, bias = [[0.0], [0.0]], [at, at]
    weight[axis], bias[axis] = [1.0], 0.0
    return compose(block, linear_map(weight, bias, device=affine_maps(block)[0][0].device))


def zero_preserving(block: nn.Sequential) -> bool:
    """Whether ``|block(a, 0)|, |block(0, a)| <= 2^-46`` (rounding) for every :math:`a \\in [0, 1]`, read from the weights.

    Parameters
    ----------
    block : nn.Sequential
        A ReLU network of two inputs (a product).

    Returns
    -------
    bool
        Decided, not sampled: each restriction to an axis is a 1-D ReLU network, affine between its exact
        breakpoints (:func:`nnproofs.pieces.breakpoints`), evaluated there through the block's affine maps.

    Notes
    -----
    :math:`\\tilde\\times_s(a, 0)` is zero in exact arithmetic (about 1e-17 in float64); the clamped control
    leaks up to :math:`2^{-2s-1}`. Kinks closer than :math:`10^{-12}` count as one (``pieces.KINK_RTOL``).

    Examples
    --------
    >>> from nnproofs.gadgets import yarotsky_product
    >>> zero_preserving(yarotsky_product(5))
    True
    """
    for axis in (0, 1):
        line = _axis_line(block, axis)
        t = torch.cat([torch.tensor([0.0, 1.0], dtype=torch.float64), breakpoints(line, 0.0, 1.0).cpu()])
        values = forward_columns(line, t[:, None].to(affine_maps(line)[0][0].device))
        if not bool((values.abs() <= ZERO_TOLERANCE).all()):
            return False
    return True


MAX_LINE_POINTS = 1 << 22  # partition points of the lines held at once by product_error (x the block's width)


def line_partition(block: nn.Sequential, base: torch.Tensor,
                   direction: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Every breakpoint of ``block`` along the segments ``base + t * direction``, :math:`t \\in [0, 1]`, as points.

    Layer by layer, as :func:`nnproofs.pieces.breakpoints` does for one line, on all the segments at
    once: each hidden unit is affine between the points found so far, so the zero crossing of its
    pre-activation inside an interval is exact. Returns the points (end points included, in order
    along each segment), where every unit of ``block`` may change slope, and the index of their segment. ``block`` restricted to a
    segment is affine between consecutive points. Raises ValueError naming ``product`` beyond
    ``MAX_LINE_POINTS`` points (rule 14).
    """
    maps = affine_maps(block)
    line = torch.arange(base.shape[0], device=base.device).repeat_interleave(2)
    t = torch.tensor([0.0, 1.0], dtype=torch.float64, device=base.device).repeat(base.shape[0])
    h = base[line] + t[:, None] * direction[line]
    for weight, bias in maps[:-1]:
        z = h @ weight.T + bias
        left, right = z[:-1], z[1:]
        k, unit = ((left * right < 0) & (line[1:] == line[:-1])[:, None]).nonzero(as_tuple=True)
        if k.numel():
            if t.numel() + k.numel() > MAX_LINE_POINTS:
                raise ValueError(f"product: more than {MAX_LINE_POINTS} breakpoints on {base.shape[0]} lines "
                                 f"(MAX_LINE_POINTS); its error cannot be read exactly within the budget")
            frac = (left[k, unit] / (left[k, unit] - right[k, unit]))[:, None]
            z = torch.cat([z, z[k] + (z[k + 1] - z[k]) * frac])
            t, line = torch.cat([t, t[k] + (t[k + 1] - t[k]) * frac[:, 0]]), torch.cat([line, line[k]])
            order = torch.argsort(t, stable=True)
            order = order[torch.argsort(line[order], stable=True)]
            t, line, z = t[order], line[order], z[order]
        h = z.relu()
    return base[line] + t[:, None] * direction[line], line


def first_layer_lines(block: nn.Sequential) -> list[torch.Tensor]:
    """Coordinates on each axis of the critical points of the block's first layer in :math:`[0, 1]^2`.

    The kinks of rows with one nonzero weight (:math:`a = -b_k/w_k`) and the crossings of any two
    non-parallel kink lines :math:`w_k \\cdot x + b_k = 0` of the first layer.
    """
    weight, bias = (m.to(torch.float64) for m in affine_maps(block)[0])
    if weight.shape[1] != 2:
        raise ValueError(f"product must take two inputs (a, b), got {weight.shape[1]}")
    rows = weight.abs().sum(1) > 0
    weight, bias = weight[rows], bias[rows]
    i, j = torch.triu_indices(weight.shape[0], weight.shape[0], 1, device=weight.device)
    det = weight[i, 0] * weight[j, 1] - weight[i, 1] * weight[j, 0]
    keep = det != 0
    i, j, det = i[keep], j[keep], det[keep]
    a = (-bias[i] * weight[j, 1] + bias[j] * weight[i, 1]) / det
    b = (-weight[i, 0] * bias[j] + weight[j, 0] * bias[i]) / det
    axes = []
    for axis, crossing in ((0, a), (1, b)):
        lone = (weight[:, axis] != 0) & (weight[:, 1 - axis] == 0)
        points = torch.cat([-bias[lone] / weight[lone, axis], crossing])
        axes.append(torch.unique(points[(points >= 0) & (points <= 1)]))
    return axes


def product_errors(block: nn.Sequential, lines: int, seed: int = 0) -> tuple[float, float]:
    """:math:`\\max|P(a, b) - ab|` on lines of :math:`[0, 1]^2` parallel to the axes, exact on each line.

    Parameters
    ----------
    block : nn.Sequential
        The product :math:`P`, a ReLU network of two inputs (evaluated through its affine maps).
    lines : int
        Jittered lines per direction (one uniform position per cell of width ``1 / lines``), then
        ``2 * lines`` for the refined reading; both add the lines through the first layer's critical
        points (:func:`first_layer_lines`), the edges of the square and the lines through every kink
        that recurs on two lines (:func:`errors_on_lines`).
    seed : int
        Seed of the jitter.

    Returns
    -------
    tuple of float
        The maximum on the ``lines`` reading and on the refined one: lower bounds of
        :math:`\\sup_{[0,1]^2}|P(a, b) - ab|`.

    Notes
    -----
    On a line :math:`b = c` (or :math:`a = c`) the error :math:`P(a, c) - ac` is piecewise linear, so
    its maximum modulus is attained at a breakpoint of :math:`P` on the line or an end; every
    breakpoint is found exactly (:func:`line_partition`). Not seen: a defect narrower than
    ``1 / (2 lines)`` in both directions that lies between the lines and no kink of ``block`` outside
    it marks. :math:`\\tilde\\times_s` attains :math:`4^{-s}` (``eq-network-a-bound`` uses that per product).

    Examples
    --------
    >>> from nnproofs.gadgets import yarotsky_product
    >>> [round(e * 4**4, 2) for e in product_errors(yarotsky_product(4), 64)]
    [1.0, 1.0]
    """
    positive_int("lines", lines)
    maps = affine_maps(block)
    key = (hashlib.sha256(b"".join(m.detach().cpu().to(torch.float64).numpy().tobytes() + str(tuple(m.shape)).encode()
                                   for pair in maps for m in pair)).hexdigest(), lines, seed)
    if key not in _READ:  # the same weights read once (a check calls every s, a page calls the same products again)
        _READ[key] = _product_errors(block, lines, seed)
        while len(_READ) > 64:
            _READ.pop(next(iter(_READ)))
    return _READ[key]


_READ: dict[tuple, tuple[float, float]] = {}


def _product_errors(block: nn.Sequential, lines: int, seed: int) -> tuple[float, float]:
    device = affine_maps(block)[0][0].device
    generator = torch.Generator().manual_seed(seed)
    ends = torch.tensor([0.0, 1.0], dtype=torch.float64, device=device)
    critical = first_layer_lines(block)
    worst, recurring = torch.zeros(3, dtype=torch.float64), [ends[:0], ends[:0]]  # shared, coarse, refined lines
    for step, axis in enumerate((0, 1, 0)):  # lines along `axis`, at these values of the other coordinate
        jittered = [((torch.arange(n, dtype=torch.float64) + torch.rand(n, generator=generator, dtype=torch.float64))
                     / n).to(device) for n in (lines, 2 * lines)] if step < 2 else [ends[:0]] * 2
        shared = torch.cat([critical[1 - axis], ends, recurring[1 - axis]])
        which = torch.cat([torch.full((len(p),), i, device=device) for i, p in enumerate([shared] + jittered)])
        errors, recurring[axis] = errors_on_lines(block, axis, torch.cat([shared] + jittered))
        worst = torch.maximum(worst, torch.zeros(3, dtype=torch.float64, device=device).scatter_reduce(
            0, which, errors, "amax").cpu())
        recurring[1 - axis] = ends[:0]  # read once
    return float(worst[[0, 1]].max()), float(worst[[0, 2]].max())


def errors_on_lines(block: nn.Sequential, axis: int, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """:math:`\\max|P - ab|` on each line along ``axis`` at ``positions``, and the kinks found on two lines or more.

    A kink that recurs at the same coordinate (to :math:`2^{-40}`) on two lines lies, generically, on a kink
    line of ``block`` across the other axis: :func:`product_errors` reads the lines through it too, where a
    defect confined by such kinks in both directions is crossed.
    """
    errors, kinks = [], []
    base = torch.zeros(positions.numel(), 2, dtype=torch.float64, device=positions.device)
    base[:, 1 - axis] = positions
    direction = torch.zeros_like(base)
    direction[:, axis] = 1.0
    for chunk in range(0, positions.numel(), LINE_CHUNK):
        x, line = line_partition(block, base[chunk : chunk + LINE_CHUNK], direction[chunk : chunk + LINE_CHUNK])
        error = (forward_columns(block, x)[:, 0] - x[:, 0] * x[:, 1]).abs()
        errors.append(torch.zeros(int(line[-1]) + 1, dtype=torch.float64, device=x.device).scatter_reduce(
            0, line, error, "amax"))
        inside = (x[:, axis] > 0) & (x[:, axis] < 1)
        key = torch.round(x[inside, axis] * 2.0**40).long() + (line[inside] << 41)  # a kink once per line
        kinks.append(torch.unique(key) & ((1 << 41) - 1))
    values, counts = torch.unique(torch.cat(kinks), return_counts=True)
    return torch.cat(errors), values[counts >= 2].to(torch.float64) * 2.0**-40


LINE_CHUNK = 128  # lines partitioned at once by product_error


class ReLUSparseGridNetwork(nn.Module):
    """Network A: :math:`\\Phi(x) = \\sum v_{\\mathbf l,\\mathbf i}\\, T(2^{\\mathbf l} x - \\mathbf i)`.

    :math:`T` is :func:`basis_product_network` (``template``); the full network puts one copy of
    :math:`T` per grid point side by side, its first affine map fused with the local coordinates
    :math:`t = 2^{\\mathbf l} x - \\mathbf i`, and sums the outputs with the surpluses as output
    weights: width ``N * width(T)``, depth ``depth(T)``, ``nonzero_parameters`` counted on those
    weights (:meth:`to_sequential` builds it explicitly for small grids).

    Evaluation. :meth:`dense` evaluates every neuron. When the product is zero-preserving
    (``zero_preserving``: read from its weights at every breakpoint, to rounding), a copy of
    :math:`T` whose hat factor vanishes outputs 0 (in float64: a rounding error of about 1e-17), so
    :meth:`forward` evaluates only the copy that can be active on each level
    (:meth:`nnproofs.korobov.sparsegrid.SparseGridInterpolant.active_basis`), which gives the same function;
    otherwise :meth:`forward` is :meth:`dense`. Both run the copies of :math:`T` through
    :func:`nnproofs.networks.forward_columns` (one well-shaped matrix product per layer and block of
    rows). Distance to the interpolant:
    :math:`|\\Phi - I_n f| \\le \\#\\text{levels}\\cdot\\max|v|\\,(d-1)\\,2^{-2s}`, since at most one
    copy per level is active; ``error_bound`` adds float64 round-off, ``ROUNDING`` per term.

    Pruning (``prune=True``, zero-preserving products only). The active copy receives local
    coordinates :math:`t \\in [-1, 1]^d` only, so :meth:`forward` may evaluate instead
    ``active_template``, :math:`T` pruned on that box (:func:`nnproofs.pruning.prune_inactive`): the
    same function there, with fewer units. ``template`` and :meth:`dense` keep every unit (a copy of
    the full network also sees :math:`t` outside the box).

    Faster paths for the active copy: :meth:`compile` (``torch.compile``) and :meth:`fuse` (numba:
    the whole sum over levels in one compiled loop, :mod:`nnproofs.fused`).
    """

    def __init__(self, interpolant: SparseGridInterpolant, s: int, product: Callable[[int], nn.Module],
                 prune: bool = False):
        super().__init__()
        self.interpolant = interpolant
        self.s = s
        self.product = product_block(product, s).to(interpolant.points.device)  # called once; every copy uses it
        self.template = basis_product_network(interpolant.d, s, lambda _s: self.product)
        self.zero_preserving = zero_preserving(self.product)
        if prune and not self.zero_preserving:
            raise ValueError("prune=True needs a zero-preserving product (only the active copy is pruned); "
                             f"{getattr(product, '__name__', product)!r} is not")
        self.active_template = prune_inactive(self.template, (-1.0, 1.0)) if prune else self.template
        self.evaluate_template = self._eager_template
        self.fused = None
        maps = affine_maps(self.template)
        shape = architecture(self.template)
        self.depth = shape.depth
        self.width = interpolant.num_points * shape.width
        first_w, first_b = maps[0]
        fused_bias = first_b[None] - interpolant.point_indices.to(first_w.dtype) @ first_w.T  # b_1 - W_1 i, per copy
        last_w, last_b = maps[-1]
        self.nonzero_parameters = (
            interpolant.num_points * int((first_w != 0).sum())
            + int((fused_bias != 0).sum())
            + interpolant.num_points * sum(int((w != 0).sum()) + int((b != 0).sum()) for w, b in maps[1:-1])
            + int((interpolant.surpluses != 0).sum()) * int((last_w != 0).sum())
            + int(float(last_b) * float(interpolant.surpluses.sum()) != 0)
        )
        v = interpolant.surpluses
        self.error_bound = interpolant.levels.shape[0] * float(v.abs().max()) * ((interpolant.d - 1) * 4.0**-s + ROUNDING)

    def _points(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` if it is a float64 ``(n, d)`` tensor in :math:`[0, 1]^d` (the network's weights are float64)."""
        x = self.interpolant.validate_points(x)
        if x.dtype != torch.float64:
            raise TypeError(f"x must be float64 like the network's weights, got {x.dtype}")
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi(x)` for ``x`` ``(n, d)`` in :math:`[0,1]^d` (active copies only when zero-preserving; fused after :meth:`fuse`)."""
        if self.fused is not None and not (torch.is_grad_enabled() and getattr(x, "requires_grad", False)):
            return self.fused(x)
        x = self._points(x)
        if not self.zero_preserving:
            return self.dense(x)
        interpolant = self.interpolant
        surpluses = interpolant.surpluses.to(x.device)
        levels = interpolant.levels.shape[0]
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        size = max(1, CHUNK_NEURONS // (levels * self.width // interpolant.num_points))
        for start in range(0, x.shape[0], size):
            index, t = interpolant.active_basis(x[start : start + size])
            values = self.evaluate_template(t.reshape(-1, interpolant.d)).reshape(index.shape)
            out[start : start + size] = (surpluses[index] * values).sum(-1)
        return out

    def _eager_template(self, t: torch.Tensor) -> torch.Tensor:
        return forward_columns(self.active_template.to(t.device), t)

    def compile(self) -> bool:
        """Evaluate the active copy (``active_template``) through :func:`nnproofs.compiled.compiled_columns`.

        Returns ``True`` when the compiled path is in use, ``False`` when no compiler works here (the
        eager pass stays). The values agree with the eager pass to float64 rounding; compiling takes
        seconds to minutes, once.
        """
        try:
            self.evaluate_template = compiled_columns(self.active_template)
        except CompileUnavailable:
            self.evaluate_template = self._eager_template
            return False
        return True

    def fuse(self) -> None:
        """Evaluate :meth:`forward` through :func:`nnproofs.fused.fused_network_a` (numba; CPU, float64, one thread).

        The same function: the surplus-weighted sum over levels of ``active_template`` on the active
        copy's local coordinates (``eq-network-a-bound``), compiled into one loop; the values agree
        with the eager pass to float64 rounding. Inputs that require a gradient keep the eager pass
        (autograd). Raises :class:`nnproofs.fused.FusedUnavailable` (a ``ModuleNotFoundError``)
        without numba, and ValueError for a product that is not zero-preserving (then every copy
        counts, see :meth:`dense`). Compiling takes seconds, once.
        """
        if not self.zero_preserving:
            raise ValueError("fuse() evaluates the active copy per level, which needs a zero-preserving product")
        self.fused = fused_network_a(self.interpolant, self.active_template)

    def gradient(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\nabla\\Phi(x)`, ``(n, d)``, by automatic differentiation through the ReLU network.

        Exact almost everywhere (off the kinks, where torch takes :math:`\\rho'(0) = 0`); with
        :math:`\\tilde\\times_s` its distance to :math:`\\nabla I_n f` is :math:`O(2^{-s})`, one power
        of :math:`2^{-s}` less than the values (the derivative of :math:`f_s` is the slope of a
        chord of :math:`x^2` over an interval of length :math:`2^{-s}`).
        """
        return network_gradient(self, x)

    def dense(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\Phi(x)` with every copy of :math:`T` evaluated (the full network's neurons)."""
        interpolant = self.interpolant
        x = self._points(x)
        template = self.template.to(x.device)
        scale = torch.exp2(interpolant.point_levels.to(device=x.device, dtype=x.dtype))
        shift = interpolant.point_indices.to(device=x.device, dtype=x.dtype)
        surpluses = interpolant.surpluses.to(x.device)
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        size = max(1, CHUNK_NEURONS // self.width)
        for start in range(0, x.shape[0], size):
            t = x[start : start + size, None, :] * scale - shift
            values = forward_columns(template, t.reshape(-1, interpolant.d)).reshape(t.shape[:2])
            out[start : start + size] = values @ surpluses
        return out

    def to_sequential(self) -> nn.Sequential:
        """The full network as one ``Sequential(Linear, ReLU, ..., Linear)`` (small grids only)."""
        interpolant = self.interpolant
        estimate = self.width**2 * self.depth
        if estimate > MAX_SEQUENTIAL_PARAMETERS:
            raise ValueError(f"the dense network would hold about {estimate} parameters (N = {interpolant.num_points}); "
                             f"to_sequential allows at most {MAX_SEQUENTIAL_PARAMETERS}")
        d = interpolant.d
        device = interpolant.points.device
        copies = [
            compose(self.template, linear_map(torch.diag(torch.exp2(levels.to(torch.float64))), -indices.to(torch.float64),
                                              device=device))
            for levels, indices in zip(interpolant.point_levels, interpolant.point_indices)
        ]
        fan_out = linear_map(torch.eye(d, dtype=torch.float64).repeat(interpolant.num_points, 1), device=device)
        output = linear_map(interpolant.surpluses[None, :], device=device)
        return compose(output, compose(parallel(*copies), fan_out))


def relu_sparse_grid_network(interpolant: SparseGridInterpolant, *, s: int,
                             product: Callable[[int], nn.Module] = yarotsky_product,
                             prune: bool = False) -> ReLUSparseGridNetwork:
    """Network A for ``interpolant`` with products of depth ``s`` (:class:`ReLUSparseGridNetwork`).

    Parameters
    ----------
    interpolant : SparseGridInterpolant
        A hat (degree 1) interpolant: the quadratic basis is not piecewise linear.
    s : int
        Depth of the products.
    product : callable
        ``s -> nn.Sequential`` replacing :math:`\\tilde\\times_s` (negative control: :func:`clamped_product`).
    prune : bool
        Evaluate the active copy through the template pruned on :math:`[-1, 1]^d`.

    Returns
    -------
    ReLUSparseGridNetwork
        Within :math:`\\#\\text{levels}\\cdot\\max|v|\\,(d-1)\\,2^{-2s}` of the interpolant
        (``eq-network-a-bound``); for :math:`d = 1` the interpolant itself.

    Examples
    --------
    >>> from nnproofs.korobov import korobov_example, sparse_grid_interpolant
    >>> grid = sparse_grid_interpolant(korobov_example(2), d=2, level=3)
    >>> network = relu_sparse_grid_network(grid, s=6)
    >>> network.error_bound < 1e-2
    True
    """
    if not isinstance(interpolant, SparseGridInterpolant):
        raise TypeError(f"interpolant must be a SparseGridInterpolant, got {type(interpolant).__name__}")
    if interpolant.degree != 1:
        raise ValueError(f"interpolant.degree={interpolant.degree}: Network A realises the hat basis; allowed: 1")
    require_product_depth("s", s)
    if not isinstance(prune, bool):
        raise TypeError(f"prune must be True or False, got {prune!r}")
    return ReLUSparseGridNetwork(interpolant, s, product, prune)

