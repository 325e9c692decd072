"""What :func:`nnproofs.smooth.check_constant_depth_rate` counts and evaluates, and where.

* :func:`read_network`: the affine maps ``(W_l, b_l)`` of a built ``nn.Sequential`` and the activation between
  them, read off exact module types; :func:`network_values` computes ``A_L ∘ σ ∘ ... ∘ σ ∘ A_1`` from them with
  ``torch.nn.functional.linear`` and ``σ`` (never through a module's ``forward`` or hooks), so what is measured
  is what is counted;
* :func:`evaluation_points` at a sampling density ``p``: every fine cell at ``p`` non-dyadic points per axis, every
  band (where a step is in transition) at spacing ``2/p`` half-bands across, as points (d = 1) or lines (d = 2, at
  ``p`` points per fine cell along) and, in d = 2, every pair of critical centres; :func:`sampled_sup` measures the sup error at ``p`` and ``2p`` and reports whether
  doubling changed it by less than :data:`SUP_CONVERGENCE`; in d = 1 both densities include
  :func:`first_layer_points`, where every unit of the first σ layer is resolved exactly (its pre-activation is
  affine in x), so a feature made by steep first-layer units is measured between the cells' samples;
* :func:`resolved_values`: the points added for the later σ layers, and the network there, each point evaluated
  once. By default cells are bisected while a unit of a later σ layer lies beyond σ's nonlinear zone on opposite
  sides at the two ends (a whole transition unsampled); with ``every_layer`` (:func:`deeper_points`), until every
  unit of every later σ layer moves by at most :data:`STEP` where σ is not linear (slow: the construction's gadget
  units are steep).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .. import budget
from ..validate import positive_int
from . import gadgets as sg
from .inputs import cells, device_of, dimension, finite_values
from .network import BAND, critical_points

SUP_CONVERGENCE = 0.01  # doubling the sampling must change the measured sup by less than 1% (rule 11)
POINTS_PER_CELL = {1: 4, 2: 1}  # p: sample points per axis in every fine cell (doubled for the convergence test)
CANDIDATES = {1: 128, 2: 8}  # the largest sampled errors refined locally (one per box)
REFINE = 4  # local grids of 2 REFINE + 1 points per axis at spacing (sample spacing) / REFINE^level
ZOOMS = 2  # levels of local grids, each around the largest errors of the one before

STEP = 0.5  # between neighbouring points a first-layer unit's pre-activation moves by at most this where σ is not
#             linear (σ then differs from its chord by <= |σ''| STEP²/8 <= 0.025 between points)
EXTRA_POINTS = 1 << 18  # the most points first_layer_points adds; beyond, the sup is not certified (INCONCLUSIVE)
# |z| beyond which σ equals an asymptote (0, z, 1, -1) to within 1e-16 of its scale: the unit is linear there
LINEAR_BEYOND = {"gelu": 9.0, "silu": 40.0, "softplus": 40.0, "tanh": 19.0, "sigmoid": 40.0, "relu": 0.0}

# The activation modules the check can read, with the functional form of each (the module's own settings).
_FUNCTIONAL = {
    nn.GELU: lambda m: (lambda t: F.gelu(t, approximate=m.approximate)),
    nn.SiLU: lambda m: F.silu,
    nn.Softplus: lambda m: (lambda t: F.softplus(t, beta=m.beta, threshold=m.threshold)),
    nn.Tanh: lambda m: torch.tanh,
    nn.Sigmoid: lambda m: torch.sigmoid,
    nn.ReLU: lambda m: F.relu,
}
ACTIVATION_MODULES = tuple(_FUNCTIONAL) + (nn.Identity,)


@dataclass(frozen=True)
class NetworkReading:
    """A network as the check reads it: its affine maps and activations, never its ``forward``.

    Parameters
    ----------
    maps : tuple
        ``maps[l] = (W_l, b_l)``, the affine maps in order (``b_l`` may be ``None``).
    layers : tuple
        The ordered leaves: ``("linear", l)``, ``("sigma", fn)`` or ``("identity", None)``.
    activations : tuple
        The activation names read (``"gelu"``, ``"gelu(approximate='tanh')"``, ``"relu"``, ...).

    Returns
    -------
    NetworkReading
        Made by :func:`read_network`; ``parameters`` is the dense count ``N``, ``dtype`` that of the maps.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> reading = smooth.read_network(smooth.identity_gadget("gelu"))
    >>> len(reading.maps), reading.activations
    (2, ('gelu',))

    Notes
    -----
    :func:`network_values` evaluates these maps with ``F.linear`` and ``σ``, never through a module's forward.
    """

    maps: tuple
    layers: tuple
    activations: tuple

    @property
    def parameters(self) -> int:
        """The dense parameter count ``N``: every entry of every ``W_l`` and ``b_l``."""
        return sum(w.numel() + (0 if b is None else b.numel()) for w, b in self.maps)

    @property
    def dtype(self) -> torch.dtype:
        return self.maps[0][0].dtype


PRECISION_SHARE = 0.8  # the precision read is the one that this share of the nonzero parameters carries at least: in
#                        the construction at most 12.4% are short exact numbers (0.5, 2, 1/K; K = 2, any k and σ)


def parameter_bits(reading: NetworkReading) -> int:
    """The significant bits that :data:`PRECISION_SHARE` of the nonzero parameters carry at least (53 in float64).

    Parameters
    ----------
    reading : NetworkReading
        The network read (:func:`read_network`).

    Returns
    -------
    int
        ``b`` such that at least ``PRECISION_SHARE`` of the nonzero entries of every ``W_l`` and ``b_l`` need ``>= b``
        bits of mantissa; 53 when every parameter is zero.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import smooth
    >>> net = smooth.constant_depth_network(smooth.chapter_target, k=1, K=4)
    >>> smooth.parameter_bits(smooth.read_network(net)) >= 45
    True

    Notes
    -----
    A build whose weights were rounded to float32 and stored as float64 carries ``<= 24`` bits: its parameters, and
    so its round-off floor, are ``2^(52 - b)`` times coarser than float64's.
    """
    if not isinstance(reading, NetworkReading):
        raise TypeError(f"reading must be a NetworkReading (from read_network), got {type(reading).__name__}")
    values = torch.cat([t.detach().reshape(-1).to(torch.float64).cpu() for w, b in reading.maps
                        for t in (w, b) if t is not None]).abs()
    values = values[values > 0]
    if values.numel() == 0:
        return 53
    mantissa, _ = torch.frexp(values)  # values = mantissa 2^e, mantissa in [0.5, 1): 53 bits as an integer
    integer = (mantissa * 2.0 ** 53).to(torch.int64)
    trailing = torch.log2((integer & -integer).to(torch.float64)).round().to(torch.int64)
    bits = torch.sort(53 - trailing).values
    return int(bits[int((1.0 - PRECISION_SHARE) * (bits.numel() - 1))])


def _activation_name(module: nn.Module) -> str:
    """The name of an activation module as the check compares it with the declared ``σ``."""
    if type(module) is nn.GELU:
        return "gelu" if module.approximate == "none" else f"gelu(approximate={module.approximate!r})"
    if type(module) is nn.Softplus:
        # beta 1 with any threshold >= 20 is softplus to within e^-20 relative (see gadgets.SOFTPLUS_THRESHOLD)
        return "softplus" if module.beta == 1 and module.threshold >= 20 else (
            f"softplus(beta={module.beta}, threshold={module.threshold})")
    return {nn.SiLU: "silu", nn.Tanh: "tanh", nn.Sigmoid: "sigmoid", nn.ReLU: "relu"}[type(module)]


def _leaves(net: nn.Module, name: str) -> list[nn.Module]:
    if type(net) is not nn.Sequential:
        raise TypeError(f"{name} must be (return) an nn.Sequential (its affine maps are counted; not a subclass), got"
                        f" {type(net).__name__}")
    out = []
    for i, module in enumerate(net):
        if module is None:
            raise TypeError(f"{name} returned a Sequential whose entry {i} is None, not a module")
        if type(module) is nn.Sequential:
            out += _leaves(module, name)
        elif next(module.children(), None) is not None:
            raise TypeError(f"{name} returned a Sequential whose entry {i} is a {type(module).__name__} with submodules;"
                            " use (nested) nn.Sequential of Linear and activation modules, whose depth can be counted")
        elif type(module) is not nn.Linear and type(module) not in ACTIVATION_MODULES:
            allowed = ", ".join(m.__name__ for m in (nn.Linear,) + ACTIVATION_MODULES)
            raise TypeError(f"{name} returned a Sequential whose entry {i} is a {type(module).__name__}; its depth cannot"
                            f" be counted nor its output read as affine maps and an activation: use (nested)"
                            f" nn.Sequential of {allowed}"
                            " (exactly these classes, not subclasses)")
        else:
            out.append(module)
    return out


def read_network(net: nn.Module, *, name: str = "net") -> NetworkReading:
    """The affine maps and activations of ``net``, read without running it.

    Parameters
    ----------
    net : torch.nn.Module
        An ``nn.Sequential`` (nested ones flattened) of exactly ``nn.Linear``, the activation modules of
        :data:`ACTIVATION_MODULES` and ``nn.Identity``.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    NetworkReading
        The maps ``(W_l, b_l)``, the ordered leaves and the activation names.

    Raises
    ------
    TypeError
        Naming ``name``, for a subclass, a module with submodules, an unknown leaf, hooks, a replaced ``forward``, or weights that are not plain
        tensors of one floating dtype.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.read_network(smooth.square_gadget("gelu", 0.01)).parameters
    7

    Notes
    -----
    :func:`network_values` evaluates these maps; forward hooks and a ``forward`` replaced on an instance are refused.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (how errors call the network), got {type(name).__name__}")
    if not isinstance(net, nn.Module):
        raise TypeError(f"{name} must be an nn.Sequential of Linear and activation modules, got {type(net).__name__}")
    hooked = [type(m).__name__ for m in net.modules() if m._forward_hooks or m._forward_pre_hooks]
    if hooked:
        raise TypeError(f"{name} returned modules with forward hooks ({', '.join(hooked)}): the check evaluates the"
                        " affine maps it counts and never runs hooks; remove them")
    replaced = [type(m).__name__ for m in net.modules() if "forward" in vars(m)]
    if replaced:
        raise TypeError(f"{name} returned modules whose forward is replaced on the instance ({', '.join(replaced)}):"
                        " the check evaluates the affine maps it counts and never runs such a forward; remove it")
    layers, maps, activations = [], [], []
    for module in _leaves(net, name):
        if type(module) is nn.Linear:
            w, b = module.weight, module.bias
            for label, t in (("weight", w), ("bias", b)):
                if (t is not None or label == "weight") and type(t) not in (torch.Tensor, nn.Parameter):
                    raise TypeError(f"{name} returned a Linear whose {label} is a {type(t).__name__}, not a tensor")
            layers.append(("linear", len(maps)))
            maps.append((w.detach(), None if b is None else b.detach()))
        elif type(module) is nn.Identity:
            layers.append(("identity", None))
        else:
            layers.append(("sigma", _FUNCTIONAL[type(module)](module)))
            activations.append(_activation_name(module))
    if not maps:
        raise ValueError(f"{name} returned an nn.Sequential without nn.Linear maps; it must hold the construction's"
                         " affine maps (they are counted and evaluated)")
    if not all(bool(torch.isfinite(t).all()) for w, b in maps for t in (w, b) if t is not None):
        raise ValueError(f"{name} has non-finite weights (NaN or inf): its output is not a number")
    for i, ((w, b), (w_next, _)) in enumerate(zip(maps, maps[1:] + [(None, None)])):
        if w.ndim != 2 or (b is not None and tuple(b.shape) != (w.shape[0],)) or (
                w_next is not None and (w_next.ndim != 2 or w_next.shape[1] != w.shape[0])):
            shapes = [(tuple(w.shape), None if b is None else tuple(b.shape)) for w, b in maps]
            raise ValueError(f"{name} has affine maps whose shapes do not chain (map {i + 1} of {len(maps)}; weight and"
                             f" bias shapes {shapes}): each W_(l+1) must take the {w.shape[0]} outputs of W_l")
    dtypes = {w.dtype for w, b in maps} | {b.dtype for w, b in maps if b is not None}
    if len(dtypes) != 1 or not next(iter(dtypes)).is_floating_point:
        raise TypeError(f"{name} returned affine maps of dtypes {sorted(map(str, dtypes))}; one floating dtype needed")
    return NetworkReading(tuple(maps), tuple(layers), tuple(activations))


