"""The cost along a path (profile, barrier in three conventions, many paths in one batch) and the audit
of every segment's guarantee."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..rates import fold
from ..validate import finite_real, positive_int
from . import costs
from .losses import PROBE_RESOLUTION, get_loss, proof_of, verified_for
from .model import FEASIBILITY_RTOL, UNIT_ROUNDOFF, _data, _lam, _values, _values_at, as_pair
from .paths import EXACT_KINDS, Path, Segment, form_problem

COST_ATOL = 1e-12  # the optimised baselines stop when their barrier is below this (baselines.py)
EXACT_RESOLUTION = 0.1  # an exact segment must resolve f to 10% of its scale: the near misses a check must see
OUTPUT_RTOL = 1e-14  # merge keeps a (bit for bit: a line keeps equal coordinates), spherize keeps a_j‖w_j‖ up
#   to a few ulps of the rescaling
JOINT_RTOL = 1e-15  # parameters where two segments meet, and at the path's ends against A and B: each unit's row
#   w_j and output weight a_j equal up to this (4.5 ulps) times its own size, a size capped at the largest of its
#   tensor in A and B (_gap), and the gaps of all joints together too (the constructive path's joints are exact:
#   0 in every test)
SAMPLING_RTOL = 0.01  # reported, not decided on: doubling the samples raised the sampled peaks by at most this
#   fraction of max(certificate, |barrier|) (the verdict rests on the guarantees' upper bound instead)
SIDE_ORDER = {"A": 0, "bridge": 1, "B": 2}  # the proof's order: A's steps, the bridge, B's steps reversed


def cost_roundoff(loss_level: float, penalty_level: float = 0.0, *, samples: int, width: int,
                  function_error: float = 0.0) -> float:
    """A bound on the float64 error of the difference of two computed costs:
    ``4u[(N + 2) loss_level + (m + 2) penalty_level] + 2 function_error``.

    Parameters
    ----------
    loss_level : float
        The largest mean loss ``(1/N) Σ_i ℓ(f(x_i), y_i)`` of the two costs: its sum over ``N`` terms is
        exact to ``γ_N ≈ N u`` times its size (``u`` = :data:`UNIT_ROUNDOFF`); its magnitude is used (a
        reader's loss may be negative).
    penalty_level : float
        The largest ``λ Σ_j |a_j|`` of the two, a sum over ``m`` units (``>= 0``).
    samples, width : int
        ``N`` and ``m``.
    function_error : float
        ``L max_θ mean_i e_i(θ)`` over the costs' parameter sets: each computed ``f(x_i)`` is within ``e_i``
        (:func:`function_roundoff`), and an ``L``-Lipschitz loss passes that on to the mean.

    Returns
    -------
    float
        Twice the bound ``2u[(N + 2) loss_level + (m + 2) penalty_level] + function_error`` of one computed
        cost (a difference of two).

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.cost_roundoff(1.0, samples=62, width=6) == 256 * barrier.UNIT_ROUNDOFF
    True

    Notes
    -----
    The standard bounds of floating-point summation (Higham, *Accuracy and Stability of Numerical
    Algorithms*, §3.1), which hold in any order of the sums. Budget: constant work.
    """
    levels = [abs(finite_real(name, value)) for name, value in
              (("loss_level", loss_level), ("penalty_level", penalty_level), ("function_error", function_error))]
    for name, value in (("penalty_level", penalty_level), ("function_error", function_error)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")
    samples, width = positive_int("samples", samples), positive_int("width", width)
    return 4 * UNIT_ROUNDOFF * ((samples + 2) * levels[0] + (width + 2) * levels[1]) + 2 * levels[2]


def _roundoff(c: torch.Tensor, a: torch.Tensor, e: torch.Tensor, lipschitz: float, lam: float) -> float:
    """:func:`cost_roundoff` of the costs ``c`` sampled at parameter sets with output weights ``a (..., m)`` and
    function round-off bounds ``e (..., N)`` (:func:`function_roundoff`)."""
    penalty = lam * a.abs().sum(-1)
    return cost_roundoff(float((c - penalty.reshape(c.shape)).abs().max()), float(penalty.max()),
                         samples=e.shape[-1], width=a.shape[-1],
                         function_error=lipschitz * float(e.mean(-1).max()))


@dataclass(frozen=True)
class Profile:
    """The cost sampled along a path: ``t`` (path time) and ``cost`` at each sample, ``kinds`` of its segments."""

    t: np.ndarray
    cost: np.ndarray
    kinds: tuple[str, ...]

    @property
    def boundaries(self) -> np.ndarray:
        """Path times where segments meet, ``i/S``."""
        return np.arange(len(self.kinds) + 1) / len(self.kinds)

    def barriers(self) -> dict[str, float]:
        """The barrier in the three conventions of the literature, from the same samples.

        Returns
        -------
        dict
            ``"max"``: ``max_t C − max(C₀, C₁)`` (the theorem's, Freeman-Bruna's "energy gap"); ``"mean"``:
            ``max_t C − (C₀ + C₁)/2`` (Git Re-Basin); ``"interpolated"``: ``max_t [C(t) − ((1−t)C₀ + tC₁)]``
            (Entezari et al.), ``t`` the path time.

        Examples
        --------
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> sampled = barrier.profile(barrier.constructive_path(A, B, x), x, y, loss="huber", lam=1e-3)
        >>> sorted(sampled.barriers())
        ['interpolated', 'max', 'mean']

        Notes
        -----
        Sampled values: lower bounds of the suprema. Budget: linear in the samples.
        """
        c0, c1 = float(self.cost[0]), float(self.cost[-1])
        top = float(self.cost.max())
        return {"max": top - max(c0, c1), "mean": top - 0.5 * (c0 + c1),
                "interpolated": float((self.cost - ((1 - self.t) * c0 + self.t * c1)).max())}


def _segment_times(points_per_segment: int, device) -> torch.Tensor:
    if not 2 <= positive_int("points_per_segment", points_per_segment) <= costs.MAX_POINTS_PER_SEGMENT:
        raise ValueError(f"points_per_segment must be in [2, {costs.MAX_POINTS_PER_SEGMENT}] (both ends of a segment;"
                         f" the sampled cost has long converged), got {points_per_segment}")
    return torch.linspace(0, 1, points_per_segment, dtype=torch.float64, device=device)


def _refuse_sampling(paths: Sequence[Path], x: torch.Tensor, points_per_segment: int) -> None:
    """Budget of evaluating the cost along ``paths``: segments × points × m × N × (n + 1) multiply-adds."""
    m, n = paths[0].segments[0].W0.shape
    segments = sum(len(p.segments) for p in paths)
    work, memory = costs.sampled(segments, points_per_segment, m, n, x.shape[0])
    costs.refuse("path, x and points_per_segment", (segments, tuple(x.shape), points_per_segment), work=work,
                 memory=memory)


def _check_fields(path: Path) -> None:
    """Refuse segment fields that are not plain float64 tensors on one device (a tensor subclass can change
    what the evaluation computes; another dtype would round the path differently), or not of the first
    segment's shapes: ``W (m, n)``, ``a`` and ``radii (m,)``, ``control`` a pair of the same; a ``rescale``
    curve needs ``radii``, a ``bezier`` one ``control``."""
    first = path.segments[0].W0
    if not isinstance(first, torch.Tensor):
        raise TypeError(f"path.segments[0].W0 must be a plain float64 torch.Tensor, got {type(first).__name__}")
    if first.ndim != 2:
        raise ValueError(f"path.segments[0].W0 must be a tensor (m, n), got shape {tuple(first.shape)}")
    device, m_n = first.device, tuple(first.shape)
    shapes = {"W0": m_n, "W1": m_n, "a0": m_n[:1], "a1": m_n[:1], "radii": m_n[:1]}
    for i, segment in enumerate(path.segments):
        for name in ("W0", "a0", "W1", "a1", "radii"):
            value = getattr(segment, name)
            if value is None and name == "radii":
                continue
            if type(value) is not torch.Tensor or value.dtype != torch.float64 or value.device != device:
                raise TypeError(f"path.segments[{i}].{name} must be a plain float64 torch.Tensor on {device}, got"
                                f" {type(value).__name__}" + (f" {value.dtype} on {value.device}"
                                                              if isinstance(value, torch.Tensor) else ""))
            if tuple(value.shape) != shapes[name]:
                raise ValueError(f"path.segments[{i}].{name} must have shape {shapes[name]} (the first segment's"
                                 f" m, n), got {tuple(value.shape)}")
        if segment.control is not None and (len(segment.control) != 2 or any(
                type(v) is not torch.Tensor or v.dtype != torch.float64 or tuple(v.shape) != shape
                for v, shape in zip(segment.control, (m_n, m_n[:1])))):
            raise TypeError(f"path.segments[{i}].control must be a pair of plain float64 torch.Tensors of shapes"
                            f" {m_n} and {m_n[:1]}")
        for curve, name in (("rescale", "radii"), ("bezier", "control")):
            if segment.curve == curve and getattr(segment, name) is None:
                raise ValueError(f"path.segments[{i}] is a {curve!r} curve without {name}")


def _sampled(path: Path, x, y, loss: str, lam: float, points_per_segment: int, refine: bool = False):
    """Parameters, function and cost at ``points_per_segment`` times per segment (``2p − 1`` nested ones when
    ``refine``: the coarse samples are every other one, and the function's round-off bounds ``(S, 2p − 1, N)``
    (:func:`function_roundoff`) come last)."""
    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    _check_fields(path)
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    x, y = _data(x, y, n=path.segments[0].W0.shape[1], loss=loss)
    device = path.segments[0].W0.device
    _segment_times(points_per_segment, device)
    points_per_segment = 2 * points_per_segment - 1 if refine else points_per_segment
    _refuse_sampling([path], x, points_per_segment)
    x, y = x.to(device), y.to(device)
    local = torch.linspace(0, 1, points_per_segment, dtype=torch.float64, device=device)
    params = [s.evaluate(local) for s in path.segments]
    # a segment whose sampled W are all equal (a line with W0 = W1: Segment.forward_evaluate keeps them bit for
    # bit) has one hidden layer: evaluated once, for all its a(t) at once
    fixed = [bool((q[0] == q[0][:1]).all()) for q in params]
    values = [_values_at(q[0][0], q[1], x, y, loss_fn, lam, bound=refine) if k else None
              for q, k in zip(params, fixed)]
    moving = [q for q, k in zip(params, fixed) if not k]
    if moving:
        batch = _values(torch.cat([q[0] for q in moving]), torch.cat([q[1] for q in moving]), x, y, loss_fn, lam,
                        bound=refine)
        split = iter(zip(*(v.split(points_per_segment) for v in batch)))
        values = [v if k else next(split) for v, k in zip(values, fixed)]
    f, c, *bounds = (torch.stack(v) for v in zip(*values))
    return (local, f, c, x, torch.stack([q[0] for q in params]), torch.stack([q[1] for q in params]), *bounds)


def profile(path: Path, x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> Profile:
    """The cost ``C`` at ``points_per_segment`` equally spaced times of every segment of ``path``.

    Parameters
    ----------
    path : Path
        Any path (constructive or a baseline).
    x, y : tensors (N, n) and (N,)
        The data.
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ.
    points_per_segment : int
        Samples per segment, both ends included.

    Returns
    -------
    Profile
        Path times ``t``, costs and the segments' kinds; :meth:`Profile.barriers` gives the barrier in
        three conventions.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> path = barrier.constructive_path(A, B, x)
    >>> len(barrier.profile(path, x, y, loss="huber", lam=1e-3, points_per_segment=3).t) == 3 * len(path.kinds)
    True

    Notes
    -----
    A sampled maximum is a lower bound of the supremum; :func:`audit` bounds it from above.
    Budget: segments × points × m × N × (n + 1) multiply-adds within ``budget.work()``.
    """
    local, _, c, *_ = _sampled(path, x, y, loss, lam, points_per_segment)
    count = len(path.segments)
    t = ((torch.arange(count, device=local.device)[:, None] + local[None, :]) / count).reshape(-1)
    return Profile(t.cpu().numpy(), c.reshape(-1).cpu().numpy(), tuple(path.kinds))


def barrier(path: Path, x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> float:
    """The barrier ``B(γ) = max_t C(γ(t)) − max(C(γ(0)), C(γ(1)))`` at the sampled times.

    Parameters
    ----------
    path, x, y, loss, lam, points_per_segment
        As in :func:`profile`.

    Returns
    -------
    float
        The sampled barrier, a lower bound of the supremum.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> path = barrier.constructive_path(A, B, x)
    >>> 0 < barrier.barrier(path, x, y, loss="huber", lam=1e-3) <= path.certificate(x, 0.5)
    True

    Notes
    -----
    :func:`audit` bounds the supremum on every segment from its guarantee. Budget: as :func:`profile`.
    """
    return profile(path, x, y, loss=loss, lam=lam, points_per_segment=points_per_segment).barriers()["max"]


def barriers(paths: Sequence[Path], x, y, *, loss: str, lam: float, points_per_segment: int = 17) -> list[float]:
    """:func:`barrier` of many paths of the same shape, from one batched evaluation of the cost.

    Parameters
    ----------
    paths : sequence of Path
        Paths whose networks all have the same shape.
    x, y, loss, lam, points_per_segment
        As in :func:`barrier`.

    Returns
    -------
    list of float
        Equal to ``[barrier(p, ...) for p in paths]`` to round-off.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> paths = [barrier.straight_line(A, B), barrier.constructive_path(A, B, x)]
    >>> len(barrier.barriers(paths, x, y, loss="bce", lam=1e-3))
    2

    Notes
    -----
    The samples of every path form one batch of parameter sets, so on a GPU all pairs are evaluated at once.
    Budget: as :func:`profile`, summed over the paths.
    """
    if isinstance(paths, (Path, str, bytes)) or not isinstance(paths, Sequence) or len(paths) == 0:
        raise TypeError(f"paths must be a non-empty sequence of Path objects, got {type(paths).__name__}")
    for i, path in enumerate(paths):
        if not isinstance(path, Path):
            raise TypeError(f"paths[{i}] must be a Path, got {type(path).__name__}")
    shapes = {tuple(p.segments[0].W0.shape) for p in paths}
    if len(shapes) != 1:
        raise ValueError(f"every path must have networks of the same shape, got {sorted(shapes)}")
    loss_fn, lam = get_loss(loss), _lam(lam)
    device = paths[0].segments[0].W0.device
    x, y = _data(x, y, n=paths[0].segments[0].W0.shape[1], loss=loss)
    _refuse_sampling(paths, x, positive_int("points_per_segment", points_per_segment))
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

    ``function_change``: ``max_{t,i} |f_t(x_i) − f_0(x_i)| / (e_i(θ_0) + max_t e_i(θ_t))``, each change against
    the float64 error bound of the two computed values at that data point (:func:`function_roundoff`, the
    maximum over the segment's samples, both ends included); exact kinds must keep it ``≤ 1``;
    ``excess``: how far the cost went above its promised bound, which is ``allowed`` (round-off
    :func:`cost_roundoff`, plus the merge certificate for merge segments), in the segment's forward
    direction; ``largest_norm``: ``max_{t,j} ‖w_j(t)‖`` (feasibility, ``≤ 1 + FEASIBILITY_RTOL``);
    ``output_change``: on merge segments ``max_{t,j} |a_j(t) − a_j(0)|``, on spherize segments
    ``max_{t,j} |a_j(t)‖w_j(t)‖ − a_j(0)‖w_j(0)‖|``, relative to the largest of its values at ``t = 0`` (the
    certificate's argument holds ``a`` fixed while the directions move; ``≤ OUTPUT_RTOL``; against at least
    ``2⁻¹⁰²²``, where float64's rounding turns absolute), 0 elsewhere.
    ``joint``: the largest parameter gap between this segment's start and the previous segment's end (for
    the first segment, the path's start and ``A``; the last adds its end against ``B``), each row ``w_j`` and
    output weight ``a_j`` relative to its own size, capped at its tensor's largest in A and B (:func:`_gap`),
    ``≤ JOINT_RTOL``;
    ``function_jump``: ``max_i |f(x_i) − f'(x_i)| / (e_i(θ) + e_i(θ'))`` at the same joints, the function on
    both sides against its float64 error bounds there (``≤ 1``); ``form``: :func:`form_problem` (``""`` when
    the segment has its form).
    """

    kind: str
    side: str
    function_change: float
    excess: float
    allowed: float
    largest_norm: float = 0.0
    output_change: float = 0.0
    joint: float = 0.0
    function_jump: float = 0.0
    form: str = ""

    @property
    def feasible(self) -> bool:
        return self.largest_norm <= 1 + FEASIBILITY_RTOL

    @property
    def keeps_output(self) -> bool:
        return self.output_change <= OUTPUT_RTOL

    @property
    def exact(self) -> bool:
        return self.kind in EXACT_KINDS

    @property
    def joined(self) -> bool:
        """Starts where the previous segment ends (or at ``A``), and the function agrees there."""
        return self.joint <= JOINT_RTOL and self.function_jump <= 1

    @property
    def holds(self) -> bool:
        return ((not self.exact or self.function_change <= 1) and self.excess <= self.allowed
                and self.feasible and self.keeps_output and self.joined and not self.form)


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
    ``moved``: per side, ``Σ_j |a_j|‖w_j(1) − w_j(0)‖`` summed over that side's merge segments, what the
    merges actually move; the declared moments (hence the certificate) must be at least that.
    ``outside``: how far the path's predictions or the data's targets leave the range on which the loss
    was verified (``Loss.verified``; 0 inside). ``ordered``: the segments run in the proof's order (A's
    steps forward, the bridge, B's steps reversed: ``SIDE_ORDER``), without which the merge barrier does not
    bound the barrier. ``coarse_peak``, ``coarse_inner_peak``: the peaks from every other sample (the
    ``points_per_segment`` asked for; the audit samples ``2p − 1``), for the convergence report.
    ``bound_peak``, ``bound_inner_peak``: upper bounds of the true suprema, segment by segment from its
    guarantee at its exact endpoint costs (a merge: its start + ``L·mean‖x‖·Σ_j|a_j|‖Δw_j‖``), sound when
    the loss is proved convex and ``L``-Lipschitz (``loss_proved``, ``Loss.proved``) and every segment has
    its form. ``loss``: the loss's name. ``roundoff``: :func:`cost_roundoff` for this path and data, the
    only allowance on a cost comparison. ``exact_resolution``: the largest error bound of ``f`` over the
    function-exact segments (``e_i(θ_0) + max_t e_i(θ_t)``, :func:`function_roundoff`) over ``f``'s largest
    magnitude at ``A`` and ``B`` on the data (at least ``2^-1022``): above ``EXACT_RESOLUTION``, float64 cannot tell whether those
    segments keep ``f`` to within the 10% that a near miss moves it (the audit is then INCONCLUSIVE). ``stated``: the theorem's certificate ``L·mean‖x‖·max(μ_A, μ_B)``
    evaluated by the audit itself from the data and the declared moments, which ``certificate``
    (:meth:`Path.certificate`) must equal: a formula that agrees with it only on some widths, dimensions,
    samples or moments is caught on every audited path, not only where a tight case looks.
    """

    segments: tuple[SegmentAudit, ...]
    peak: float
    level: float
    inner_peak: float
    spherized_level: float
    certificate: float
    scale: float
    moved: tuple[float, float] = (0.0, 0.0)
    moments: tuple[float, float] = (0.0, 0.0)
    outside: float = 0.0
    ordered: bool = True
    coarse_peak: float = float("-inf")
    coarse_inner_peak: float = float("-inf")
    bound_peak: float = float("inf")
    bound_inner_peak: float = float("inf")
    loss: str = ""
    loss_proved: str = ""
    roundoff: float = 0.0
    stated: float = float("nan")
    exact_resolution: float = 0.0

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
    def joined(self) -> bool:
        """Continuous from ``A`` to ``B``: every joint and both ends within ``JOINT_RTOL``, and so is their sum (gaps
        within round-off one by one must not add up to a path that ends elsewhere), and ``f`` at every joint within
        its round-off bounds."""
        return all(s.joined for s in self.segments) and sum(s.joint for s in self.segments) <= JOINT_RTOL

    @property
    def moments_cover_merges(self) -> bool:
        """The declared merge moments are at least what the merge segments move (to round-off)."""
        return all(moved <= declared * (1 + 1e-12) + 1e-300 for moved, declared in zip(self.moved, self.moments))

    @property
    def certificate_as_stated(self) -> bool:
        """The certificate is the theorem's ``L·mean‖x‖·max(μ_A, μ_B)`` (:attr:`stated`), to round-off."""
        return abs(self.certificate - self.stated) <= 1e-12 * abs(self.stated)

    @property
    def within_loss_range(self) -> bool:
        """Every prediction and target lies where the loss was probed, or the loss is proved everywhere."""
        return self.outside == 0.0 or bool(self.loss_proved)

    @property
    def sampling_rise(self) -> float:
        """How much doubling the samples raised the sampled peaks (whole path and between the spherized
        networks)."""
        return max(self.peak - self.coarse_peak, self.inner_peak - self.coarse_inner_peak)

    @property
    def converged(self) -> bool:
        """Doubling the samples raised the sampled peaks by at most ``SAMPLING_RTOL · max(certificate,
        |barrier|)`` plus round-off (reported; the verdict rests on :attr:`bounded` instead)."""
        reference = max(self.certificate, abs(self.barrier))
        return self.sampling_rise <= SAMPLING_RTOL * reference + self.roundoff

    @property
    def within_certificate(self) -> bool:
        """``barrier ≤ certificate`` and ``merge_barrier ≤ certificate`` at the samples (the theorem bounds the
        whole path; the samples are a lower bound, so a sample above the certificate is a failure)."""
        bound = self.certificate + self.roundoff
        return self.barrier <= bound and self.merge_barrier <= bound

    @property
    def bounded(self) -> bool:
        """The guarantees' upper bounds of the suprema are within the certificate: ``bound_peak − level`` and
        ``bound_inner_peak − spherized_level`` ``≤ certificate`` plus round-off. Decided without sampling."""
        bound = self.certificate + self.roundoff
        return (self.bound_peak - self.level <= bound
                and self.bound_inner_peak - self.spherized_level <= bound)

    @property
    def kept(self) -> bool:
        """No sample breaks a guarantee: every segment holds, in order, the moments cover the merges, the
        certificate is the theorem's and the sampled barriers are within it. (A probed loss beyond the probe's
        reach is undecided, not broken: :attr:`inconclusive`.)"""
        return (not self.failures and self.joined and self.ordered and self.moments_cover_merges
                and self.within_certificate and self.certificate_as_stated)

    @property
    def inconclusive(self) -> str:
        """Why the audit cannot say PASSED though no sample breaks a guarantee (``""`` when it can)."""
        if not self.within_loss_range:
            return (f"predictions or targets reach {self.outside:.4g} beyond where loss {self.loss!r} was probed"
                    f" ({PROBE_RESOLUTION}), and it has no proof: the probe cannot decide there")
        if not self.loss_proved:
            return (f"loss {self.loss!r} has no proof the library carries (proof_of: only its own losses), only"
                    f" its probe, {PROBE_RESOLUTION}; the certificate rests on both")
        if not self.bounded:
            return (f"the guarantees bound the barrier only by {self.bound_peak - self.level:.4g}"
                    f" (above the spherized networks {self.bound_inner_peak - self.spherized_level:.4g}),"
                    f" above the certificate {self.certificate:.4g}; the samples reach {self.barrier:.4g}")
        if self.exact_resolution > EXACT_RESOLUTION:
            return (f"float64 cannot resolve whether the exact segments keep f: f's error bound on them reaches"
                    f" {self.exact_resolution:.3g} of f's largest value at A and B, above {EXACT_RESOLUTION:g} (huge"
                    f" output weights on units at their activation boundary, or a detour through cancelling ones)")
        if self.roundoff > self.certificate > 0:
            return (f"float64 cannot resolve the certificate {self.certificate:.4g}: the costs' round-off bound is"
                    f" {self.roundoff:.4g} (the cost level is too high for it: scale y, lam or the networks down)")
        return ""

    @property
    def verdict(self) -> str:
        """``FAILED`` when a sample breaks a guarantee (:attr:`kept`), ``INCONCLUSIVE`` when none does but the
        barrier is not proved within the certificate (:attr:`inconclusive`), else ``PASSED``."""
        return "FAILED" if not self.kept else "INCONCLUSIVE" if self.inconclusive else "PASSED"

    @property
    def holds(self) -> bool:
        """``verdict == "PASSED"``: every guarantee kept at the samples and the barrier proved within the
        certificate from the guarantees' bounds, with a proved loss."""
        return self.verdict == "PASSED"

    def report(self) -> str:
        """The audit in words: the verdict with its reason, the barrier's bounds, the loss's standing, the failures.

        Returns
        -------
        str
            The barrier between its sampled lower bound and the guarantees' upper bound beside the certificate,
            the same above the spherized networks, whether the loss is proved or only probed, and a line per
            failed requirement or segment.

        Examples
        --------
        >>> from nnproofs import barrier
        >>> A, B, x, y = barrier.tight_pair()
        >>> report = barrier.audit(barrier.constructive_path(A, B, x), x, y, A=A, B=B, loss="huber", lam=1e-3)
        >>> report.report().splitlines()[0]
        'audit: PASSED'

        Notes
        -----
        Lines are folded to the book's width (:func:`nnproofs.rates.fold`). Budget: linear in the segments.
        """
        lines = [f"audit: {self.verdict}" + (f" ({self.inconclusive})" if self.inconclusive else ""),
                 f"  barrier: sampled {self.barrier:.4g} (a lower bound; doubling the samples raised the peak"
                 f" by {self.sampling_rise:.2g}), guarantees' bound {self.bound_peak - self.level:.4g},"
                 f" certificate {self.certificate:.4g}",
                 f"  above the spherized networks: sampled {self.merge_barrier:.4g}, guarantees' bound"
                 f" {self.bound_inner_peak - self.spherized_level:.4g}",
                 f"  loss {self.loss!r}: " + (f"proved ({self.loss_proved})" if self.loss_proved
                                              else f"probed only ({PROBE_RESOLUTION})")]
        checks = [(self.joined, f"continuous from A to B (the joints' gaps sum to"
                                f" {sum(s.joint for s in self.segments):.3g}, at most {JOINT_RTOL:g})"),
                  (self.ordered, "segments in the proof's order"),
                  (self.moments_cover_merges, "moments at least what the merges move"),
                  (self.certificate_as_stated, f"certificate is L·mean‖x‖·max(μ_A, μ_B) = {self.stated:.4g}")]
        lines += [f"  [X ] {text}" for ok, text in checks if not ok]
        lines += [f"  [X ] segment {s.kind} ({s.side})" + (f": {s.form}" if s.form else "") for s in self.failures]
        return fold("\n".join(lines))

    @property
    def max_function_change(self) -> float:
        return max((s.function_change for s in self.segments if s.exact), default=0.0)


def audit(path: Path, x, y, *, A, B, loss: str, lam: float, points_per_segment: int = 17) -> Audit:
    """Check every segment of a constructive path from ``A`` to ``B`` against its guarantee on ``(x, y)``.

    Parameters
    ----------
    path : Path
        From :func:`constructive_path` (it carries the certificate's moments).
    x : tensor (N, n)
        Inputs.
    y : tensor (N,)
        Targets.
    A, B : Network
        The networks the path must join (not a permuted or canonical copy).
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ.
    points_per_segment : int
        ``p``: the audit samples ``2p − 1`` times per segment.

    Returns
    -------
    Audit
        Per segment (:class:`SegmentAudit`): joint, form (:func:`form_problem`), function change on exact
        kinds, cost above its guarantee (``GUARANTEES``), ``‖w_j(t)‖ ≤ 1``, ``a`` (merge) and
        ``a_j‖w_j‖`` (spherize) kept. For the path: sampled peaks and levels, the guarantees' upper
        bounds of the suprema, the certificate (:meth:`Path.certificate`), the proof's order, the loss's
        verified range. ``Audit.verdict`` is FAILED, INCONCLUSIVE or PASSED; ``Audit.report()`` says why.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> report = barrier.audit(barrier.constructive_path(A, B, x), x, y, A=A, B=B, loss="huber", lam=1e-3)
    >>> report.verdict
    'PASSED'

    Notes
    -----
    Tolerances: round-off only (``JOINT_RTOL``, :func:`function_roundoff`, :func:`cost_roundoff`,
    ``OUTPUT_RTOL``); the chapter's "How the checks decide" gives the reasons. Budget: as :func:`profile`.
    """
    if type(path) is not Path or any(type(s) is not Segment for s in path.segments):
        # exact types: the bounds read a segment's fields, so its samples must come from them too
        raise TypeError(f"path must be a Path of Segments (exact types: a subclass could sample another curve than"
                        f" the one its fields describe), got {type(path).__name__} of"
                        f" {sorted({type(s).__name__ for s in getattr(path, 'segments', ())})}")
    _check_fields(path)
    if path.moments is None:
        raise ValueError("path: audit needs a constructive path (it checks the construction's guarantees)")
    (WA, aA), (WB, aB) = as_pair(A, B)
    if WA.shape != path.segments[0].W0.shape:
        raise ValueError(f"A and B must have the path's shape {tuple(path.segments[0].W0.shape)}, got {tuple(WA.shape)}")
    local, f, c, x, Ws, As, e = _sampled(path, x, y, loss, lam, points_per_segment, refine=True)
    loss_fn = get_loss(loss)
    lipschitz = loss_fn.lipschitz
    mean_norm = float(x.norm(dim=1).mean())
    roundoff = _roundoff(c, As, e, lipschitz, lam)
    _, y = _data(x, y, loss=loss)
    WA, aA, WB, aB = (t.to(x.device) for t in (WA, aA, WB, aB))
    caps = (max(float(W.norm(dim=1).max()) for W in (WA, WB)), max(float(a.abs().max()) for a in (aA, aB)))
    ends = [_values(W[None], a[None], x, y, loss_fn, lam, bound=True) for W, a in ((WA, aA), (WB, aB))]
    (f_A, _, e_A), (f_B, _, e_B) = ([v[0] for v in end] for end in ends)
    moved = [0.0, 0.0]
    f_scale, exact_bound = float(torch.maximum(f_A.abs().max(), f_B.abs().max())), 0.0
    results, bounds = [], []
    for i, segment in enumerate(path.segments):
        before = (WA, aA, f_A, e_A) if i == 0 else (Ws[i - 1, -1], As[i - 1, -1], f[i - 1, -1], e[i - 1, -1])
        # f on both sides of a joint, each computed value within its own round-off bound e_i
        joint = _gap(Ws[i, 0], As[i, 0], before[0], before[1], caps)
        jump = _relative(f[i, 0] - before[2], e[i, 0] + before[3])
        if i == len(path.segments) - 1:
            joint = max(joint, _gap(Ws[i, -1], As[i, -1], WB, aB, caps))
            jump = max(jump, _relative(f[i, -1] - f_B, e[i, -1] + e_B))
        step = float((segment.a0.abs() * (segment.W1 - segment.W0).norm(dim=1)).sum())
        if segment.kind == "merge":
            moved[0 if segment.side == "A" else 1] += step
        norms = Ws[i].norm(dim=-1)
        output_change = 0.0
        if segment.kind in ("merge", "spherize"):
            kept = As[i] if segment.kind == "merge" else As[i] * norms
            # against the largest value, at least the smallest normal number: below it float64 rounds to an absolute
            # error of η/2, so OUTPUT_RTOL·2^-1022 allows about 45 η
            output_change = float((kept - kept[0]).abs().max()) / max(float(kept[0].abs().max()), 2.0**-1022)
        fi, ci, ei = (f[i].flip(0), c[i].flip(0), e[i].flip(0)) if segment.reverse else (f[i], c[i], e[i])
        change = _relative(fi - fi[0], ei[0] + ei.amax(0))  # forward direction, against f's round-off bound
        if segment.kind in EXACT_KINDS:
            exact_bound = max(exact_bound, float((ei[0] + ei.amax(0)).max()))
        if segment.kind in ("prune", "spherize"):
            excess = float((ci[1:] - ci[:-1]).max())
        elif segment.kind in ("consolidate", "merge"):
            excess = float((ci - ci[0]).max())
        elif segment.kind in ("free", "transfer"):
            excess = float((ci - ci[0]).abs().max())
        else:  # bridge: f_t is affine in t, so C is convex in t and below the chord between its endpoints
            excess = float((ci - ((1 - local) * ci[0] + local * ci[-1])).max())
        allowed = roundoff
        if segment.kind == "merge":
            allowed += lipschitz * mean_norm * path.moments[0 if segment.side == "A" else 1]
        if segment.kind == "spherize" and segment.radii is not None:  # rows with 1 < ‖w_j‖ <= 1 + FEASIBILITY_RTOL
            #   are feasible, and their spherization raises λ‖a‖₁ by λ Σ_j |a_j| (‖w_j‖ − 1)
            allowed += lam * float((segment.a0.abs() * (segment.radii - 1).clamp(min=0)).sum())
        bounds.append(_bound(segment.kind, float(ci[0]), float(ci[-1]), lipschitz * mean_norm * step))
        results.append(SegmentAudit(segment.kind, segment.side, change, excess, allowed, float(norms.max()),
                                    output_change, joint, jump, form_problem(segment)))
    flat = c.reshape(-1)
    level = float(torch.maximum(flat[0], flat[-1]))
    ends = [i for i, s in enumerate(path.segments) if s.kind in ("prune", "spherize")]
    first = max([i + 1 for i in ends if path.segments[i].side == "A"], default=0)  # after A's spherization
    last = min([i for i in ends if path.segments[i].side == "B"], default=len(path.segments))  # before B's
    inner = c[first:last]  # the part of the path between the spherized networks
    spherized_level = float(torch.maximum(c[first, 0] if first < len(c) else flat[-1],
                                          c[last - 1, -1] if last > 0 else flat[0]))
    inner_peak = float(inner.max()) if inner.numel() else spherized_level
    masses = [float((a * W.norm(dim=1)).abs().sum()) for W, a in ((WA, aA), (WB, aB))]
    scale = lipschitz * mean_norm * max(masses)
    if not proof_of(loss_fn):  # a proved loss holds for every target: probing it again would only cost time
        loss_fn = verified_for(loss_fn, y, f)  # also at the data's own targets, where the path's predictions go
    outside = loss_fn.outside(f.reshape(-1), y)
    ranks = [SIDE_ORDER.get(s.side, -1) for s in path.segments]
    ordered = (min(ranks) >= 0 and ranks == sorted(ranks)
               and all(s.reverse == (s.side == "B") for s in path.segments if s.side != "bridge"))
    coarse_inner = c[first:last, ::2]
    return Audit(tuple(results), float(flat.max()), level, inner_peak, spherized_level, path.certificate(x, lipschitz),
                 scale, tuple(moved), tuple(path.moments), outside, ordered, float(c[:, ::2].max()),
                 float(coarse_inner.max()) if coarse_inner.numel() else spherized_level,
                 max(bounds), max(bounds[first:last], default=spherized_level), loss, proof_of(loss_fn), roundoff,
                 lipschitz * mean_norm * max(path.moments),
                 exact_bound / max(f_scale, 2.0**-1022))  # f ≡ 0 at A and B: against the smallest normal number


def _gap(W: torch.Tensor, a: torch.Tensor, W_other: torch.Tensor, a_other: torch.Tensor,
         caps: tuple[float, float]) -> float:
    """``max_j`` of ``‖w_j − w'_j‖ / min(max(‖w_j‖, ‖w'_j‖), caps[0])`` and ``|a_j − a'_j| / min(max(|a_j|,
    |a'_j|), caps[1])``: each unit's row and output weight against its own size (a large parameter elsewhere,
    or a choice of units, must not hide a gap), but never a size beyond its tensor's largest in ``A`` and ``B``
    (a detour through huge weights must not hide one either); two zeros have gap 0."""
    rows = [((W - W_other).norm(dim=1), torch.maximum(W.norm(dim=1), W_other.norm(dim=1)), caps[0]),
            ((a - a_other).abs(), torch.maximum(a.abs(), a_other.abs()), caps[1])]
    return max(_relative(gap, size.clamp_max(cap)) for gap, size, cap in rows)


def _relative(difference: torch.Tensor, scale) -> float:
    """``max |difference| / scale`` elementwise (``scale`` a tensor or a float), a zero difference counting 0
    at any scale (a function or parameter that is 0 on both sides has not moved)."""
    difference = difference.abs()
    return float(torch.where(difference > 0, difference / scale, 0.0).max())


def _bound(kind: str, start: float, end: float, lipschitz_step: float) -> float:
    """An upper bound of the cost along a segment of ``kind`` with its form (:func:`form_problem`), from its
    endpoint costs in the forward direction. Every kind but the merge keeps ``W`` fixed (``f`` affine in
    ``t``, the cost convex), keeps ``f`` and moves ``‖a‖₁`` linearly (spherize) or keeps the cost (free):
    the larger end bounds it. A merge (``a`` fixed, ``|Δf(x)| ≤ Σ_j|a_j|‖Δw_j‖‖x‖``): its start plus
    ``L·mean‖x‖·Σ_j|a_j|‖Δw_j‖``. A kind without a guarantee has no bound (``inf``)."""
    if kind == "merge":
        return start + lipschitz_step
    return max(start, end) if kind in EXACT_KINDS or kind == "bridge" else float("inf")
