"""Chapter 4: constructive low-loss paths between shallow ReLU networks, and their barriers.

The networks are bias-free shallow ReLU networks on :math:`\\mathbb{R}^n`,

.. math:: f_\\theta(x) = \\sum_{j=1}^m a_j\\,\\rho(w_j \\cdot x), \\qquad \\lVert w_j \\rVert \\le 1,
          \\qquad \\theta = (W, a),\\ W \\in \\mathbb{R}^{m\\times n},\\ a \\in \\mathbb{R}^m,

with the cost (definition ``def-barrier-cost``) :math:`C(\\theta) = \\frac1N\\sum_i \\ell(f_\\theta(x_i), y_i)
+ \\lambda\\lVert a\\rVert_1` for a convex, :math:`L`-Lipschitz loss (``huber``: :math:`L = \\delta_H = 1/2`;
``bce`` on logits: :math:`L = 1`). The barrier of a path :math:`\\gamma` is
:math:`B(\\gamma) = \\max_t C(\\gamma(t)) - \\max(C(\\gamma(0)), C(\\gamma(1)))`.

:func:`constructive_path` writes down the path of Theorem ``thm-barrier-decay`` (our reconstruction
of Baturin 2026) as explicit segments:

1. *prune / spherize* (function-exact, cost non-increasing): :math:`w_j(t) = w_j/s_j(t)`,
   :math:`a_j(t) = a_j s_j(t)` with :math:`s_j(t) = 1 - t + t\\lVert w_j\\rVert`;
2. *merge* (certified): every :math:`\\tilde w_j` moves along the chord to its cell centre
   :math:`u_{k(j)}`, raising the cost by at most :math:`L\\,\\overline{\\lVert x\\rVert}\\sum_j |\\tilde a_j|
   \\lVert \\tilde w_j - u_{k(j)}\\rVert`;
3. *consolidate* (function-exact, cost at most its start): each cell's output weight moves onto one slot;
4. *free moves* of slots with :math:`a_j = 0`, the *bridge* in output weights only (convex in t, so
   below the chord between its endpoint costs), *transfers* (function-exact) that reorder the slots;
5. the second network's steps 1-3, reversed.

:func:`audit` verifies every segment's guarantee on data, :func:`barrier` / :func:`profile` sample the
cost along any :class:`Path` (also the baselines :func:`straight_line`, :func:`matched_line` and
:func:`bezier_paths`), and :func:`check_barrier_decay` (worst-case rate), :func:`check_trained_barriers`
(the certificate on trained networks) and :func:`check_zero_barrier_1d` are the chapter's executable claims.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from torch import nn

from . import device as book_device
from .ledger import claim
from .networks import affine_maps
from .rates import RateCheck, fit_loglog, rate_check
from .validate import finite_real, positive_int

Network = tuple[torch.Tensor, torch.Tensor]

HUBER_DELTA = 0.5  # Huber threshold: the loss is δ_H-Lipschitz in the prediction
LAMBDA = 1e-3  # ℓ1 weight on the output layer in the chapter's experiments
FEASIBILITY_RTOL = 1e-12  # ‖w_j‖ ≤ 1 + this: the projection w / max(1, ‖w‖) overshoots by an ulp at most
FUNCTION_ATOL = 1e-10  # function-exact segments: |f_t − f_0| ≤ this (float64 round-off is ~1e-14 here)
COST_ATOL = 1e-12  # monotone / convex / constant segments: cost allowed above its bound by round-off only
ZERO_BARRIER_ATOL = 1e-12  # n = 1: the barrier is exactly 0, measured to round-off
SLOPE_TOL = {2: 0.08, 3: 0.06}  # worst-case mean-certificate slope: its offset from −1/(n−1) plus 4 standard
#   deviations over seed offsets (20 offsets at ci sizes: −1.019 ± 0.015 for n = 2, −0.516 ± 0.010 for n = 3)
CONVEXITY_ATOL = 1e-12  # a loss's second differences on LOSS_PROBE may fall below 0 by round-off only
LOSS_PROBE = (-40.0, 40.0, 4001)  # predictions (start, stop, count) on which a loss's convexity and Lipschitz
#   constant are verified, for the targets LOSS_PROBE_TARGETS; spacing 0.02, logits up to ±40
LOSS_PROBE_TARGETS = (0.0, 0.25, 0.5, 1.0)
CHUNK_ELEMENTS = {"cpu": 1 << 18, "cuda": 1 << 24}  # parameter sets × hidden units × data points at once:
#   on a CPU the (sets, m, N) hidden activations should stay in cache (2 MiB); a GPU wants large batches

COVERS = ("adaptive", "grid")
SPHERIZATIONS = ("curve", "chord", "none")
BRIDGES = ("output", "joint")
EXACT_KINDS = ("prune", "spherize", "consolidate", "free", "transfer")


# --------------------------------------------------------------------------------------------
# Losses, networks, cost
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Loss:
    """A convex loss ``ℓ(p, y)`` of the prediction ``p`` that is ``lipschitz``-Lipschitz in ``p``."""

    name: str
    lipschitz: float
    function: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    def __call__(self, prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.function(prediction, target)


def _huber(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return nn.functional.huber_loss(p, y.expand_as(p), reduction="none", delta=HUBER_DELTA)


def _bce(p: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``−y log σ(p) − (1−y) log(1−σ(p)) = log(1 + e^p) − yp``; derivative ``σ(p) − y ∈ [−1, 1]``.

    ``log(1 + e^p)`` is evaluated as ``ρ(p) + log1p(e^{−|p|})``, exact to round-off for every ``p``
    (``torch.nn.functional.softplus`` switches to ``p`` above 20, a jump of ``2·10^{−9}`` that would break
    the convexity checks at 1e-12).
    """
    return torch.relu(p) + torch.log1p(torch.exp(-p.abs())) - y * p


LOSSES = {
    "huber": Loss("huber", HUBER_DELTA, _huber),
    "bce": Loss("bce", 1.0, _bce),
}


def get_loss(loss: str) -> Loss:
    """The loss named ``loss`` (a key of ``LOSSES``: ``'huber'``, ``'bce'``), verified convex and Lipschitz.

    The proof of Theorem ``thm-barrier-decay`` uses two properties of ``ℓ(·, y)``: convexity (the bridge
    stays below its larger endpoint) and the Lipschitz constant ``L`` (the merge certificate). Both are
    verified on a grid of predictions (``LOSS_PROBE``) for the targets ``LOSS_PROBE_TARGETS``: second
    differences ``≥ −CONVEXITY_ATOL·(1 + |ℓ|)`` and difference quotients ``≤ L(1 + 1e-9)``. A loss that
    fails raises ``ValueError``, so a non-convex loss added to ``LOSSES`` cannot pass an audit.
    """
    if not isinstance(loss, str) or loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}, got {loss!r}")
    return _verified(LOSSES[loss])


@functools.lru_cache(maxsize=16)
def _verified(loss: Loss) -> Loss:
    start, stop, count = LOSS_PROBE
    p = torch.linspace(start, stop, count, dtype=torch.float64)
    y = torch.tensor(LOSS_PROBE_TARGETS, dtype=torch.float64)[:, None]
    values = loss(p.expand(len(y), -1), y)
    if values.shape != (len(y), count) or not bool(torch.isfinite(values).all()):
        raise ValueError(f"loss {loss.name!r} must map predictions (T, P) and targets (T, 1) to finite values (T, P)")
    second = values[:, 2:] - 2 * values[:, 1:-1] + values[:, :-2]
    allowed = CONVEXITY_ATOL * (1 + values[:, 1:-1].abs())
    if bool((second < -allowed).any()):
        i, j = divmod(int((second + allowed).argmin()), second.shape[1])
        raise ValueError(f"loss {loss.name!r} is not convex in the prediction: second difference"
                         f" {float(second[i, j]):.3g} at p = {float(p[j + 1]):.3g}, y = {float(y[i, 0]):g}; the bridge"
                         " of Theorem thm-barrier-decay needs a convex loss")
    slope = float(((values[:, 1:] - values[:, :-1]) / (p[1] - p[0])).abs().max())
    if slope > loss.lipschitz * (1 + 1e-9):
        raise ValueError(f"loss {loss.name!r} declares lipschitz = {loss.lipschitz:g} but its difference quotients"
                         f" reach {slope:.6g}; the merge certificate needs a true Lipschitz constant")
    return loss


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def _float64(name: str, value) -> torch.Tensor:
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(value)
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor (or numpy array), got {type(value).__name__}")
    if not (value.is_floating_point() or value.dtype in (torch.int32, torch.int64)):
        raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    if value.device.type == "meta":
        raise ValueError(f"{name} is on the meta device (a shape without values); the construction needs values:"
                         " put it on 'cpu' or 'cuda'")
    value = value.detach().to(torch.float64)
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} contains NaN or inf")
    return value


def as_network(name: str, net) -> Network:
    """``net`` as float64 tensors ``(W (m, n), a (m,))`` of a feasible bias-free shallow ReLU network.

    ``net`` is a pair ``(W, a)`` or a ``Sequential(Linear(n, m), ReLU, Linear(m, 1))`` whose biases
    are zero. Raises ``ValueError`` for biases (lift the inputs to ``(x, 1)`` instead: a bias is a
    weight on a constant input), mismatched shapes, non-finite entries or ``‖w_j‖ > 1`` beyond
    round-off (``FEASIBILITY_RTOL``).
    """
    if isinstance(net, nn.Module):
        maps = affine_maps(net, name)
        if len(maps) != 2 or maps[1][0].shape[0] != 1:
            raise ValueError(f"{name} must have one hidden layer and one output, got {len(maps) - 1} hidden layers")
        (weight, bias), (out_weight, out_bias) = maps
        if bool((bias != 0).any()) or bool((out_bias != 0).any()):
            raise ValueError(f"{name} has biases, where the construction has none; a network with biases is a"
                             " bias-free network on the lifted inputs (x, 1)")
        net = (weight, out_weight[0])
    if not isinstance(net, (tuple, list)):
        raise TypeError(f"{name} must be a pair (W, a) of tensors or a torch.nn.Sequential, got {type(net).__name__}")
    if len(net) == 3:
        raise ValueError(f"{name} has three parts (W, b, a): biases are not part of the construction; lift the"
                         " inputs to (x, 1) and pass (W with b as its last column, a)")
    if len(net) != 2:
        raise ValueError(f"{name} must be a pair (W, a), got {len(net)} parts")
    weight, out = _float64(f"{name}[0] (W)", net[0]), _float64(f"{name}[1] (a)", net[1])
    if weight.ndim != 2 or weight.shape[0] < 1 or weight.shape[1] < 1:
        raise ValueError(f"{name}: W must have shape (m, n) with m, n >= 1, got {tuple(weight.shape)}")
    if out.shape != (weight.shape[0],):
        raise ValueError(f"{name}: a must have shape ({weight.shape[0]},) to match W {tuple(weight.shape)},"
                         f" got {tuple(out.shape)}")
    norms = weight.norm(dim=1)
    if bool((norms > 1 + FEASIBILITY_RTOL).any()):
        j = int(norms.argmax())
        raise ValueError(f"{name} is infeasible: ‖w_{j}‖ = {float(norms[j]):.17g} > 1 (the construction needs"
                         f" ‖w_j‖ <= 1, up to {FEASIBILITY_RTOL:g})")
    return weight, out.to(weight.device)