def affine_maps(net: nn.Module, *, name: str = "net") -> list:
    """The affine maps ``(W_l, b_l)`` of ``net`` in order: the depth the check counts.

    Parameters
    ----------
    net : torch.nn.Module
        As for :func:`read_network`.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    list of tuple
        ``[(W_1, b_1), ...]``, the tensors of the ``nn.Linear`` modules.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> len(smooth.affine_maps(smooth.constant_depth_network(smooth.chapter_target, k=1, K=2)))
    7

    Notes
    -----
    ``read_network(net, name=name).maps`` as a list.
    """
    return list(read_network(net, name=name).maps)


def network_values(reading: NetworkReading, x: torch.Tensor, *, sides: bool = False):
    """``A_L ∘ σ ∘ ... ∘ A_1 (x)`` from the maps read, with ``F.linear`` in the maps' dtype, as float64 ``(n,)``.

    With ``sides``, also the side of σ's nonlinear zone on which every unit of every σ layer after the first lies:
    ``+1`` where its pre-activation ``z >= LINEAR_BEYOND``, ``-1`` where ``z <= -LINEAR_BEYOND``, else 0, as
    ``(n, units)`` int8 (the first layer is resolved exactly by :func:`first_layer_points`; ReLU layers, whose
    nonlinear zone is a point, have none); returns the pair."""
    h, names, layer, side = x.to(reading.dtype), iter(reading.activations), 0, []
    with torch.no_grad():
        for kind, item in reading.layers:
            if kind == "linear":
                h = F.linear(h, *reading.maps[item])
            elif kind == "sigma":
                linear, layer = LINEAR_BEYOND.get(next(names).split("(")[0], 40.0), layer + 1
                if sides and layer > 1 and linear > 0:  # ReLU (a kink, no zone: only in the controls that fail
                    #                                        the declared-σ requirement) is not bisected
                    side.append((h >= linear).to(torch.int8) - (h <= -linear).to(torch.int8))
                h = item(h)
    if h.ndim != 2 or h.shape[1] != 1:
        raise ValueError(f"build must return a network with one output per point, shape (n, 1); on"
                         f" ({x.shape[0]}, {x.shape[1]}) points it returned {tuple(h.shape)}")
    if not sides:
        return h[:, 0].to(torch.float64)
    return h[:, 0].to(torch.float64), torch.cat(side, 1) if side else h.new_zeros(h.shape[0], 0, dtype=torch.int8)


