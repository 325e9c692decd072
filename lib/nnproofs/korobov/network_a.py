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
from ..pieces import KINK_RTOL, breakpoints
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


MAX_PIECES = 1 << 20  # linear pieces of a product held at once by product_error (rule 14)


def _cut(points: torch.Tensor, count: torch.Tensor, parent: torch.Tensor,
         z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Cut the convex polygons ``points`` (``(P, K, 2)``, ``count`` vertices in order) where ``z`` (``(P, K)``, its
    values at the vertices, affine on each polygon) changes sign; a vertex within ``KINK_RTOL`` of the
    polygon's largest ``|z|`` lies on the line. Both pieces keep the ``parent`` of the polygon they came from."""
    K = points.shape[1]
    slot = torch.arange(K, device=points.device)
    valid = slot < count[:, None]
    scale = torch.where(valid, z.abs(), 0.0).amax(1, keepdim=True)
    z = torch.where(z.abs() <= KINK_RTOL * scale, 0.0, z)
    cut = ((z > 0) & valid).any(1) & ((z < 0) & valid).any(1)
    if not bool(cut.any()):
        return points, count, parent
    whole, points_c, z, valid = ~cut, points[cut], z[cut], valid[cut]
    following = (slot + 1) % count[cut][:, None]
    z_next = z.gather(1, following)
    crossing = valid & (z * z_next < 0)
    fraction = torch.where(crossing, z / torch.where(crossing, z - z_next, 1.0), 0.0)[..., None]
    crossed = points_c + fraction * (points_c.gather(1, following[..., None].expand_as(points_c)) - points_c)
    slots = torch.stack([points_c, crossed], 2).flatten(1, 2)  # vertex i, then the crossing of edge (i, i + 1)
    pieces, counts = [], []
    for side in (z >= 0, z <= 0):
        keep = torch.stack([valid & side, crossing], 2).flatten(1)
        position = torch.where(keep, keep.cumsum(1) - 1, 2 * K)  # kept slots in order, the others to a spare one
        piece = points_c.new_zeros(points_c.shape[0], 2 * K + 1, 2)
        pieces.append(piece.scatter_(1, position[..., None].expand(-1, -1, 2), slots))
        counts.append(keep.sum(1))
    width = max(K, *(int(c.max()) for c in counts))
    return (torch.cat([_pad(points[whole], width)] + [piece[:, :width] for piece in pieces]),
            torch.cat([count[whole]] + counts), torch.cat([parent[whole], parent[cut], parent[cut]]))


def _pad(points: torch.Tensor, width: int) -> torch.Tensor:
    return torch.nn.functional.pad(points, (0, 0, 0, width - points.shape[1]))


def linear_pieces_2d(block: nn.Sequential) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Every linear piece of a ReLU network of two inputs on :math:`[0, 1]^2`, exactly, with its values.

    Parameters
    ----------
    block : nn.Sequential
        A ReLU network :math:`\\mathbb R^2 \\to \\mathbb R` (read through its affine maps, rule 9).

    Returns
    -------
    vertices : torch.Tensor
        ``(P, K, 2)``: the vertices of the ``P`` convex pieces, in order, padded.
    count : torch.Tensor
        ``(P,)``: the vertices of each piece.
    values : torch.Tensor
        ``(P, K)``: the network at the vertices, from the affine map of each piece.

    Notes
    -----
    Layer by layer: on each piece found so far every unit of the layer is affine (its map composed
    from the counted weights and the piece's activation pattern), so its zero line cuts the piece
    exactly; every unit cuts in turn. Raises ValueError naming ``product`` beyond ``MAX_PIECES``.

    Examples
    --------
    >>> from nnproofs.gadgets import yarotsky_product
    >>> int(linear_pieces_2d(yarotsky_product(3))[0].shape[0])
    32
    """
    maps = affine_maps(block)
    if maps[0][0].shape[1] != 2 or maps[-1][0].shape[0] != 1:
        raise ValueError(f"product must map two inputs (a, b) to one output, got {tuple(maps[0][0].shape[1:])} -> "
                         f"{maps[-1][0].shape[0]}")
    device = maps[0][0].device
    maps = [(w.detach().to(torch.float64), b.detach().to(torch.float64)) for w, b in maps]
    points = torch.tensor([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]], dtype=torch.float64, device=device)
    count = torch.tensor([4], device=device)
    slope, offset = maps[0][0][None], maps[0][1][None]  # the layer's pre-activations on each piece, (P, w, 2), (P, w)
    for weight, bias in maps[1:]:
        parent = torch.arange(points.shape[0], device=device)
        z = torch.einsum("pwc,pkc->pkw", slope, points) + offset[:, None, :]
        valid = (torch.arange(points.shape[1], device=device) < count[:, None])[..., None]
        z = torch.where(z.abs() <= KINK_RTOL * torch.where(valid, z.abs(), 0.0).amax(1, keepdim=True), 0.0, z)
        crossed = ((z > 0) & valid).any(1) & ((z < 0) & valid).any(1)  # (P, w): which unit cuts which piece
        for unit in crossed.any(0).nonzero()[:, 0].tolist():
            rows = crossed[parent, unit]  # a piece of a polygon that the unit does not cross is not crossed either
            here = parent[rows]
            values = (slope[here, unit, None, :] * points[rows]).sum(-1) + offset[here, unit, None]
            cut, cut_count, cut_parent = _cut(points[rows], count[rows], here, values)
            width = max(points.shape[1], cut.shape[1])
            points = torch.cat([_pad(points[~rows], width), _pad(cut, width)])
            count, parent = torch.cat([count[~rows], cut_count]), torch.cat([parent[~rows], cut_parent])
            if points.shape[0] > MAX_PIECES:
                raise ValueError(f"product: more than {MAX_PIECES} linear pieces on [0, 1]^2 (MAX_PIECES); its error "
                                 f"cannot be read exactly within the budget")
        valid = torch.arange(points.shape[1], device=device) < count[:, None]
        centre = (points * valid[..., None]).sum(1) / count[:, None]
        slope, offset = slope[parent], offset[parent]
        active = ((slope * centre[:, None, :]).sum(-1) + offset > 0).to(torch.float64)  # the piece's pattern
        slope = torch.einsum("ow,pwc->poc", weight, active[..., None] * slope)
        offset = (active * offset) @ weight.T + bias
    return points, count, (torch.einsum("pwc,pkc->pkw", slope, points) + offset[:, None, :])[..., 0]


def product_error(block: nn.Sequential) -> float:
    """:math:`\\sup_{[0,1]^2}|P(a, b) - ab|`, exactly (to rounding), for a ReLU network :math:`P` of two inputs.

    Parameters
    ----------
    block : nn.Sequential
        The product :math:`P` (evaluated through its affine maps).

    Returns
    -------
    float
        The supremum, attained on an edge of a linear piece (:func:`linear_pieces_2d`).

    Notes
    -----
    On each piece :math:`P - ab` is affine minus :math:`ab`, a harmonic function, so its modulus is
    largest on the piece's boundary; along an edge it is a quadratic in the edge's parameter, whose
    maximum is at an end or at its vertex, both evaluated. No defect is too small or too slanted to
    be seen; kinks closer than ``KINK_RTOL`` of a piece's range merge. The same weights are read once.

    Examples
    --------
    >>> from nnproofs.gadgets import yarotsky_product
    >>> round(product_error(yarotsky_product(4)) * 4**4, 12)
    1.0
    """
    maps = affine_maps(block)
    key = hashlib.sha256(b"".join(m.detach().cpu().to(torch.float64).numpy().tobytes() + str(tuple(m.shape)).encode()
                                  for pair in maps for m in pair)).hexdigest()
    if key not in _READ:  # the same weights read once (a check calls every s, a page calls the same products again)
        _READ[key] = _product_error(block)
        while len(_READ) > 64:
            _READ.pop(next(iter(_READ)))
    return _READ[key]


_READ: dict[str, float] = {}


def _product_error(block: nn.Sequential) -> float:
    vertices, count, values = linear_pieces_2d(block)
    slot = torch.arange(vertices.shape[1], device=vertices.device)
    valid = slot < count[:, None]
    error = values - vertices[..., 0] * vertices[..., 1]
    following = (slot + 1) % count[:, None]
    error_next = error.gather(1, following)
    step = vertices.gather(1, following[..., None].expand_as(vertices)) - vertices
    curvature = step[..., 0] * step[..., 1]  # along an edge, e(t) = (1 - t) e_0 + t e_1 + curvature t (1 - t)
    top = 0.5 + (error_next - error) / (2 * torch.where(curvature != 0, curvature, 1.0))
    inside = valid & (curvature != 0) & (top > 0) & (top < 1)
    top = torch.where(inside, top, 0.0)
    at_top = (1 - top) * error + top * error_next + curvature * top * (1 - top)
    ends, tops = torch.where(valid, error.abs(), 0.0), torch.where(inside, at_top.abs(), 0.0)
    return float(torch.maximum(ends.amax(), tops.amax()))


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