def _data(x, y=None, *, n: int | None = None, loss: str | None = None):
    x = _float64("x", x)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"x must have shape (N, n) with N >= 1, got {tuple(x.shape)}")
    if n is not None and x.shape[1] != n:
        raise ValueError(f"x has {x.shape[1]} columns but the networks have input dimension n = {n}")
    if y is None:
        return x
    y = _float64("y", y).to(x.device)
    if y.shape != (x.shape[0],):
        raise ValueError(f"y must have shape ({x.shape[0]},) to match x, got {tuple(y.shape)}")
    if loss == "bce" and not bool(((y >= 0) & (y <= 1)).all()):
        raise ValueError("y must lie in [0, 1] for the bce loss (labels or probabilities)")
    return x, y


def _lam(lam) -> float:
    lam = finite_real("lam", lam)
    if lam < 0:
        raise ValueError(f"lam must be >= 0 (the ℓ1 weight), got {lam!r}")
    return lam


def _shapes(W, a, x) -> None:
    for name, value in (("W", W), ("a", a), ("x", x)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch tensor, got {type(value).__name__}")
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (a shape without values): put it on 'cpu' or 'cuda'")
    if W.ndim < 2 or x.ndim != 2 or W.shape[-1] != x.shape[1] or a.shape != W.shape[:-1]:
        raise ValueError(f"need W (..., m, n), a (..., m), x (N, n) with matching m and n; got W {tuple(W.shape)},"
                         f" a {tuple(a.shape)}, x {tuple(x.shape)}")


def forward(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``f(x_i) = Σ_j a_j ρ(w_j · x_i)`` for a batch: ``W (..., m, n)``, ``a (..., m)``, ``x (N, n)`` → ``(..., N)``."""
    _shapes(W, a, x)
    return _forward(W, a, x)


def _forward(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    hidden = torch.relu(torch.matmul(W, x.T))
    return torch.matmul(a.unsqueeze(-2), hidden).squeeze(-2)


def cost(W: torch.Tensor, a: torch.Tensor, x: torch.Tensor, y: torch.Tensor, *, loss: str, lam: float) -> torch.Tensor:
    """``C(θ) = mean_i ℓ(f_θ(x_i), y_i) + λ‖a‖₁`` for every parameter set of the batch, shape ``(...)``.

    Evaluated in float64 on the data's device; autograd flows through ``W`` and ``a``.
    """
    loss_fn, lam = get_loss(loss), _lam(lam)
    x, y = _data(x, y, loss=loss)
    _shapes(W, a, x)
    W, a = W.to(x), a.to(x)  # float64 on the data's device
    return loss_fn(_forward(W, a, x), y).mean(-1) + lam * a.abs().sum(-1)


def _values(W, a, x, y, loss: Loss, lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Function values ``(T, N)`` and costs ``(T,)`` of ``T`` parameter sets, in memory-bounded chunks."""
    chunk = max(1, CHUNK_ELEMENTS.get(W.device.type, CHUNK_ELEMENTS["cpu"]) // (W.shape[-2] * x.shape[0]))
    fs, cs = [], []
    with torch.no_grad():
        for start in range(0, W.shape[0], chunk):
            f = _forward(W[start:start + chunk], a[start:start + chunk], x)
            fs.append(f)
            cs.append(loss(f, y).mean(-1) + lam * a[start:start + chunk].abs().sum(-1))
    return torch.cat(fs), torch.cat(cs)


# --------------------------------------------------------------------------------------------
# Segments and paths
# --------------------------------------------------------------------------------------------

GUARANTEES = {
    "prune": "function-exact, cost non-increasing",
    "spherize": "function-exact, cost non-increasing",
    "merge": "cost at most its start + L·mean‖x‖·Σ|ã_j|‖w̃_j − u_k(j)‖",
    "consolidate": "function-exact, cost at most its start",
    "free": "function-exact, cost constant",
    "transfer": "function-exact, cost constant",
    "bridge": "cost convex in t: at most the chord between its endpoint costs",
    "line": "none",
    "bezier": "none",
}


@dataclass(frozen=True, eq=False)
class Segment:
    """One piece of a path, ``t ∈ [0, 1] → (W(t), a(t))``.

    ``curve`` is ``"line"`` (``(1−t)θ₀ + tθ₁``), ``"rescale"`` (spherization:
    ``W₀/s(t)``, ``a₀ s(t)``, ``s_j(t) = 1 − t + t r_j`` with ``r = radii``) or ``"bezier"``
    (``(1−t)²θ₀ + 2t(1−t)θ_c + t²θ₁``). A segment with ``reverse=True`` is traversed from
    ``(W1, a1)`` to ``(W0, a0)``: it is the forward segment of the second network, run backwards.
    ``kind`` names the step and its guarantee (``GUARANTEES``); ``side`` is ``"A"``, ``"bridge"`` or ``"B"``.
    """

    kind: str
    side: str
    W0: torch.Tensor
    a0: torch.Tensor
    W1: torch.Tensor
    a1: torch.Tensor
    curve: str = "line"
    radii: torch.Tensor | None = None
    control: Network | None = None
    reverse: bool = False

    @property
    def guarantee(self) -> str:
        return GUARANTEES[self.kind]

    def forward_evaluate(self, ts: torch.Tensor) -> Network:
        """Parameters at forward times ``ts`` (ignoring ``reverse``): ``W (T, m, n)``, ``a (T, m)``."""
        t = ts.to(self.W0)[:, None]
        if self.curve == "rescale":
            s = (1 - t) + t * self.radii
            return self.W0 / s[..., None], self.a0 * s
        if self.curve == "bezier":
            Wc, ac = self.control
            b0, b1, b2 = (1 - t) ** 2, 2 * t * (1 - t), t**2
            return (b0[..., None] * self.W0 + b1[..., None] * Wc + b2[..., None] * self.W1,
                    b0 * self.a0 + b1 * ac + b2 * self.a1)
        return ((1 - t)[..., None] * self.W0 + t[..., None] * self.W1, (1 - t) * self.a0 + t * self.a1)

    def evaluate(self, ts: torch.Tensor) -> Network:
        """Parameters at path-direction times ``ts`` (``reverse`` applied)."""
        return self.forward_evaluate(1 - ts if self.reverse else ts)

    def reversed(self, side: str) -> Segment:
        return Segment(self.kind, side, self.W0, self.a0, self.W1, self.a1, self.curve, self.radii, self.control,
                       not self.reverse)


@dataclass(frozen=True)
class Canonical:
    """A network compressed by spherize + merge + consolidate, with what the certificate needs.

    ``W`` holds every slot at its cell centre, ``a`` is non-zero only on ``slots`` (one per occupied
    cell, the cell's consolidated output weight); ``moment = Σ_j |ã_j| ‖w̃_j − u_{k(j)}‖``.
    """

    W: torch.Tensor
    a: torch.Tensor
    centres: torch.Tensor
    assignment: torch.Tensor
    slots: torch.Tensor
    moment: float


@dataclass(frozen=True, eq=False)
class Path:
    """A piecewise-explicit path between two networks; segment ``i`` is ``t ∈ [i/S, (i+1)/S]``.

    ``moments`` are the merge moments of the two sides, ``Σ_j |ã_j| ‖w̃_j − u_{k(j)}‖`` (``None`` for
    paths that carry no certificate: the baselines); ``info`` records how the path was built.
    """

    segments: tuple[Segment, ...]
    moments: tuple[float, float] | None = None
    info: Mapping[str, object] = field(default_factory=dict)

    @property
    def start(self) -> Network:
        s = self.segments[0]
        return (s.W1, s.a1) if s.reverse else (s.W0, s.a0)

    @property
    def end(self) -> Network:
        s = self.segments[-1]
        return (s.W0, s.a0) if s.reverse else (s.W1, s.a1)

    @property
    def kinds(self) -> list[str]:
        return [s.kind for s in self.segments]

    def evaluate(self, ts) -> Network:
        """Parameters ``W (T, m, n)``, ``a (T, m)`` at path times ``ts ∈ [0, 1]`` (segments equally long)."""
        ts = torch.as_tensor(ts, dtype=torch.float64, device=self.segments[0].W0.device).reshape(-1)
        if ts.numel() == 0 or not bool(((ts >= 0) & (ts <= 1)).all()):
            raise ValueError("ts must be a non-empty set of path times in [0, 1]")
        count = len(self.segments)
        index = torch.clamp((ts * count).floor().long(), max=count - 1)
        local = ts * count - index
        m, n = self.segments[0].W0.shape
        W = torch.empty(ts.numel(), m, n, dtype=torch.float64, device=ts.device)
        a = torch.empty(ts.numel(), m, dtype=torch.float64, device=ts.device)
        for i in index.unique().tolist():
            mask = index == i
            W[mask], a[mask] = self.segments[i].evaluate(local[mask])
        return W, a

    def certificate(self, x, lipschitz: float) -> float:
        """``L · mean_i ‖x_i‖ · max(μ_A, μ_B)``: Theorem ``thm-barrier-decay``'s bound on the barrier."""
        if self.moments is None:
            raise ValueError("this path carries no certificate (only constructive_path's paths do)")
        lipschitz = finite_real("lipschitz", lipschitz)
        if lipschitz < 0:
            raise ValueError(f"lipschitz must be >= 0, got {lipschitz!r}")
        x = _data(x, n=self.segments[0].W0.shape[1])
        return lipschitz * float(x.norm(dim=1).mean()) * max(self.moments)


def _changed(x0: torch.Tensor, x1: torch.Tensor) -> bool:
    return bool((x0 != x1).any())


# --------------------------------------------------------------------------------------------
# Covers of the sphere (and of the ball, for the control without spherization)
# --------------------------------------------------------------------------------------------

def _candidates(n: int, count: int, *, ball: bool, device) -> torch.Tensor:
    """``count`` deterministic quasi-random points on S^{n−1} (or in B^n): scrambled Sobol → Gaussian → normalised."""
    engine = torch.quasirandom.SobolEngine(n + int(ball), scramble=True, seed=0)
    u = engine.draw(count, dtype=torch.float64).clamp(1e-12, 1 - 1e-12).to(device)
    g = math.sqrt(2.0) * torch.erfinv(2 * u[:, :n] - 1)
    points = g / g.norm(dim=1, keepdim=True)
    return points * u[:, n:] ** (1.0 / n) if ball else points


def _farthest_points(candidates: torch.Tensor, count: int) -> torch.Tensor:
    """Greedy farthest-point selection of ``count`` candidates (a 2-approximation of the best cover)."""
    chosen = [0]
    distance = (candidates - candidates[0]).norm(dim=1)
    for _ in range(1, min(count, candidates.shape[0])):
        j = int(distance.argmax())
        chosen.append(j)
        distance = torch.minimum(distance, (candidates - candidates[j]).norm(dim=1))
    return candidates[chosen]


@functools.lru_cache(maxsize=64)
def _centroidal_cover(n: int, cells: int, ball: bool) -> torch.Tensor:
    """A centroidal Voronoi cover of S^{n−1} or B^n on the CPU (cached: it depends on ``(n, K)`` only).

    Farthest points of ``max(2048, 16K)`` quasi-random candidates, then 30 Lloyd steps on the
    candidates (centre = mean of its candidates, normalised on the sphere). Farthest points alone
    crowd the boundary of the ball, which steepens the measured rate at small ``K``.
    """
    candidates = _candidates(n, max(2048, 16 * cells), ball=ball, device="cpu")
    centres = _farthest_points(candidates, cells)
    ones = torch.ones(len(candidates), dtype=torch.float64)
    for _ in range(30):
        assignment = torch.cdist(candidates, centres).argmin(1)
        mass = torch.zeros(len(centres), dtype=torch.float64).index_add_(0, assignment, ones)
        update = torch.zeros_like(centres).index_add_(0, assignment, candidates) / mass.clamp_min(1)[:, None]
        if not ball:
            update = update / update.norm(dim=1, keepdim=True).clamp_min(1e-300)
        centres = torch.where((mass > 0)[:, None], update, centres)
    return centres


def sphere_cover(n: int, cells: int, *, device=None) -> torch.Tensor:
    """``cells`` centres on the unit sphere S^{n−1}, shape ``(K, n)``, with covering radius ``O(K^{−1/(n−1)})``.

    ``n = 1``: the sphere S⁰ = {+1, −1} itself (``K = 2`` whatever ``cells``, covering radius 0);
    ``n = 2``: the centres of ``K`` equal sectors, angles ``(k + ½)2π/K`` (radius ``2 sin(π/2K)``);
    ``n = 3``: the Fibonacci lattice; ``n ≥ 4``: a centroidal Voronoi cover of quasi-random points.
    """
    n, cells = positive_int("n", n), positive_int("cells", cells)
    if n == 1:
        return torch.tensor([[1.0], [-1.0]], dtype=torch.float64, device=device)
    k = torch.arange(cells, dtype=torch.float64, device=device)
    if n == 2:
        angle = (k + 0.5) * 2 * math.pi / cells
        return torch.stack([angle.cos(), angle.sin()], dim=1)
    if n == 3:
        z = 1 - (2 * k + 1) / cells
        phi = k * math.pi * (3 - math.sqrt(5.0))
        rho = (1 - z**2).sqrt()
        return torch.stack([rho * phi.cos(), rho * phi.sin(), z], dim=1)
    return _centroidal_cover(n, cells, False).to(device=device, copy=True)


def ball_cover(n: int, cells: int, *, device=None) -> torch.Tensor:
    """``cells`` centres in the unit ball B^n (a centroidal Voronoi cover): covering radius ``O(K^{−1/n})``."""
    n, cells = positive_int("n", n), positive_int("cells", cells)
    return _centroidal_cover(n, cells, True).to(device=device, copy=True)


def weighted_kmeans(points: torch.Tensor, weights: torch.Tensor, cells: int, *, sphere: bool = True,
                    iterations: int = 60) -> torch.Tensor:
    """Centres of ``weights``-weighted k-means of ``points`` (``sphere``: spherical k-means), ``(K', n)``, ``K' ≤ cells``.

    Deterministic: weighted farthest-point start (the heaviest point, then repeatedly the point
    maximising ``weight · distance²`` to the chosen ones; fewer centres when no weighted distance is
    left), then Lloyd steps (nearest centre; centre = weighted mean, normalised on the sphere)
    until the assignment is stable or ``iterations`` steps. Minimises ``Σ_j ω_j ‖p_j − u_{k(j)}‖²``
    locally, a proxy for the merge moment ``Σ_j ω_j ‖p_j − u_{k(j)}‖``.
    """
    cells, iterations = positive_int("cells", cells), positive_int("iterations", iterations)
    points = _float64("points", points)
    if points.ndim != 2 or points.shape[0] < 1:
        raise ValueError(f"points must have shape (m, n) with m >= 1, got {tuple(points.shape)}")
    weights = _float64("weights", weights).to(points.device).abs()
    if weights.shape != (points.shape[0],):
        raise ValueError(f"weights must have shape ({points.shape[0]},) to match points, got {tuple(weights.shape)}")
    chosen = [int(weights.argmax())]
    distance2 = ((points - points[chosen[0]]) ** 2).sum(1)
    for _ in range(1, min(cells, points.shape[0])):
        score = weights * distance2
        j = int(score.argmax())
        if float(score[j]) <= 0:
            break
        chosen.append(j)
        distance2 = torch.minimum(distance2, ((points - points[j]) ** 2).sum(1))
    centres = points[chosen].clone()
    assignment = None
    for _ in range(iterations):
        new_assignment = torch.cdist(points, centres).argmin(1)
        if assignment is not None and bool((new_assignment == assignment).all()):
            break
        assignment = new_assignment
        mass = torch.zeros(len(centres), dtype=points.dtype, device=points.device).index_add_(0, assignment, weights)
        sums = torch.zeros_like(centres).index_add_(0, assignment, weights[:, None] * points)
        update = sums / mass.clamp_min(torch.finfo(points.dtype).tiny)[:, None]
        keep = mass <= 0
        if sphere:
            norm = update.norm(dim=1, keepdim=True)
            keep |= norm[:, 0] <= 1e-12
            update = update / norm.clamp_min(1e-300)
        centres = torch.where(keep[:, None], centres, update)
    return centres


# --------------------------------------------------------------------------------------------
# The constructive path
# --------------------------------------------------------------------------------------------

def default_cells(n: int, width: int) -> int:
    """The theorem's number of cells: ``⌊m/2⌋`` for ``n ≥ 2`` (so that ``K_A + K_B ≤ m``), 2 for ``n = 1``."""
    return 2 if n == 1 else max(1, width // 2)


def _compress(W, a, side: str, *, cover: str, cells: int, spherization: str) -> tuple[list[Segment], Canonical]:
    """The forward segments network → canonical form (prune, spherize, merge, consolidate) and the form."""
    m, n = W.shape
    segments = []
    radius = W.norm(dim=1)
    dead = radius == 0
    if bool(dead.any()):  # a_j ρ(0·x) = 0: drop a_j (ℓ1 decreases), then give w_j a direction for free
        if bool((a[dead] != 0).any()):
            a1 = torch.where(dead, torch.zeros_like(a), a)
            segments.append(Segment("prune", side, W, a, W, a1))
            a = a1
        W1 = W.clone()
        W1[dead] = torch.nn.functional.one_hot(torch.tensor(0, device=W.device), n).to(W)
        segments.append(Segment("free", side, W, a, W1, a))
        W, radius = W1, W1.norm(dim=1)
    sphere = spherization != "none"
    if sphere and bool((radius != 1).any()):
        Ws, a_s = W / radius[:, None], a * radius
        curve = {"curve": dict(curve="rescale", radii=radius), "chord": {}}[spherization]
        segments.append(Segment("spherize", side, W, a, Ws, a_s, **curve))
        W, a = Ws, a_s
    if n == 1 and sphere:
        centres = sphere_cover(1, 2, device=W.device)
    elif cover == "grid":
        centres = sphere_cover(n, cells, device=W.device) if sphere else ball_cover(n, cells, device=W.device)
    else:
        centres = weighted_kmeans(W, a, cells, sphere=sphere)
    assignment = torch.cdist(W, centres).argmin(1)
    U = centres[assignment]
    moment = float((a.abs() * (W - U).norm(dim=1)).sum())
    if _changed(W, U):
        segments.append(Segment("merge", side, W, a, U, a))
        W = U
    totals = torch.zeros(len(centres), dtype=a.dtype, device=a.device).index_add_(0, assignment, a)
    order = torch.argsort(-a.abs(), stable=True)  # representative of a cell: its member with the largest |ã_j|
    first = torch.full((len(centres),), m, dtype=torch.long, device=a.device)
    first.scatter_reduce_(0, assignment[order], torch.arange(m, device=a.device), reduce="amin")
    occupied = (first < m) & (totals != 0)
    slots = order[first[occupied]]
    a_canonical = torch.zeros_like(a)
    a_canonical[slots] = totals[occupied]
    if _changed(a, a_canonical):
        segments.append(Segment("consolidate", side, W, a, W, a_canonical))
    return segments, Canonical(W, a_canonical, centres, assignment, slots, moment)


def _bridge(A: Canonical, B: Canonical, *, bridge: str) -> list[Segment]:
    """Segments from canonical A to canonical B: free moves, the output-weight bridge, transfers.

    B's units are first parked in temporary slots ``t_k`` that are free in canonical A: ``t_k = r_k``
    (B's own slot) unless ``r_k`` is one of A's slots, then a slot outside both. That needs
    ``K_A + K_B ≤ m`` (counting occupied cells) and makes every later transfer conflict-free.
    """
    m, n = A.W.shape
    need = A.slots.numel() + B.slots.numel()
    if need > m:
        hint = ("in 1-D each network that uses both directions ±1 occupies 2 cells, so this construction needs"
                " m >= 4" if n == 1 else
                f"pass fewer cells (cells <= m // 2 = {m // 2} guarantees K_A + K_B <= m)")
        raise ValueError(f"the bridge needs K_A + K_B = {A.slots.numel()} + {B.slots.numel()} = {need} slots,"
                         f" but the networks have m = {m}: {hint}")
    in_A = torch.zeros(m, dtype=torch.bool, device=A.W.device)
    in_A[A.slots] = True
    in_B = torch.zeros_like(in_A)
    in_B[B.slots] = True
    spare = iter((~in_A & ~in_B).nonzero()[:, 0].tolist())
    temporary = torch.tensor([next(spare) if bool(in_A[r]) else int(r) for r in B.slots.tolist()],
                             dtype=torch.long, device=A.W.device)
    segments = []
    W, a = A.W, A.a
    W_parked = W.clone()
    W_parked[temporary] = B.W[B.slots]
    a_mid = torch.zeros_like(a)
    a_mid[temporary] = B.a[B.slots]
    if bridge == "output":
        if _changed(W, W_parked):
            segments.append(Segment("free", "bridge", W, a, W_parked, a))
        segments.append(Segment("bridge", "bridge", W_parked, a, W_parked, a_mid))
    else:  # control: first-layer weights move during the bridge
        segments.append(Segment("bridge", "bridge", W, a, W_parked, a_mid))
    W, a = W_parked, a_mid
    busy = torch.zeros_like(in_A)
    busy[temporary] = True
    W1 = torch.where(busy[:, None], W, B.W)  # every free slot to B's layout, B's own slots included
    if _changed(W, W1):
        segments.append(Segment("free", "bridge", W, a, W1, a))
        W = W1
    if _changed(a, B.a):  # units parked away from their slot move there: a transfers between equal directions
        segments.append(Segment("transfer", "bridge", W, a, W, B.a))
        a = B.a
    if _changed(W, B.W):
        segments.append(Segment("free", "bridge", W, a, B.W, a))
    return segments


def constructive_path(A, B, x, *, cover: str = "adaptive", cells: int | None = None,
                      spherization: str = "curve", bridge: str = "output") -> Path:
    """The path of Theorem ``thm-barrier-decay`` from network ``A`` to network ``B``, segment by segment.

    ``A``, ``B``: pairs ``(W (m, n), a (m,))`` (or bias-free ``Sequential`` networks) with ``‖w_j‖ ≤ 1``.
    ``x`` (N, n): the data; it fixes ``n`` and the device (the path itself does not depend on it).
    ``cover``: ``"grid"`` (a fixed cover of S^{n−1}, :func:`sphere_cover`: the theorem's) or
    ``"adaptive"`` (``|ã|``-weighted spherical k-means, :func:`weighted_kmeans`); ``cells``: the number
    ``K`` of cells, default ``⌊m/2⌋`` (for ``n = 1`` the cover is S⁰ = {±1}, ``K = 2``).

    Deliberately broken variants, for the negative controls: ``spherization="chord"`` (the straight
    chord between the spherization's endpoints instead of the rescaling curve: the function changes),
    ``spherization="none"`` (no spherization: the ball is covered, rate ``m^{−1/n}``),
    ``bridge="joint"`` (first-layer weights move during the bridge: convexity is lost).

    Raises ``ValueError`` when the networks are infeasible or mismatched, or when the bridge needs
    more slots than the networks have (``K_A + K_B > m`` occupied cells).
    """
    with torch.no_grad():
        WA, aA = as_network("A", A)
        WB, aB = as_network("B", B)
        if WA.shape != WB.shape:
            raise ValueError(f"A and B must have the same shape, got W {tuple(WA.shape)} and {tuple(WB.shape)}")
        WB, aB = WB.to(WA.device), aB.to(WA.device)
        m, n = WA.shape
        _data(x, n=n)
        cover = _choice("cover", cover, COVERS)
        spherization = _choice("spherization", spherization, SPHERIZATIONS)
        bridge = _choice("bridge", bridge, BRIDGES)
        cells = default_cells(n, m) if cells is None else positive_int("cells", cells)
        options = dict(cover=cover, cells=cells, spherization=spherization)
        segments_A, canonical_A = _compress(WA, aA, "A", **options)
        segments_B, canonical_B = _compress(WB, aB, "B", **options)
        segments = (segments_A + _bridge(canonical_A, canonical_B, bridge=bridge)
                    + [s.reversed("B") for s in reversed(segments_B)])
        info = {"cover": cover, "cells": cells, "spherization": spherization, "bridge": bridge,
                "masses": tuple(float((net[1] * net[0].norm(dim=1)).abs().sum()) for net in ((WA, aA), (WB, aB))),
                "occupied": (int(canonical_A.slots.numel()), int(canonical_B.slots.numel())),
                "canonical": (canonical_A, canonical_B)}
        return Path(tuple(segments), (canonical_A.moment, canonical_B.moment), info)


# --------------------------------------------------------------------------------------------
# Cost along a path: profile, barrier, audit
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Profile:
    """The cost sampled along a path: ``t`` (path time), ``cost``, ``segment`` index of each sample."""

    t: np.ndarray
    cost: np.ndarray
    segment: np.ndarray
    kinds: tuple[str, ...]

    @property
    def boundaries(self) -> np.ndarray:
        """Path times where segments meet, ``i/S``."""
        return np.arange(len(self.kinds) + 1) / len(self.kinds)

    def barriers(self) -> dict[str, float]:
        """The barrier in the three conventions of the literature, from the same samples.

        ``max``: ``max_t C − max(C₀, C₁)`` (the theorem's, Freeman-Bruna's "energy gap");
        ``mean``: ``max_t C − (C₀ + C₁)/2`` (Git Re-Basin); ``interpolated``:
        ``max_t [C(t) − ((1−t)C₀ + tC₁)]`` (Entezari et al.), ``t`` the path time.
        """
        c0, c1 = float(self.cost[0]), float(self.cost[-1])
        top = float(self.cost.max())
        return {"max": top - max(c0, c1), "mean": top - 0.5 * (c0 + c1),
                "interpolated": float((self.cost - ((1 - self.t) * c0 + self.t * c1)).max())}


def _segment_times(points_per_segment: int, device) -> torch.Tensor:
    if positive_int("points_per_segment", points_per_segment) < 2:
        raise ValueError(f"points_per_segment must be >= 2 (both ends of a segment), got {points_per_segment}")
    return torch.linspace(0, 1, points_per_segment, dtype=torch.float64, device=device)


def _sampled(path: Path, x, y, loss: str, lam: float, points_per_segment: int):
    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    x, y = _data(x, y, n=path.segments[0].W0.shape[1], loss=loss)
    device = path.segments[0].W0.device
    x, y = x.to(device), y.to(device)
    local = _segment_times(points_per_segment, device)
    params = [s.evaluate(local) for s in path.segments]
    W = torch.cat([p[0] for p in params])
    a = torch.cat([p[1] for p in params])
    f, c = _values(W, a, x, y, loss_fn, lam)
    count = len(path.segments)
    return local, f.reshape(count, points_per_segment, -1), c.reshape(count, points_per_segment), x


def profile(path: Path, x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> Profile:
    """The cost ``C`` at ``points_per_segment`` equally spaced times of every segment of ``path``."""
    local, _, c, _ = _sampled(path, x, y, loss, lam, points_per_segment)
    count = len(path.segments)
    t = ((torch.arange(count, device=local.device)[:, None] + local[None, :]) / count).reshape(-1)
    segment = np.repeat(np.arange(count), points_per_segment)
    return Profile(t.cpu().numpy(), c.reshape(-1).cpu().numpy(), segment, tuple(path.kinds))


def barrier(path: Path, x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> float:
    """``B(γ) = max_t C(γ(t)) − max(C(γ(0)), C(γ(1)))`` over the sampled times (a lower bound of the supremum;
    the audit bounds the supremum on every segment from its guarantee)."""
    return profile(path, x, y, loss=loss, lam=lam, points_per_segment=points_per_segment).barriers()["max"]


def barriers(paths: Sequence[Path], x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> list[float]:
    """:func:`barrier` of many paths (all of the same shape) from one batched evaluation of the cost.

    The samples of every path are stacked into one batch of parameter sets, so on a GPU all pairs
    are evaluated at once; the result equals ``[barrier(p, ...) for p in paths]`` to round-off.
    """
    if isinstance(paths, Path) or len(paths) == 0:
        raise ValueError("paths must be a non-empty sequence of Path objects")
    for i, path in enumerate(paths):
        if not isinstance(path, Path):
            raise TypeError(f"paths[{i}] must be a Path, got {type(path).__name__}")
    shapes = {tuple(p.segments[0].W0.shape) for p in paths}
    if len(shapes) != 1:
        raise ValueError(f"every path must have networks of the same shape, got {sorted(shapes)}")
    loss_fn, lam = get_loss(loss), _lam(lam)
    device = paths[0].segments[0].W0.device
    x, y = _data(x, y, n=paths[0].segments[0].W0.shape[1], loss=loss)
    x, y = x.to(device), y.to(device)
    local = _segment_times(points_per_segment, device)
    params = [s.evaluate(local) for p in paths for s in p.segments]
    _, c = _values(torch.cat([q[0] for q in params]), torch.cat([q[1] for q in params]), x, y, loss_fn, lam)
    result, start = [], 0
    for path in paths:
        stop = start + len(path.segments) * points_per_segment
        ci = c[start:stop]
        result.append(float(ci.max() - torch.maximum(ci[0], ci[-1])))
        start = stop
    return result


@dataclass(frozen=True)
class SegmentAudit:
    """What one segment promises and what it did on the data.

    ``function_change``: ``max_{t,i} |f_t(x_i) − f_0(x_i)|`` (exact kinds must keep it ≤ ``FUNCTION_ATOL``);
    ``excess``: how far the cost went above its promised bound, which is ``allowed`` (``COST_ATOL`` of
    round-off, plus the merge certificate for merge segments), in the segment's forward direction.
    """

    kind: str
    side: str
    function_change: float
    excess: float
    allowed: float

    @property
    def exact(self) -> bool:
        return self.kind in EXACT_KINDS

    @property
    def holds(self) -> bool:
        return (not self.exact or self.function_change <= FUNCTION_ATOL) and self.excess <= self.allowed


@dataclass(frozen=True)
class Audit:
    """Every segment's guarantee checked on data, with the path's barriers, levels and certificate.

    ``peak``: the sampled ``max_t C``; ``barrier = peak − level``, ``level = max(C(θ_A), C(θ_B))``.
    ``spherized_level``: ``max(C(θ̃_A), C(θ̃_B))`` at the spherized networks (after pruning and
    spherization, before merging), which is ``≤ level`` because those segments lower the cost;
    ``inner_peak``: the sampled maximum between them; ``merge_barrier = inner_peak − spherized_level``
    is what merging and bridging add, the quantity the proof of Theorem ``thm-barrier-decay`` bounds
    by the certificate. When spherization keeps its promise, ``barrier ≤ max(merge_barrier, 0)``.
    ``scale = L·mean‖x‖·max(Σ_j|ã^A_j|, Σ_j|ã^B_j|)``: the certificate is ``≤ scale · δ(U)``.
    """

    segments: tuple[SegmentAudit, ...]
    peak: float
    level: float
    inner_peak: float
    spherized_level: float
    certificate: float
    scale: float

    @property
    def barrier(self) -> float:
        return self.peak - self.level

    @property
    def merge_barrier(self) -> float:
        return self.inner_peak - self.spherized_level

    @property
    def normalized_barrier(self) -> float:
        """``merge_barrier / scale``: at most the ``|ã|``-weighted mean distance to the centres, ``≤ δ(U)``."""
        return self.merge_barrier / self.scale if self.scale > 0 else 0.0

    @property
    def failures(self) -> list[SegmentAudit]:
        return [s for s in self.segments if not s.holds]

    @property
    def holds(self) -> bool:
        """Every segment keeps its guarantee and the barrier is within the certificate."""
        return not self.failures and self.merge_barrier <= self.certificate + COST_ATOL

    @property
    def max_function_change(self) -> float:
        return max((s.function_change for s in self.segments if s.exact), default=0.0)


def audit(path: Path, x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> Audit:
    """Check every segment of a constructive path against its guarantee (``GUARANTEES``) on ``(x, y)``.

    Exact kinds: ``|f_t − f_0| ≤ FUNCTION_ATOL`` at every sample; prune and spherize: cost
    non-increasing between consecutive samples; consolidate: cost ≤ its start; free and transfer:
    cost constant; bridge: cost ≤ the chord ``(1−t)C₀ + tC₁`` (convexity); merge: cost ≤ start + ``L·mean‖x‖·μ_side``.
    All up to ``COST_ATOL`` (round-off of a float64 mean). Also returns the sampled peak and level
    ``max(C₀, C₁)`` (hence the barrier), the level and peak between the spherized networks (hence
    :attr:`Audit.merge_barrier`), the certificate :meth:`Path.certificate` and its prefactor.
    """
    if path.moments is None:
        raise ValueError("audit needs a constructive path (it checks the construction's guarantees)")
    local, f, c, x = _sampled(path, x, y, loss, lam, points_per_segment)
    lipschitz = get_loss(loss).lipschitz
    mean_norm = float(x.norm(dim=1).mean())
    results = []
    for i, segment in enumerate(path.segments):
        fi, ci = (f[i].flip(0), c[i].flip(0)) if segment.reverse else (f[i], c[i])  # forward direction
        change = float((fi - fi[0]).abs().max())
        if segment.kind in ("prune", "spherize"):
            excess = float((ci[1:] - ci[:-1]).max())
        elif segment.kind in ("consolidate", "merge"):
            excess = float((ci - ci[0]).max())
        elif segment.kind in ("free", "transfer"):
            excess = float((ci - ci[0]).abs().max())
        else:  # bridge: f_t is affine in t, so C is convex in t and below the chord between its endpoints
            excess = float((ci - ((1 - local) * ci[0] + local * ci[-1])).max())
        allowed = COST_ATOL
        if segment.kind == "merge":
            allowed += lipschitz * mean_norm * path.moments[0 if segment.side == "A" else 1]
        results.append(SegmentAudit(segment.kind, segment.side, change, excess, allowed))
    flat = c.reshape(-1)
    level = float(torch.maximum(flat[0], flat[-1]))
    ends = [i for i, s in enumerate(path.segments) if s.kind in ("prune", "spherize")]
    first = max([i + 1 for i in ends if path.segments[i].side == "A"], default=0)  # after A's spherization
    last = min([i for i in ends if path.segments[i].side == "B"], default=len(path.segments))  # before B's
    inner = c[first:last]  # the part of the path between the spherized networks
    spherized_level = float(torch.maximum(c[first, 0] if first < len(c) else flat[-1],
                                          c[last - 1, -1] if last > 0 else flat[0]))
    inner_peak = float(inner.max()) if inner.numel() else spherized_level
    scale = lipschitz * mean_norm * max(path.info["masses"])
    return Audit(tuple(results), float(flat.max()), level, inner_peak, spherized_level, path.certificate(x, lipschitz),
                 scale)


# --------------------------------------------------------------------------------------------
# Networks to connect: worst-case spread networks, trained networks
# --------------------------------------------------------------------------------------------

def _generator(seed: int, device) -> torch.Generator:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return torch.Generator(device=device).manual_seed(seed)


def _uniform_ball(count: int, n: int, generator, device) -> torch.Tensor:
    g = torch.randn(count, n, generator=generator, dtype=torch.float64, device=device)
    r = torch.rand(count, 1, generator=generator, dtype=torch.float64, device=device) ** (1.0 / n)
    return r * g / g.norm(dim=1, keepdim=True)


def spread_network(n: int, width: int, *, seed: int = 0, device=None) -> Network:
    """A worst case for merging: ``w_j`` uniform in the unit ball (directions uniform on S^{n−1}),
    ``a_j = ±1/m`` with random signs, so ``‖a‖₁ = 1`` and no two neurons are close."""
    n, width = positive_int("n", n), positive_int("width", width)
    generator = _generator(seed, device)
    W = _uniform_ball(width, n, generator, device)
    signs = torch.randint(0, 2, (width,), generator=generator, device=device).to(torch.float64) * 2 - 1
    return W, signs / width


def teacher_data(n: int, *, samples: int = 256, loss: str = "huber", seed: int = 0, device=None):
    """``samples`` points ``x`` uniform in the unit ball of ℝⁿ and targets from a bias-free 5-ridge teacher.

    Teacher ``g(x) = Σ_{i≤5} c_i ρ(v_i · x)`` with unit ``v_i`` and ``c_i = ±1`` alternating;
    ``huber``: ``y = g(x) + 0.05 ε``; ``bce``: ``y = 1[g(x) > median g]``. Returns float64 ``(x, y)``.
    """
    n, samples = positive_int("n", n), positive_int("samples", samples)
    loss = get_loss(loss).name
    generator = _generator(seed, device)
    x = _uniform_ball(samples, n, generator, device)
    v = torch.randn(5, n, generator=generator, dtype=torch.float64, device=device)
    v = v / v.norm(dim=1, keepdim=True)
    c = torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=torch.float64, device=device)
    g = torch.relu(x @ v.T) @ c
    if loss == "huber":
        return x, g + 0.05 * torch.randn(samples, generator=generator, dtype=torch.float64, device=device)
    return x, (g > g.median()).to(torch.float64)


def train_networks(x, y, *, width: int, seeds: int, loss: str, lam: float = LAMBDA, steps: int | None = None,
                   lr: float = 0.02, seed: int = 0) -> Network:
    """Train ``seeds`` bias-free networks of width ``width`` at once; return ``W (S, m, n)``, ``a (S, m)``.

    Full-batch Adam on ``Σ_s C(θ_s)`` (the seeds are independent: the sum's gradient is each one's),
    each step followed by the projection ``w_j ← w_j / max(1, ‖w_j‖)`` onto the feasible set.
    Initialisation from ``seed``: ``w_j`` uniform in the unit ball, ``a_j ~ N(0, 1/m)``.
    ``steps`` defaults to 300 at ``BOOK_SCALE=ci`` and 1500 at ``full``.
    """
    width, seeds = positive_int("width", width), positive_int("seeds", seeds)
    x, y = _data(x, y, loss=loss)
    loss_fn, lam = get_loss(loss), _lam(lam)
    steps = book_device.sizes(ci=300, full=1500) if steps is None else positive_int("steps", steps)
    lr = finite_real("lr", lr)
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr!r}")
    generator = _generator(seed, x.device)
    W = _uniform_ball(seeds * width, x.shape[1], generator, x.device).reshape(seeds, width, -1).requires_grad_()
    a = (torch.randn(seeds, width, generator=generator, dtype=torch.float64, device=x.device)
         / math.sqrt(width)).requires_grad_()
    optimiser = torch.optim.Adam([W, a], lr=lr)
    for _ in range(steps):
        optimiser.zero_grad(set_to_none=True)
        total = (loss_fn(_forward(W, a, x), y).mean(-1) + lam * a.abs().sum(-1)).sum()
        total.backward()
        optimiser.step()
        with torch.no_grad():
            W /= W.norm(dim=-1, keepdim=True).clamp_min(1.0)
    return W.detach(), a.detach()


def _lift(x: torch.Tensor) -> torch.Tensor:
    """Inputs ``(x, 1)``: a network with biases on ``x`` is a bias-free network on these."""
    return torch.cat([x, torch.ones_like(x[:, :1])], dim=1)


# --------------------------------------------------------------------------------------------
# Baselines: the straight line, weight matching, Bezier curves
# --------------------------------------------------------------------------------------------

def straight_line(A, B) -> Path:
    """The naive path ``(1−t)θ_A + tθ_B`` (no guarantee)."""
    (WA, aA), (WB, aB) = as_network("A", A), as_network("B", B)
    if WA.shape != WB.shape:
        raise ValueError(f"A and B must have the same shape, got W {tuple(WA.shape)} and {tuple(WB.shape)}")
    return Path((Segment("line", "bridge", WA, aA, WB.to(WA), aB.to(WA)),))


def weight_matching(A, B) -> tuple[Network, torch.Tensor]:
    """``B`` with its hidden units permuted to match ``A``'s (Git Re-Basin's weight matching).

    For one hidden layer the matching is a single assignment problem: the permutation ``π``
    maximising ``Σ_j ⟨(w^A_j, a^A_j), (w^B_{π(j)}, a^B_{π(j)})⟩`` (Hungarian algorithm,
    ``scipy.optimize.linear_sum_assignment``). The permuted network computes the same function.
    Returns ``((W_B[π], a_B[π]), π)``.
    """
    (WA, aA), (WB, aB) = as_network("A", A), as_network("B", B)
    if WA.shape != WB.shape:
        raise ValueError(f"A and B must have the same shape, got W {tuple(WA.shape)} and {tuple(WB.shape)}")
    WB, aB = WB.to(WA), aB.to(WA)
    similarity = torch.cat([WA, aA[:, None]], 1) @ torch.cat([WB, aB[:, None]], 1).T
    _, perm = linear_sum_assignment(similarity.cpu().numpy(), maximize=True)
    perm = torch.as_tensor(perm, dtype=torch.long, device=WA.device)
    return (WB[perm], aB[perm]), perm


def matched_line(A, B) -> Path:
    """The straight line from ``A`` to ``B`` after weight matching (no guarantee)."""
    return straight_line(A, weight_matching(A, B)[0])


def bezier_paths(pairs: Sequence[tuple], x, y, *, loss: str, lam: float = LAMBDA, steps: int = 300,
                 samples: int = 8, lr: float = 0.01, converge: float | None = None, check_every: int = 50,
                 seed: int = 0) -> list[Path]:
    """Quadratic Bezier curves ``(1−t)²θ_A + 2t(1−t)θ_c + t²θ_B`` with trained control points (Garipov et al.).

    All pairs (same shape) are trained at once: ``θ_c`` starts at the midpoint; each Adam step averages
    the cost at ``samples`` uniform random ``t``; ``W_c`` is projected onto the unit ball after each
    step, so the whole curve is feasible (the Bernstein weights are a convex combination).
    ``steps`` Adam steps, or with ``converge`` a stopping rule: every ``check_every`` steps the largest
    barrier over the pairs is evaluated at 101 times, and training stops when it is at most
    ``COST_ATOL`` or fell by less than the fraction ``converge`` since the previous evaluation
    (``steps`` is then the cap). ``path.info["steps"]`` is the number of steps taken.
    """
    if len(pairs) == 0:
        raise ValueError("pairs must contain at least one pair (A, B)")
    nets = [(as_network(f"pairs[{i}][0]", A), as_network(f"pairs[{i}][1]", B)) for i, (A, B) in enumerate(pairs)]
    shapes = {tuple(p[0][0].shape) for p in nets} | {tuple(p[1][0].shape) for p in nets}
    if len(shapes) != 1:
        raise ValueError(f"every network in pairs must have the same shape, got {sorted(shapes)}")
    steps, samples = positive_int("steps", steps), positive_int("samples", samples)
    check_every = positive_int("check_every", check_every)
    if converge is not None and not 0 <= finite_real("converge", converge) < 1:
        raise ValueError(f"converge must be a fraction in [0, 1) or None, got {converge!r}")
    loss_fn, lam = get_loss(loss), _lam(lam)
    device = nets[0][0][0].device
    x, y = _data(x, y, n=nets[0][0][0].shape[1], loss=loss)
    x, y = x.to(device), y.to(device)
    WA = torch.stack([p[0][0] for p in nets]).to(device)
    aA = torch.stack([p[0][1] for p in nets]).to(device)
    WB = torch.stack([p[1][0] for p in nets]).to(device)
    aB = torch.stack([p[1][1] for p in nets]).to(device)
    Wc = (0.5 * (WA + WB)).requires_grad_()
    ac = (0.5 * (aA + aB)).requires_grad_()
    optimiser = torch.optim.Adam([Wc, ac], lr=lr)
    generator = _generator(seed, device)

    def curve(t):
        b0, b1, b2 = (1 - t) ** 2, 2 * t * (1 - t), t**2
        return (b0[..., None] * WA + b1[..., None] * Wc + b2[..., None] * WB,  # (T, P, m, n)
                b0 * aA + b1 * ac + b2 * aB)

    def largest_barrier() -> float:
        with torch.no_grad():
            W, a = curve(torch.linspace(0, 1, 101, dtype=torch.float64, device=device)[:, None, None])
            _, c = _values(W.reshape(-1, *W.shape[2:]), a.reshape(-1, a.shape[-1]), x, y, loss_fn, lam)
            c = c.reshape(101, -1)
            return float((c.max(0).values - torch.maximum(c[0], c[-1])).max())

    previous, taken = math.inf, 0
    for taken in range(1, steps + 1):
        W, a = curve(torch.rand(samples, 1, 1, generator=generator, dtype=torch.float64, device=device))
        optimiser.zero_grad(set_to_none=True)
        (loss_fn(_forward(W, a, x), y).mean(-1) + lam * a.abs().sum(-1)).mean(0).sum().backward()
        optimiser.step()
        with torch.no_grad():
            Wc /= Wc.norm(dim=-1, keepdim=True).clamp_min(1.0)
        if converge is not None and taken % check_every == 0:
            current = largest_barrier()
            if current <= COST_ATOL or previous - current <= converge * previous:
                break
            previous = current
    Wc, ac = Wc.detach(), ac.detach()
    return [Path((Segment("bezier", "bridge", WA[p], aA[p], WB[p], aB[p], curve="bezier", control=(Wc[p], ac[p])),),
                 info={"steps": taken}) for p in range(len(nets))]


METHODS = ("straight line", "weight matching + line", "Bezier", "weight matching + Bezier",
           "constructive (grid)", "constructive (adaptive)")


def compare_paths(pairs: Sequence[tuple], x, y, *, loss: str, lam: float = LAMBDA, bezier_steps: int = 300,
                  methods: Sequence[str] = METHODS, seed: int = 0) -> dict[str, dict[str, list]]:
    """Every method of ``methods`` (default ``METHODS``) on the same ``pairs``, same cost, same barrier conventions.

    For each method, per pair: ``"max"``, ``"mean"``, ``"interpolated"`` (the three conventions of
    :meth:`Profile.barriers`), ``"level"`` (``max(C_A, C_B)``, the same for every method),
    ``"certificate"`` (``None`` for the methods that give none); and ``"seconds"``: process time to
    *find* the path, per pair (Bezier curves are trained for all pairs at once, ``bezier_steps`` Adam
    steps, and the time is divided by the number of pairs). Sampling: 51 points on lines, 101 on
    Bezier curves, 17 per constructive segment.
    """
    if len(pairs) == 0:
        raise ValueError("pairs must contain at least one pair (A, B)")
    if isinstance(methods, str) or not methods or any(m not in METHODS for m in methods):
        raise ValueError(f"methods must be a non-empty sequence of names from {METHODS}, got {methods!r}")
    loss_fn, lam = get_loss(loss), _lam(lam)
    pairs = [(as_network(f"pairs[{i}][0]", A), as_network(f"pairs[{i}][1]", B)) for i, (A, B) in enumerate(pairs)]

    def timed(build):
        start = time.process_time()
        paths = build()
        return paths, (time.process_time() - start) / len(pairs)

    builders = {
        "straight line": lambda: [straight_line(A, B) for A, B in pairs],
        "weight matching + line": lambda: [matched_line(A, B) for A, B in pairs],
        "Bezier": lambda: bezier_paths(pairs, x, y, loss=loss, lam=lam, steps=bezier_steps, seed=seed),
        "weight matching + Bezier": lambda: bezier_paths([(A, weight_matching(A, B)[0]) for A, B in pairs],
                                                         x, y, loss=loss, lam=lam, steps=bezier_steps, seed=seed),
        "constructive (grid)": lambda: [constructive_path(A, B, x, cover="grid") for A, B in pairs],
        "constructive (adaptive)": lambda: [constructive_path(A, B, x, cover="adaptive") for A, B in pairs],
    }
    found = {method: timed(builders[method]) for method in METHODS if method in methods}
    points = {"straight line": 51, "weight matching + line": 51, "Bezier": 101, "weight matching + Bezier": 101}
    table = {}
    for method, (paths, seconds) in found.items():
        profiles = [profile(p, x, y, loss=loss, lam=lam, points_per_segment=points.get(method, 17)) for p in paths]
        conventions = [p.barriers() for p in profiles]
        table[method] = {
            **{key: [c[key] for c in conventions] for key in ("max", "mean", "interpolated")},
            "level": [max(float(p.cost[0]), float(p.cost[-1])) for p in profiles],
            "certificate": [p.certificate(x, loss_fn.lipschitz) if p.moments is not None else None for p in paths],
            "seconds": seconds,
        }
    return table


# --------------------------------------------------------------------------------------------
# The claims
# --------------------------------------------------------------------------------------------

def _int_list(name: str, values, minimum: int) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a sequence of ints, got {type(values).__name__}")
    values = [positive_int(f"{name}[{i}]", v) for i, v in enumerate(values)]
    low = [v for v in values if v < minimum]
    if low:
        raise ValueError(f"{name} must all be >= {minimum}, got {low}")
    return values


def _check_data(data, n: int, loss: str, seed: int, device):
    if data is None:
        return teacher_data(n, loss=loss, seed=seed, device=device)
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"data must be a pair (x, y) of tensors, got {type(data).__name__}")
    x, y = _data(*data, n=n, loss=loss)
    return x.to(device), y.to(device)


REQ_EXACT = f"function-exact segments reproduce f within {FUNCTION_ATOL:g} on every pair"
REQ_MONOTONE = f"cost non-increasing along spherization, ≤ its start along consolidation (+{COST_ATOL:g})"
REQ_CONSTANT = f"cost constant along free moves and transfers (±{COST_ATOL:g}) on every pair"
REQ_BRIDGE = f"bridge cost ≤ the chord between its endpoint costs (+{COST_ATOL:g}) on every pair"
REQ_CERTIFICATE = ("barrier above the spherized endpoints ≤ certificate L·mean‖x‖·max_side Σ|ã_j|‖w̃_j − u_k(j)‖"
                   f" (+{COST_ATOL:g}) on every pair")


def _audit_requirements(audits: Sequence[Audit]) -> dict[str, bool]:
    """Every guarantee that :attr:`Audit.holds` enforces, grouped by the ingredient of the proof it tests."""
    segments = [s for a in audits for s in a.segments]
    return {
        REQ_EXACT: all(s.function_change <= FUNCTION_ATOL for s in segments if s.exact),
        REQ_MONOTONE: all(s.excess <= s.allowed for s in segments if s.kind in ("prune", "spherize", "consolidate")),
        REQ_CONSTANT: all(s.excess <= s.allowed for s in segments if s.kind in ("free", "transfer")),
        REQ_BRIDGE: all(s.excess <= s.allowed for s in segments if s.kind == "bridge"),
        REQ_CERTIFICATE: all(a.merge_barrier <= a.certificate + COST_ATOL
                             and all(s.holds for s in a.segments if s.kind == "merge") for a in audits),
    }


def _pairs(W: torch.Tensor, a: torch.Tensor) -> list[tuple[Network, Network]]:
    return [((W[i], a[i]), (W[j], a[j])) for i, j in itertools.combinations(range(W.shape[0]), 2)]


def _rate_inputs(n, widths, seeds, minimum_seeds: int = 1):
    n = positive_int("n", n)
    if n < 2:
        raise ValueError(f"n must be >= 2 for the rate m^(−1/(n−1)), got {n}; n = 1 is check_zero_barrier_1d")
    widths = _int_list("widths", widths, 4)
    if len(set(widths)) < 2:
        raise ValueError(f"widths needs at least two distinct widths to fit a rate, got {widths}")
    seeds = positive_int("seeds", seeds)
    if seeds < minimum_seeds:
        raise ValueError(f"seeds must be >= {minimum_seeds} (pairs of trained networks), got {seeds}")
    return n, widths, seeds


def spread_pairs(n: int, width: int, *, seeds: int, seed: int = 0, device=None) -> list[tuple[Network, Network]]:
    """``seeds`` pairs of independent :func:`spread_network` s; offset ``seed`` uses the network seeds
    ``2·seeds·seed + 2s`` and ``+ 1`` for pair ``s``, so different offsets share no network."""
    n, width, seeds = positive_int("n", n), positive_int("width", width), positive_int("seeds", seeds)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    base = 2 * seeds * seed
    return [(spread_network(n, width, seed=base + 2 * s, device=device),
             spread_network(n, width, seed=base + 2 * s + 1, device=device)) for s in range(seeds)]


def spread_certificate_slopes(n: int, widths: Sequence[int], *, seeds: int, offsets: Sequence[int],
                              cover: str = "grid") -> list[float]:
    """The fitted slope of the mean certificate against ``m`` for each seed offset (no audit: the spread
    of the statistic that :func:`check_barrier_decay` fits, from which ``SLOPE_TOL`` is set)."""
    n, widths, seeds = _rate_inputs(n, widths, seeds)
    offsets = [int(o) for o in offsets]
    x = torch.zeros(1, n, dtype=torch.float64)
    x[0, 0] = 1.0  # the certificate's data factor mean‖x‖ = 1 does not change a slope
    slopes = []
    for offset in offsets:
        means = [float(np.mean([constructive_path(A, B, x, cover=cover).certificate(x, 1.0)
                                for A, B in spread_pairs(n, m, seeds=seeds, seed=offset)])) for m in widths]
        slopes.append(fit_loglog(widths, means).slope)
    return slopes


def check_barrier_decay(*, n: int, widths: Sequence[int], seeds: int = 5, loss: str = "huber", data=None,
                        cover: str = "grid", cells: int | None = None, spherization: str = "curve",
                        bridge: str = "output", lam: float = LAMBDA, tolerance: float | None = None,
                        seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-decay`` (n ≥ 2) on worst-case networks: the certificate decays like ``m^{−1/(n−1)}``.

    For every width ``m``, ``seeds`` pairs of independent :func:`spread_network` s (:func:`spread_pairs`
    with offset ``seed``: nothing to merge for free) are joined by :func:`constructive_path` and audited
    on ``data`` (default :func:`teacher_data`, which fixes ``mean‖x‖``) with ``loss``.

    Claim: the log-log slope of the *mean* certificate ``L·mean‖x‖·max(μ_A, μ_B)`` over the pairs
    against ``m`` is ``−1/(n−1) ± tolerance`` (two-sided: the certificate of spread networks is the
    covering radius times a mass, it follows the rate in both directions). Tolerance: ``SLOPE_TOL``,
    0.08 for n = 2 and 0.06 for n = 3, the slope's offset from ``−1/(n−1)`` plus four standard deviations
    over 20 seed offsets at the chapter's sizes (:func:`spread_certificate_slopes`); ``0.25/(n−1)`` for
    ``n ≥ 4``, whose covers are centroidal, not lattices. (The mean is fitted, not the largest
    certificate: a maximum over a few pairs spreads about twice as much between offsets.)

    Requirements, on every pair, what :func:`audit` checks (``_audit_requirements``): exact segments
    exact to 1e-10, monotone spherization and consolidation, constant cost on free moves and
    transfers, the bridge below the chord between its endpoint costs, the barrier above the spherized
    endpoints below the certificate. ``cells``, ``spherization`` and ``bridge`` are passed to :func:`constructive_path`
    (for the negative controls).
    """
    n, widths, seeds = _rate_inputs(n, widths, seeds)
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    expected = -1.0 / (n - 1)
    tolerance = SLOPE_TOL.get(n, 0.25 / (n - 1)) if tolerance is None else finite_real("tolerance", tolerance)
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    device = book_device.device()
    x, y = _check_data(data, n, loss, seed, device)
    options = dict(cover=_choice("cover", cover, COVERS), cells=cells, spherization=spherization, bridge=bridge)
    audits, mean, largest, realised = [], [], [], []
    for m in widths:
        found = [audit(constructive_path(A, B, x, **options), x, y, loss=loss, lam=lam)
                 for A, B in spread_pairs(n, m, seeds=seeds, seed=seed, device=device)]
        audits += found
        mean.append(float(np.mean([r.certificate for r in found])))
        largest.append(max(r.certificate for r in found))
        realised.append(max(r.barrier for r in found))
    return rate_check(
        f"barrier decay, n = {n}, worst-case (spread) networks, {loss} loss, {cover} cover"
        + (f", {cells} cells" if cells is not None else "")
        + ("" if spherization == "curve" else f", spherization {spherization}")
        + ("" if bridge == "output" else f", {bridge} bridge"),
        widths,
        mean,
        expected=expected,
        tolerance=tolerance,
        sense="==",
        quantity="slope of the mean certificate over pairs against the width m",
        requirements=_audit_requirements(audits),
        notes={
            "m": widths,
            "pairs per width": seeds,
            "mean certificate per width": mean,
            "largest certificate per width": largest,
            "largest realised barrier per width": realised,
            "largest ratio barrier/certificate": max(
                (r.barrier / r.certificate for r in audits if r.certificate > 0), default=0.0),
            "largest function change on exact segments": max(r.max_function_change for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    )


def check_trained_barriers(*, n: int, widths: Sequence[int], seeds: int = 3, loss: str = "huber", data=None,
                           lam: float = LAMBDA, steps: int | None = None, seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-decay`` on trained networks: every pair's barrier is within its certificate.

    For every width ``m``, ``seeds`` networks are trained on ``data`` (default :func:`teacher_data`)
    with ``loss`` (:func:`train_networks`, initialisation seed ``seed + m``), and every pair is joined
    by :func:`constructive_path` with the grid cover (the theorem's) and with the adaptive cover, and
    audited.

    Claim: on every pair and both covers, the barrier above the spherized endpoints
    (:attr:`Audit.merge_barrier`, never smaller than the barrier) is at most the certificate,
    ``max(merge_barrier − certificate) ≤ COST_ATOL``, and every segment keeps its guarantee
    (``_audit_requirements``). This is what the theorem states for any pair; it holds on every seed.

    Observation, not gated (the theorem bounds the barrier, it does not predict it): the log-log fit
    of the largest *normalised* barrier, :attr:`Audit.normalized_barrier` = merge barrier divided by
    ``L·mean‖x‖·max Σ_j|ã_j|`` (at most the covering radius), against ``m`` for the grid cover; the
    notes add the raw barrier, the adaptive path's relative barrier ``B/max(C_A, C_B)``, and the share
    of neurons with ``‖w_j‖ < 0.99`` (inside the ball: spherizing them lowers ``‖a‖₁``, which is why
    the raw barrier is often exactly 0). Raises ``ValueError`` when the normalised barrier is 0 at some
    width (no slope to report).
    """
    n, widths, seeds = _rate_inputs(n, widths, seeds, minimum_seeds=2)
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    device = book_device.device()
    x, y = _check_data(data, n, loss, seed, device)
    audits, normalized, raw, certificates, relative, inside = [], [], [], [], [], []
    for m in widths:
        W, a = train_networks(x, y, width=m, seeds=seeds, loss=loss, lam=lam, steps=steps, seed=seed + m)
        inside.append(float((W.norm(dim=-1) < 0.99).to(torch.float64).mean()))
        grid = [audit(constructive_path(A, B, x, cover="grid"), x, y, loss=loss, lam=lam) for A, B in _pairs(W, a)]
        adaptive = [audit(constructive_path(A, B, x, cover="adaptive"), x, y, loss=loss, lam=lam)
                    for A, B in _pairs(W, a)]
        audits += grid + adaptive
        normalized.append(max(r.normalized_barrier for r in grid))
        raw.append(max(max(r.barrier, 0.0) for r in grid))
        certificates.append(max(r.certificate for r in grid))
        relative.append(max(max(r.barrier, 0.0) / r.level for r in adaptive))
    if min(normalized) <= 0:
        raise ValueError(f"the largest normalised barrier is 0 at some width ({normalized}): no slope can be"
                         " reported (merging cost nothing there); use smaller widths")
    return rate_check(
        f"certificate on trained networks, n = {n}, {loss} loss, grid and adaptive covers",
        widths,
        normalized,
        expected=0.0,
        tolerance=COST_ATOL,
        sense="<=",
        measured=max(r.merge_barrier - r.certificate for r in audits),
        quantity="largest (barrier above the spherized endpoints − certificate) over all pairs",
        requirements=_audit_requirements(audits),
        notes={
            "m": widths,
            "pairs per width": seeds * (seeds - 1) // 2,
            "observed slope of the largest normalised barrier (grid)": fit_loglog(widths, normalized).slope,
            "theorem's slope (an upper bound)": -1.0 / (n - 1),
            "largest normalised barrier per width (grid)": normalized,
            "largest raw barrier per width (grid)": raw,
            "largest certificate per width (grid)": certificates,
            "largest relative barrier per width (adaptive)": relative,
            "share of neurons with ‖w‖ < 0.99": inside,
            "largest ratio barrier/certificate": max(
                (max(r.merge_barrier, 0.0) / r.certificate for r in audits if r.certificate > 0), default=0.0),
            "largest function change on exact segments": max(r.max_function_change for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    )


def check_zero_barrier_1d(widths: Sequence[int], *, loss: str = "huber", seeds: int = 4, data=None,
                          biases: bool = False, lam: float = LAMBDA, steps: int | None = None,
                          seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-1d``: for ``n = 1`` and ``m ≥ 4`` the constructive path has barrier exactly 0.

    For every width, ``seeds`` bias-free 1-D networks are trained on ``data`` (default
    :func:`teacher_data` with ``n = 1``) and every pair is joined by :func:`constructive_path`.
    Claim: the largest barrier over all pairs is ``≤ 1e-12`` (round-off of a float64 cost), and on
    every pair the certificate is exactly 0 (S⁰ = {±1} is covered with radius 0) and every segment
    keeps its guarantee (:func:`audit`). The log-log fit is of the naive straight line's largest
    barrier against ``m``, for contrast (it does not decay). ``biases=True`` is the negative
    control: networks with biases, i.e. bias-free networks on ``(x, 1)`` with ``n = 2``, where
    merging is no longer free.
    """
    widths = _int_list("widths", widths, 4)
    if len(set(widths)) < 2:
        raise ValueError(f"widths needs at least two distinct widths, got {widths}")
    seeds = positive_int("seeds", seeds)
    if seeds < 2:
        raise ValueError(f"seeds must be >= 2 (pairs of trained networks), got {seeds}")
    if not isinstance(biases, bool):
        raise TypeError(f"biases must be a bool, got {type(biases).__name__}")
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    device = book_device.device()
    x, y = _check_data(data, 1, loss, seed, device)
    inputs = _lift(x) if biases else x
    audits, largest, naive, certificates = [], [], [], []
    for m in widths:
        W, a = train_networks(inputs, y, width=m, seeds=seeds, loss=loss, lam=lam, steps=steps, seed=seed + m)
        found = [audit(constructive_path(A, B, inputs, cover="grid"), inputs, y, loss=loss, lam=lam)
                 for A, B in _pairs(W, a)]
        audits += found
        largest.append(max(r.barrier for r in found))
        certificates.append(max(r.certificate for r in found))
        naive.append(max(barrier(straight_line(A, B), inputs, y, loss=loss, lam=lam, points_per_segment=51)
                         for A, B in _pairs(W, a)))
    requirements = {"certificate exactly 0 on every pair (S⁰ covered with radius 0)": max(certificates) == 0.0}
    requirements.update(_audit_requirements(audits))
    return rate_check(
        f"zero barrier in 1-D, {loss} loss" + (", networks with biases" if biases else ""),
        widths,
        naive,
        expected=0.0,
        tolerance=ZERO_BARRIER_ATOL,
        sense="<=",
        measured=max(max(largest), 0.0),
        quantity="largest barrier of the constructive path over all pairs",
        requirements=requirements,
        notes={
            "m": widths,
            "pairs per width": len(audits) // len(widths),
            "largest barrier per width": largest,
            "largest certificate per width": certificates,
            "naive straight-line barrier per width (largest)": naive,
            "largest function change on exact segments": max(r.max_function_change for r in audits),
            "level max(C_A, C_B) (largest)": max(r.level for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    )


def default_widths(kind: str) -> list[int]:
    """The chapter's widths: ``"1d"`` 4..128; ``"spread"`` 16..512 (``full``: ..2048); ``"trained"`` 16..128."""
    kind = _choice("kind", kind, ("1d", "spread", "trained"))
    if kind == "1d":
        return [4, 8, 16, 32, 64, 128]
    if kind == "spread":
        return [2**k for k in range(4, book_device.sizes(ci=10, full=12))]
    return [16, 32, 64, 128]


def default_seeds(kind: str) -> int:
    """Seeds per width: ``ci`` 3 trained networks (3 pairs) or 5 spread pairs; ``full`` 10 (45 pairs, spread 10).

    At ``full`` scale the trained grid is 4 widths × 45 pairs × 2 losses × 2 dimensions = 720 pairs.
    """
    kind = _choice("kind", kind, ("1d", "spread", "trained"))
    return book_device.sizes(ci=5 if kind == "spread" else 3, full=10)


CHAPTER = "book/04_barrier_decay"


@claim("barrier/zero-1d-huber", chapter=CHAPTER, label="thm-barrier-1d",
       statement="n = 1, m ≥ 4: barrier exactly 0 (Huber), certificate 0")
def _claim_zero_huber() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), loss="huber", seeds=default_seeds("1d"))


@claim("barrier/zero-1d-bce", chapter=CHAPTER, label="thm-barrier-1d",
       statement="n = 1, m ≥ 4: barrier exactly 0 (BCE), certificate 0")
def _claim_zero_bce() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), loss="bce", seeds=default_seeds("1d"))


@claim("barrier/spread-n2", chapter=CHAPTER, label="thm-barrier-decay",
       statement="n = 2, worst-case networks: mean certificate ∝ m^−1 (slope within 0.08)")
def _claim_spread_2() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"))


@claim("barrier/spread-n3", chapter=CHAPTER, label="thm-barrier-decay",
       statement="n = 3, worst-case networks: mean certificate ∝ m^−1/2 (slope within 0.06)")
def _claim_spread_3() -> RateCheck:
    return check_barrier_decay(n=3, widths=default_widths("spread"), seeds=default_seeds("spread"))


def _trained_claim(n: int, loss: str):
    @claim(f"barrier/trained-n{n}-{loss}", chapter=CHAPTER, label="thm-barrier-decay",
           statement=f"n = {n}, trained networks ({loss}): barrier within the certificate on every pair, grid and"
                     " adaptive covers (the decay of the barrier is reported, not asserted)")
    def run() -> RateCheck:
        return check_trained_barriers(n=n, widths=default_widths("trained"), seeds=default_seeds("trained"), loss=loss)

    return run


_trained_claim(2, "huber")
_trained_claim(2, "bce")
_trained_claim(3, "huber")
_trained_claim(3, "bce")


@claim("barrier/control-chord", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: spherization by its chord (the function changes) must be rejected")
def _control_chord() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread")[:4], seeds=2, spherization="chord")


@claim("barrier/control-joint-bridge", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: first-layer weights moving during the bridge must be rejected")
def _control_joint() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread")[:4], seeds=2, bridge="joint")


@claim("barrier/control-fixed-cells", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: a cover with K = 8 cells for every m (no rate) must be rejected")
def _control_fixed() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"), cells=8)


@claim("barrier/control-ball", chapter=CHAPTER, label="thm-barrier-decay", control=True,
       statement="control: no spherization (ball cover, rate m^−1/n) must be rejected")
def _control_ball() -> RateCheck:
    return check_barrier_decay(n=2, widths=default_widths("spread"), seeds=default_seeds("spread"),
                               spherization="none")


@claim("barrier/control-biases-1d", chapter=CHAPTER, label="thm-barrier-1d", control=True,
       statement="control: 1-D networks with biases (no exact zero) must be rejected")
def _control_biases() -> RateCheck:
    return check_zero_barrier_1d(default_widths("1d"), seeds=default_seeds("1d"), biases=True)


def draw_profile(path_profile: Profile, ax=None, *, t: float | None = None, label: str | None = None):
    """Draw the cost along a path (``path_profile`` from :func:`profile`) with its segment boundaries,
    each segment labelled by its kind, and a marker at path time ``t``; return ``ax``."""
    from .plotting import new_axes

    if not isinstance(path_profile, Profile):
        raise TypeError(f"path_profile must be a Profile, got {type(path_profile).__name__}")
    if ax is None:
        _, ax = new_axes()
    ax.plot(path_profile.t, path_profile.cost, color="C2", label=label)
    for b in path_profile.boundaries[1:-1]:
        ax.axvline(b, color="0.8", linewidth=0.8)
    low, high = float(path_profile.cost.min()), float(path_profile.cost.max())
    pad = 0.05 * (high - low) if high > low else 0.05 * abs(high) + 1e-12
    ax.set_ylim(low - pad, high + 4 * pad)
    for i, kind in enumerate(path_profile.kinds):
        ax.text((i + 0.5) / len(path_profile.kinds), high + 3.5 * pad, kind, rotation=90, fontsize=7, ha="center",
                va="top", color="0.4")
    if t is not None:
        ax.axvline(finite_real("t", t), color="k", linestyle="--")
    ax.set(xlabel="path time $t$", title="cost along the path")
    return ax


def draw_path_state(path: Path, path_profile: Profile, t: float, axes=None):
    """Draw the path at time ``t``: the functions of both ends and of ``γ(t)``, and the cost profile.

    Left: ``f_A``, ``f_B`` and ``f_{γ(t)}`` (``n = 1``: on ``[−1, 1]``; ``n = 2``: at angle ``φ`` on the
    unit circle, which determines a bias-free network since ``f(x) = ‖x‖ f(x/‖x‖)``). Right:
    :func:`draw_profile` with the marker at ``t``. Returns the two axes.
    """
    from .plotting import new_axes

    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    t = finite_real("t", t)
    if not 0 <= t <= 1:
        raise ValueError(f"t must be in [0, 1], got {t!r}")
    n = path.segments[0].W0.shape[1]
    if n > 2:
        raise ValueError(f"draw_path_state draws networks with n <= 2 inputs, got n = {n}")
    if axes is None:
        _, axes = new_axes(2)
    left, right = axes
    device = path.segments[0].W0.device
    if n == 1:
        grid = torch.linspace(-1, 1, 401, dtype=torch.float64, device=device)
        points, xlabel = grid[:, None], "$x$"
    else:
        grid = torch.linspace(0, 2 * math.pi, 721, dtype=torch.float64, device=device)
        points, xlabel = torch.stack([grid.cos(), grid.sin()], 1), r"angle $\varphi$ on the unit circle"
    W, a = path.evaluate([0.0, 1.0, t])
    values = forward(W, a, points).cpu().numpy()
    abscissa = grid.cpu().numpy()
    left.plot(abscissa, values[0], color="C0", linewidth=4, alpha=0.45, label="$f_A$ (wide)")
    left.plot(abscissa, values[1], color="C1", linewidth=1.5, linestyle=":", label="$f_B$ (dotted)")
    left.plot(abscissa, values[2], color="k", linewidth=1, label=rf"$f_{{\gamma({t:.2f})}}$")
    left.set(xlabel=xlabel, title="the networks")
    left.legend(loc="upper right")
    draw_profile(path_profile, right, t=t)
    return left, right


def draw_directions(path: Path, ax=None, *, side: str = "A"):
    """Draw spherization and merging of one network of a path on ℝ² (the first layer, in the plane).

    Each neuron ``w_j`` is a dot (area ∝ ``|a_j|``) with a grey segment to its spherized direction
    ``w_j/‖w_j‖`` on the unit circle and a coloured chord from there to its cell centre ``u_{k(j)}``
    (crosses: the centres of the cover). Returns ``ax``.
    """
    from .plotting import new_axes

    if not isinstance(path, Path) or "canonical" not in path.info:
        raise TypeError(f"path must be a Path from constructive_path, got {type(path).__name__}")
    side = _choice("side", side, ("A", "B"))
    W, a = path.start if side == "A" else path.end
    if W.shape[1] != 2:
        raise ValueError(f"draw_directions draws networks with n = 2 inputs, got n = {W.shape[1]}")
    canonical = path.info["canonical"][0 if side == "A" else 1]
    if ax is None:
        _, ax = new_axes()
    W, a = W.cpu().numpy(), a.cpu().numpy()
    norms = np.linalg.norm(W, axis=1)
    on_sphere = W / np.where(norms > 0, norms, 1.0)[:, None]
    centres = canonical.centres.cpu().numpy()
    target = centres[canonical.assignment.cpu().numpy()]
    angle = np.linspace(0, 2 * math.pi, 361)
    ax.plot(np.cos(angle), np.sin(angle), color="0.75", linewidth=0.8)
    for w, s_, u in zip(W, on_sphere, target):
        ax.plot([w[0], s_[0]], [w[1], s_[1]], color="0.6", linewidth=0.8)
        ax.plot([s_[0], u[0]], [s_[1], u[1]], color="C3", linewidth=1.5)
    size = 300 * np.abs(a) / max(float(np.abs(a).max()), 1e-300)
    ax.scatter(W[:, 0], W[:, 1], s=size, color="C0", zorder=3, label=r"neurons $w_j$ (area $\propto |a_j|$)")
    ax.scatter(centres[:, 0], centres[:, 1], marker="x", color="k", zorder=4, label="cell centres $u_k$")
    ax.plot([], [], color="0.6", label="spherize (exact)")
    ax.plot([], [], color="C3", label="merge (certified)")
    ax.set_aspect("equal")
    ax.set(xlim=(-1.15, 1.15), ylim=(-1.15, 1.15), xlabel="$w_1$", ylabel="$w_2$")
    ax.legend(loc="lower left", fontsize=7, markerscale=0.4, framealpha=0.9)
    return ax