def first_layer_points(reading: NetworkReading, *, device=None) -> tuple[torch.Tensor, int]:
    """Points of ``[0, 1]`` (d = 1) at which every unit of the first σ layer is resolved: its pre-activation
    ``z(x) = z_0 + s x`` is affine (read exactly from the maps before it), and where ``|z| <=``
    :data:`LINEAR_BEYOND` (σ not linear) consecutive points move it by at most :data:`STEP`. Returns the points
    ``(n, 1)`` and how many of them were dropped beyond :data:`EXTRA_POINTS` (0: every unit resolved)."""
    first = next((i for i, (kind, _) in enumerate(reading.layers) if kind == "sigma"), None)
    empty = torch.zeros(0, 1, dtype=torch.float64, device=device)
    if first is None:
        return empty, 0
    h = torch.tensor([[0.0], [1.0]], dtype=reading.dtype, device=device)
    with torch.no_grad():
        for kind, item in reading.layers[:first]:
            if kind == "linear":
                h = F.linear(h, *reading.maps[item])
    z0, slope = h[0].to(torch.float64), (h[1] - h[0]).to(torch.float64)
    linear = LINEAR_BEYOND.get(reading.activations[0].split("(")[0], 40.0)
    steep = slope.abs() * STEP > 0  # every unit whose zone meets [0, 1] at spacing STEP / |s|
    lo = ((-linear - z0) / slope).where(slope > 0, (linear - z0) / slope)[steep].clamp(0.0, 1.0)
    hi = ((linear - z0) / slope).where(slope > 0, (-linear - z0) / slope)[steep].clamp(0.0, 1.0)
    counts = ((hi - lo) * slope[steep].abs() / STEP).ceil().long() + 1
    counts = torch.where(hi > lo, counts, torch.zeros_like(counts))
    total, limit = int(counts.sum()), EXTRA_POINTS
    if total == 0:
        return empty, 0
    if total > limit:
        return empty, total
    unit = torch.repeat_interleave(torch.arange(counts.shape[0], device=counts.device), counts)
    start = torch.cumsum(counts, 0) - counts
    j = torch.arange(total, device=counts.device) - start[unit]
    x = lo[unit] + (hi - lo)[unit] * j.to(torch.float64) / (counts[unit] - 1).clamp(min=1).to(torch.float64)
    return x[:, None], 0


def _unresolved_cells(reading: NetworkReading, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Which cells ``[a_i, b_i]`` (d = 1) leave some unit of some σ layer unresolved: its pre-activation moves by
    more than :data:`STEP` across the cell (``|z(b) - z(a)|`` or the exact derivative at either end times the
    width) while its range, widened by that move, meets the region where σ is not linear. Returns ``(n,)`` bool."""
    bad = torch.zeros(a.shape[0], dtype=torch.bool, device=a.device)
    width = (b - a).to(reading.dtype)
    ends = [(a.to(reading.dtype), torch.ones_like(a, dtype=reading.dtype)),
            (b.to(reading.dtype), torch.ones_like(b, dtype=reading.dtype))]
    names = iter(reading.activations)
    with torch.no_grad():
        for kind, item in reading.layers:
            if kind == "linear":
                ends = [(F.linear(h, *reading.maps[item]), F.linear(dh, reading.maps[item][0])) for h, dh in ends]
            elif kind == "sigma":
                (za, da), (zb, db) = ends
                move = torch.maximum((zb - za).abs(), torch.maximum(da.abs(), db.abs()) * width)
                linear = LINEAR_BEYOND.get(next(names).split("(")[0], 40.0)
                meets = (torch.minimum(za, zb) - move <= linear) & (torch.maximum(za, zb) + move >= -linear)
                bad |= ((move > STEP) & meets).any(1)
                ends = [torch.func.jvp(item, (h,), (dh,)) for h, dh in ends]
    return bad


def _sides(reading: NetworkReading, x: torch.Tensor, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`network_values` with ``sides``, in chunks of ``chunk`` points."""
    parts = [network_values(reading, x[i:i + chunk], sides=True) for i in range(0, x.shape[0], chunk)]
    return torch.cat([v for v, _ in parts]), torch.cat([side for _, side in parts])


def _skipping_bisection(reading: NetworkReading, points: torch.Tensor, limit: int, chunk: int = 1 << 12
                        ) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Cells between consecutive ``points`` (sorted, ``(n,)``) bisected while one hides a whole transition of a unit
    of a σ layer after the first: its pre-activation lies beyond ``±LINEAR_BEYOND`` on opposite sides at the two ends
    (a step or a spike narrower than the cell, unsampled). Every point is evaluated once (:func:`_sides`). Returns
    the points and midpoints ``(n + m,)``, the network's values there and how many cells were still flagged when
    ``limit`` midpoints were spent (0: resolved)."""
    values, sides = _sides(reading, points[:, None], chunk)
    index = torch.arange(points.numel(), device=points.device)
    a, b, spent = index[:-1], index[1:], 0  # the cells, as indices of their ends (points has 0 and 1)
    while True:
        bad = torch.cat([(sides[a[i:i + chunk]] * sides[b[i:i + chunk]] < 0).any(1)
                         for i in range(0, a.numel(), chunk)])
        a, b = a[bad], b[bad]
        if not a.numel():
            return points, values, 0
        mid = (points[a] + points[b]) / 2
        if spent + mid.numel() > limit or bool(((mid <= points[a]) | (mid >= points[b])).any()):
            return points, values, int(a.numel())
        new = torch.arange(points.numel(), points.numel() + mid.numel(), device=points.device)
        more, side = _sides(reading, mid[:, None], chunk)
        points, values, sides = torch.cat([points, mid]), torch.cat([values, more]), torch.cat([sides, side])
        spent += mid.numel()
        a, b = torch.cat([a, new]), torch.cat([new, b])


def deeper_points(reading: NetworkReading, x: torch.Tensor, *, limit: int = EXTRA_POINTS,
                  chunk: int = 1 << 12) -> tuple[torch.Tensor, int]:
    """Midpoints that resolve every unit of every later σ layer between the points ``x`` (``(n, 1)``, d = 1): cells
    between consecutive points are bisected while :func:`_unresolved_cells` flags them. Returns the points added
    ``(m, 1)`` and how many cells were still flagged when ``limit`` points were spent (0: resolved)."""
    points = torch.unique(torch.cat([x[:, 0], x.new_tensor([0.0, 1.0])]))
    a, b, added, spent = points[:-1], points[1:], [], 0
    while a.numel():
        bad = torch.cat([_unresolved_cells(reading, a[i:i + chunk, None], b[i:i + chunk, None])
                         for i in range(0, a.numel(), chunk)])
        a, b = a[bad], b[bad]
        mid = (a + b) / 2
        if spent + mid.numel() > limit or bool(((mid <= a) | (mid >= b)).any()):
            return (torch.cat(added) if added else points[:0])[:, None], int(a.numel())
        spent += mid.numel()
        added.append(mid)
        a, b = torch.cat([a, mid]), torch.cat([mid, b])
    return (torch.cat(added) if added else points[:0])[:, None], 0


def resolved_values(reading: NetworkReading, x: torch.Tensor, *, every_layer: bool = False
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    """The network on ``x`` (d = 1) and on the points added so that σ units are resolved between samples:
    :func:`first_layer_points`, then for the later layers the cells where one skips σ's nonlinear zone
    (:func:`_skipping_bisection`) or, with ``every_layer``, where any moves by more than :data:`STEP`
    (:func:`deeper_points`). Returns the points ``(N, 1)`` (``x``, ``0``, ``1`` and those added), the values there
    ``(N,)``, the points added ``(m, 1)`` and the count left unresolved beyond :data:`EXTRA_POINTS` (0: resolved)."""
    first, dropped = first_layer_points(reading, device=x.device)
    if dropped:
        return x, network_values(reading, x), first, dropped
    if every_layer:
        deeper, left = deeper_points(reading, torch.cat([x, first]), limit=EXTRA_POINTS - first.shape[0])
        points = torch.cat([x, first, deeper])
        return points, network_values(reading, points), torch.cat([first, deeper]), left
    start = torch.unique(torch.cat([x[:, 0], first[:, 0], x.new_tensor([0.0, 1.0])]))
    points, values, left = _skipping_bisection(reading, start, EXTRA_POINTS - first.shape[0])
    added = torch.cat([first, points[start.numel():, None]])
    return points[:, None], values, added, left


def _offsets(p: int, d: int) -> tuple:
    """Offsets across every critical point, in half-bands: ``0, ±s, ±2s, ...`` up to ``±3``, ``s = 2d/p``."""
    return tuple(j * 2.0 * d / p for j in range(int(1.5 * p / d) + 1))


def evaluation_points(K: int, d: int, *, p: int | None = None, device=None) -> torch.Tensor:
    """Where the check measures ``f̂_K`` at sampling density ``p``: an ``(n, d)`` float64 tensor in ``[0, 1]^d``.

    Parameters
    ----------
    K : int
        The coarse cells per axis (``K^{2d}`` fine cells).
    d : int
        The dimension, 1 or 2.
    p : int, optional
        The points per axis of every fine cell (default :data:`POINTS_PER_CELL`).
    device : str or torch.device, optional
        Where to put the points (default ``BOOK_DEVICE``).

    Returns
    -------
    torch.Tensor
        The points, shape ``(point_count(K, d, p), d)``.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.evaluation_points(2, 1, p=4).shape[1]
    1

    Notes
    -----
    Every fine cell at ``p`` non-dyadic points per axis, and across every critical centre
    (:func:`critical_points`) the offsets ``0, ±s, ±2s, ...`` up to 3 half-bands, ``s = 2d/p``; in ``d = 2`` also
    lines through those coordinates and the crossings of two bands. Doubling ``p`` doubles every density.
    """
    K, d = cells("K", K), dimension(d)
    p = POINTS_PER_CELL[d] if p is None else positive_int("p", p)
    budget.refuse_beyond("K, p", (K, p), cost=8 * d * point_count(K, d, p), limit=budget.memory(), unit="bytes")
    device = device_of(device)
    n = K * K * p
    line = (torch.arange(n, dtype=torch.float64, device=device) + (math.sqrt(5.0) - 1.0) / 2.0) / n
    critical = torch.tensor(critical_points(K, offsets=_offsets(p, d)), dtype=torch.float64, device=device)
    if d == 1:
        return torch.cat([line, critical])[:, None]
    grid = torch.stack(torch.meshgrid(line, line, indexing="ij"), -1).reshape(-1, 2)
    across = torch.stack(torch.meshgrid(critical, line, indexing="ij"), -1).reshape(-1, 2)
    centres = torch.tensor(critical_points(K, offsets=False), dtype=torch.float64, device=device)
    corners = torch.stack(torch.meshgrid(centres, centres, indexing="ij"), -1).reshape(-1, 2)
    return torch.cat([grid, across, across.flip(1), corners])


def point_count(K: int, d: int, p: int) -> int:
    """An upper bound on how many points :func:`evaluation_points` returns, from the sizes alone (Python ints)."""
    n, centres = K * K * p, 4 * (K * K + 1)
    critical = centres * (2 * (int(1.5 * p / d) + 1) - 1)  # len(_offsets(p, d)), without building them
    return n + critical if d == 1 else n * n + 2 * critical * n + centres * centres


@dataclass(frozen=True)
class SampledSup:
    """The sup and RMS error at density ``p``, the sup at ``2p``, and their relative change."""

    sup: float
    doubled: float
    rms: float
    points: int
    unresolved: int = 0  # first-layer points beyond the budget (d = 1; :func:`first_layer_points`): not certified

    @property
    def change(self) -> float:
        """``|sup_2p - sup_p| / max(sup_p, sup_2p)`` (0 when both vanish)."""
        top = max(self.sup, self.doubled)
        return abs(self.doubled - self.sup) / top if top > 0 else 0.0

    @property
    def converged(self) -> bool:
        return self.change < SUP_CONVERGENCE


def _errors(reading: NetworkReading, f: Callable, x: torch.Tensor, K: int, chunk: int,
            values: torch.Tensor | None = None) -> torch.Tensor:
    """``|f̂(x) - f(x)|`` in chunks of ``chunk`` points (``values``: ``f̂(x)`` when already computed)."""
    out = []
    for start in range(0, x.shape[0], chunk):
        part = x[start:start + chunk]
        net = network_values(reading, part) if values is None else values[start:start + chunk]
        out.append((net - finite_values("f", f(part).reshape(-1))).abs())
    error = torch.cat(out)
    if not bool(torch.isfinite(error).all()):
        raise ValueError(f"the network built for K = {K} returned a non-finite value on [0, 1]^{x.shape[1]}")
    return error


def _peaks(x: torch.Tensor, error: torch.Tensor, width: float, m: int) -> torch.Tensor:
    """The points of the ``m`` largest errors, at most one per box of side ``width`` (distinct peaks, not one peak's
    shoulders)."""
    box = (x / width).floor().long()
    key = (box[:, 0] if x.shape[1] == 1 else box[:, 0] * (2 + int(1 / width)) + box[:, 1]).tolist()
    chosen, seen = [], set()
    for i in torch.argsort(error, descending=True, stable=True)[: 64 * m].tolist():
        if key[i] not in seen:
            seen.add(key[i])
            chosen.append(i)
            if len(chosen) == m:
                break
    return x[chosen]


def _around(x: torch.Tensor, step: float) -> torch.Tensor:
    """A local grid of ``2 REFINE + 1`` points per axis at spacing ``step`` around each row of ``x``, in ``[0, 1]^d``."""
    t = torch.arange(-REFINE, REFINE + 1, dtype=x.dtype, device=x.device) * step
    offsets = t[:, None] if x.shape[1] == 1 else torch.stack(torch.meshgrid(t, t, indexing="ij"), -1).reshape(-1, 2)
    return (x[:, None, :] + offsets[None, :, :]).reshape(-1, x.shape[1]).clamp(0.0, 1.0)


def sampled_sup(reading: NetworkReading, f: Callable, K: int, d: int, *, p: int | None = None, device=None,
                chunk: int = 1 << 14, every_layer: bool = False) -> SampledSup:
    """The sup of ``|f - f̂|`` at density ``p`` and at ``2p`` (rule 11), and the RMS error at ``p``.

    At each density: the errors at :func:`evaluation_points`, then, around the :data:`CANDIDATES` largest (one per
    box of twice the spacing), local grids of ``2·REFINE + 1`` points per axis spanning the sample's spacing (the cells'
    ``h/density`` and the bands' ``2d·BAND·h/density``) over ``REFINE^-1`` of it, zoomed :data:`ZOOMS` times around
    the largest errors of the grid before, so that a peak narrower than the spacing is resolved.
    """
    p = POINTS_PER_CELL[d] if p is None else p
    sups, rms, count, extra, unresolved = [], 0.0, 0, None, 0
    for density in (p, 2 * p):
        x = evaluation_points(K, d, p=density, device=device)
        if d == 1 and extra is None:  # σ units resolved between samples (the same points added at p and 2p)
            x, values, extra, unresolved = resolved_values(reading, x, every_layer=every_layer)
            error = _errors(reading, f, x, K, chunk, values)
        else:
            x = torch.cat([x, extra]) if d == 1 else x
            error = _errors(reading, f, x, K, chunk)
        if density == p:
            rms, count = math.sqrt(float((error ** 2).mean())), x.shape[0]
        h, best = 1.0 / (K * K), float(error.max())
        for spacing in (h / density, 2 * d * BAND * h / density):  # the sample's spacing in the cells, across bands
            top = _peaks(x, error, 2 * spacing, CANDIDATES[d])
            for _ in range(ZOOMS):  # zoom in on the largest errors of each local grid
                grid = _around(top, spacing / REFINE)
                local = _errors(reading, f, grid, K, chunk)
                best = max(best, float(local.max()))
                top = _peaks(grid, local, spacing / 2, CANDIDATES[d])
                spacing /= REFINE
        sups.append(best)
    return SampledSup(sups[0], sups[1], rms, count, unresolved)


def declared(activation: str) -> str:
    """The name under which :func:`read_network` reports the declared ``σ`` (its module, as built)."""
    return _activation_name(sg.module(activation))


def default_density(d: int) -> int:
    """:data:`POINTS_PER_CELL` (the same at both scales: the local zoom, not the global density, resolves the
    peaks, and the full-scale sizes must stay within the work budget)."""
    return POINTS_PER_CELL[d]
