"""The chapter's executable claims (``check_*``), their tolerances and requirements."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np
import torch

from .. import device as book_device
from ..rates import RateCheck, fit_loglog, rate_check
from ..validate import finite_real, int_list, nonnegative_int, positive_int
from . import costs
from .baselines import straight_line
from .construction import COVERS, constructive_path
from .data import _lift, spread_pairs, teacher_data, tight_pair, train_networks
from .evaluation import JOINT_RTOL, OUTPUT_RTOL, Audit, audit, barrier
from .losses import get_loss
from .model import FEASIBILITY_RTOL, LAMBDA, Network, _choice, _data, _lam

SLOPE_TOL = {2: 0.08, 3: 0.06}  # worst-case mean-certificate slope: its offset from −1/(n−1) plus 4 standard
#   deviations over seed offsets (20 offsets at ci sizes: −1.019 ± 0.015 for n = 2, −0.516 ± 0.010 for n = 3)
#   Measured only for n = 2, 3 at widths 16…512 with 5 pairs per width: other n and smaller sizes are refused.
MEASURED_SIZES = {"smallest width": 16, "largest width": 512, "widths": 4, "span": 32, "seeds": 5}
#   span: largest / smallest width; the tolerance covers a slope fitted over a factor 32 in m, not less


def _check_data(data, n: int, loss: str, seed: int, device):
    if data is None:
        return teacher_data(n, loss=loss, seed=seed, device=device)
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"data must be a pair (x, y) of tensors, got {type(data).__name__}")
    x, y = _data(*data, n=n, loss=loss)
    if not bool((x != 0).any()):
        raise ValueError("data: every sample x_i is 0, so every network computes f(x_i) = 0 and the certificate"
                         " L·mean‖x‖·μ is 0: there is nothing to check; pass data with some x_i ≠ 0")
    return x.to(device), y.to(device)


def _refuse_check(name: str, value, *, n: int, widths: list[int], pairs: int, samples: int, covers=("grid",),
                  train: tuple[int, int] | None = None, cells: int | None = None) -> None:
    """Budget of a check: per width, ``pairs`` constructions and audits per cover (and ``train = (networks,
    steps)`` trainings), summed over ``widths``."""
    work = memory = 0.0
    for m in widths:
        K = cells or (2 if n == 1 else max(1, m // 2))
        for cover in covers:
            build, build_memory = costs.path(m, n, cover, K)
            check, check_memory = costs.sampled(costs.SEGMENTS, 17, m, n, samples)
            work += pairs * (build + check)
            memory = max(memory, build_memory, check_memory)
        if train is not None:
            fit, fit_memory = costs.training(train[1], train[0], m, n, samples)
            work, memory = work + fit, max(memory, fit_memory)
    costs.refuse(name, value, work=work, memory=memory)


REQ_EXACT = "function-exact segments reproduce f within its float64 error bound (function_roundoff) on every pair"
ZERO_BARRIER_ATOL = 1e-12  # n = 1: a built path's barrier() is 0 to this (tests and the chapter; the check
#   itself allows only each audit's cost_roundoff)
_ROUNDOFF = "cost_roundoff"
REQ_MONOTONE = f"cost non-increasing along spherization, ≤ its start along consolidation (+{_ROUNDOFF})"
REQ_CONSTANT = f"cost constant along free moves and transfers (±{_ROUNDOFF}) on every pair"
REQ_BRIDGE = f"bridge cost ≤ the chord between its endpoint costs (+{_ROUNDOFF}) on every pair"
REQ_CERTIFICATE = ("barrier, and barrier above the spherized endpoints, ≤ certificate"
                   f" L·mean‖x‖·max_side Σ|ã_j|‖w̃_j − u_k(j)‖ (+{_ROUNDOFF}), and the certificate's moments at least"
                   " what the merges move, on every pair")
REQ_ORDER = "segments in the proof's order (A's steps, the bridge, B's steps reversed) on every pair"
REQ_FEASIBLE = f"‖w_j(t)‖ ≤ 1 (+{FEASIBILITY_RTOL:g}) on every segment of every pair"
REQ_OUTPUT = f"merge keeps a, spherize keeps a_j‖w_j‖ (change ≤ {OUTPUT_RTOL:g} of their largest size) on every pair"
REQ_JOINTS = (f"every segment starts where the previous one ends, the path at A and ends at B (parameters within"
              f" {JOINT_RTOL:g}, f within its float64 error bound at every joint) on every pair")
REQ_FORM = "every segment has the form its guarantee's argument uses (form_problem) on every pair"
TIGHT_RATIO = 0.95  # every tight case's barrier / certificate is above this, so a 10% understatement fails
TIGHT_ORDERS = ("A→B", "B→A")
TIGHT_DIMENSIONS = (2, 3)
REQ_TIGHT = ("certificate not understated: on every pair it equals L·mean‖x‖·max(μ_A, μ_B) evaluated by the audit,"
             f" and on tight_pair (barrier/certificate > {TIGHT_RATIO}) the audit holds for n = 2 and 3, both"
             " covers, both losses and both orders")


def tight_audits(device=None) -> dict[tuple[int, str, str, str], Audit]:
    """The audit of :func:`tight_pair` for every dimension, cover, loss and order, where the certificate is
    nearly attained.

    Parameters
    ----------
    device : str or torch.device, optional
        Default: the book's device.

    Returns
    -------
    dict
        ``{(n, cover, loss, order): Audit}`` with ``n`` in :data:`TIGHT_DIMENSIONS` and ``order`` in
        :data:`TIGHT_ORDERS` (the path from ``A`` to ``B``, and from ``B`` to ``A``); every check requires
        each to hold with ``merge_barrier > TIGHT_RATIO · certificate`` (``REQ_TIGHT``), so a certificate
        understated by 10% fails.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> all(a.holds for a in barrier.tight_audits().values())
    True

    Notes
    -----
    Both orders, so that a certificate on one side's moment alone misses; ``n = 3``, so that one wrong only
    off the plane misses. Budget: constant work (width-6 pairs, three samples, 16 audits).
    """
    audits = {}
    for n in TIGHT_DIMENSIONS:
        A, B, x, y = tight_pair(device, n=n)
        for order, (first, last) in zip(TIGHT_ORDERS, ((A, B), (B, A))):
            for cover in COVERS:
                for loss in ("huber", "bce"):
                    path = constructive_path(first, last, x, cover=cover)
                    audits[n, cover, loss, order] = audit(path, x, y, A=first, B=last, loss=loss, lam=LAMBDA)
    return audits


def _audit_requirements(audits: Sequence[Audit]) -> dict[str, bool]:
    """Every guarantee that :attr:`Audit.holds` enforces, grouped by the ingredient of the proof it tests: an
    audit that FAILED fails at least one of them (asserted)."""
    segments = [s for a in audits for s in a.segments]
    tight = tight_audits()
    requirements = {
        REQ_JOINTS: all(a.joined for a in audits),
        REQ_FORM: all(not s.form for s in segments),
        REQ_EXACT: all(s.function_change <= 1 for s in segments if s.exact),
        REQ_MONOTONE: all(s.excess <= s.allowed for s in segments if s.kind in ("prune", "spherize", "consolidate")),
        REQ_CONSTANT: all(s.excess <= s.allowed for s in segments if s.kind in ("free", "transfer")),
        REQ_BRIDGE: all(s.excess <= s.allowed for s in segments if s.kind == "bridge"),
        REQ_CERTIFICATE: all(a.within_certificate and a.moments_cover_merges
                             and all(s.holds for s in a.segments if s.kind == "merge") for a in audits),
        REQ_ORDER: all(a.ordered for a in audits),
        REQ_FEASIBLE: all(s.feasible for s in segments),
        REQ_OUTPUT: all(s.keeps_output for s in segments),
        REQ_TIGHT: (all(a.certificate_as_stated for a in audits)
                    and all(t.holds and t.merge_barrier > TIGHT_RATIO * t.certificate for t in tight.values())),
    }
    if any(a.verdict == "FAILED" for a in audits) and all(requirements.values()):
        raise AssertionError("an audit FAILED on a reason no requirement names; the requirements must cover Audit.kept")
    return requirements


def _decided(check: RateCheck, audits: Sequence[Audit]) -> RateCheck:
    """``check``, made INCONCLUSIVE (with the first audit's reason) where it passed but some audit could not
    say PASSED: a loss without a proof, or a barrier not bounded within its certificate."""
    reasons = [a.inconclusive for a in audits if a.verdict == "INCONCLUSIVE"]
    if check.passed and reasons:
        return dataclasses.replace(check, passed=False, inconclusive=f"{len(reasons)} of {len(audits)} audits: {reasons[0]}")
    return check


def _pairs(W: torch.Tensor, a: torch.Tensor) -> list[tuple[Network, Network]]:
    return [((W[i], a[i]), (W[j], a[j])) for i, j in itertools.combinations(range(W.shape[0]), 2)]


def _fitted_series(series: list[tuple[str, list[float]]], widths: list[int]) -> tuple[str, list[float]]:
    """The first named series that is positive at every width (a log-log fit needs it), else a constant
    placeholder 1 (named as such): the checks' verdicts never depend on this fit."""
    for name, values in series:
        if min(values) > 0:
            return name, values
    zero = ", ".join(name for name, _ in series)
    return f"none ({zero} 0 at some width: nothing to fit; a constant 1 is shown)", [1.0] * len(widths)


MAX_SIZES = 64  # at most this many widths or seed offsets in one call (a log-log fit needs a few)


def _widths(widths, name: str = "widths", minimum: int = 4) -> list[int]:
    if isinstance(widths, (list, tuple, range, np.ndarray)) and len(widths) > MAX_SIZES:
        raise ValueError(f"{name} holds {len(widths)} values; at most {MAX_SIZES} sizes per call")
    return int_list(name, widths, minimum)


def _rate_inputs(n, widths, seeds, minimum_seeds: int = 1):
    n = positive_int("n", n)
    if n < 2:
        raise ValueError(f"n must be >= 2 for the rate m^(−1/(n−1)), got {n}; n = 1 is check_zero_barrier_1d")
    widths = _widths(widths)
    if len(set(widths)) < 2:
        raise ValueError(f"widths needs at least two distinct widths to fit a rate, got {widths}")
    seeds = positive_int("seeds", seeds)
    if seeds < minimum_seeds:
        raise ValueError(f"seeds must be >= {minimum_seeds} (pairs of trained networks), got {seeds}")
    return n, widths, seeds


def spread_certificate_slopes(n: int, widths: Sequence[int], *, seeds: int, offsets: Sequence[int],
                              cover: str = "grid") -> list[float]:
    """The fitted slope of the mean certificate against ``m``, one per seed offset, without audits.

    Parameters
    ----------
    n : int
        Input dimension (≥ 2).
    widths : sequence of int
        Widths ``m`` (at least two distinct).
    seeds : int
        Pairs per width (:func:`spread_pairs`).
    offsets : sequence of int
        Seed offsets, one slope each.
    cover : {"grid", "adaptive"}
        The cover of :func:`constructive_path`.

    Returns
    -------
    list of float
        The log-log slope of the mean certificate per offset.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> slopes = barrier.spread_certificate_slopes(2, [16, 32, 64], seeds=2, offsets=[0, 1])
    >>> len(slopes), all(-1.5 < s < -0.5 for s in slopes)
    (2, True)

    Notes
    -----
    The spread of the statistic that :func:`check_barrier_decay` fits, from which ``SLOPE_TOL`` is set.
    Budget: offsets × widths × seeds constructions (``costs.path``) within ``budget.work()``.
    """
    n, widths, seeds = _rate_inputs(n, widths, seeds)
    if isinstance(offsets, (str, bytes)) or not isinstance(offsets, (Sequence, range)) or len(offsets) == 0:
        raise TypeError(f"offsets must be a non-empty sequence of non-negative ints, got {offsets!r:.60}")
    if len(offsets) > MAX_SIZES:
        raise ValueError(f"offsets holds {len(offsets)} values; at most {MAX_SIZES} per call")
    offsets = [nonnegative_int(f"offsets[{i}]", o) for i, o in enumerate(offsets)]
    cover = _choice("cover", cover, COVERS)
    work = len(offsets) * seeds * sum(costs.path(m, n, cover, max(1, m // 2))[0] for m in widths)
    costs.refuse("n, widths, seeds and offsets", (n, widths, seeds, len(offsets)), work=work)
    x = torch.zeros(1, n, dtype=torch.float64)
    x[0, 0] = 1.0  # the certificate's data factor mean‖x‖ = 1 does not change a slope
    slopes = []
    for offset in offsets:
        means = [float(np.mean([constructive_path(A, B, x, cover=cover).certificate(x, 1.0)
                                for A, B in spread_pairs(n, m, seeds=seeds, seed=offset)])) for m in widths]
        slopes.append(fit_loglog(widths, means).slope)
    return slopes


def _measured_sizes(n: int, widths: list[int], seeds: int) -> None:
    """Refuse what ``SLOPE_TOL`` was not measured for: ``n`` other than 2, 3, or smaller sizes."""
    if n not in SLOPE_TOL:
        raise ValueError(f"n = {n}: the slope tolerance is measured for n in {sorted(SLOPE_TOL)} only (for n >= 4"
                         f" the gap 1/(n(n−1)) between the sphere's rate m^(−1/(n−1)) and the ball's m^(−1/n)"
                         " is within any unmeasured tolerance); pass tolerance= from your own spread_certificate_slopes")
    sizes = MEASURED_SIZES
    problems = []
    if len(set(widths)) < sizes["widths"]:
        problems.append(f"{len(set(widths))} distinct widths (at least {sizes['widths']})")
    if max(widths) < sizes["largest width"]:
        problems.append(f"largest width {max(widths)} (at least {sizes['largest width']})")
    if min(widths) < sizes["smallest width"]:
        problems.append(f"smallest width {min(widths)} (at least {sizes['smallest width']})")
    if max(widths) < sizes["span"] * min(widths):
        problems.append(f"span largest/smallest width {max(widths) / min(widths):.3g} (at least {sizes['span']})")
    if seeds < sizes["seeds"]:
        problems.append(f"seeds = {seeds} (at least {sizes['seeds']})")
    if problems:
        raise ValueError("widths: SLOPE_TOL was measured at widths 16…512 (a span of 32) with 5 pairs per width; got "
                         + ", ".join(problems)
                         + ": use those sizes or larger, or pass tolerance= measured with spread_certificate_slopes")


def check_barrier_decay(*, n: int, widths: Sequence[int], seeds: int = 5, loss: str = "huber", data=None,
                        cover: str = "grid", cells: int | None = None, spherization: str = "curve",
                        bridge: str = "output", lam: float = LAMBDA, tolerance: float | None = None,
                        seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-decay`` (n ≥ 2) on worst-case networks: the certificate decays like ``m^{−1/(n−1)}``.

    Parameters
    ----------
    n : int
        Input dimension, 2 or 3 unless ``tolerance`` is given (the tolerance is measured there only).
    widths : sequence of int
        Widths ``m``; at least ``MEASURED_SIZES`` (four from 16 to 512 or more, a span of 32).
    seeds : int
        Pairs of :func:`spread_network` s per width (:func:`spread_pairs`, offset ``seed``).
    loss : str
        A key of :data:`LOSSES`.
    data : (x, y), optional
        Default :func:`teacher_data` (it fixes ``mean‖x‖``).
    cover, cells, spherization, bridge
        Passed to :func:`constructive_path` (the negative controls change them).
    lam : float
        The ℓ1 weight λ.
    tolerance : float, optional
        Default ``SLOPE_TOL[n]``.
    seed : int
        Offset of the spread pairs.

    Returns
    -------
    RateCheck
        Claim: the log-log slope of the *mean* certificate over the pairs against ``m`` is
        ``−1/(n−1) ± tolerance`` (grid cover), ``≤ −1/(n−1) + tolerance`` (adaptive, one-sided).
        Requirements: what :func:`audit` checks on every pair, and :func:`tight_audits`. INCONCLUSIVE
        when an audit is (a loss without a proof, a barrier not bounded within the certificate, or a
        certificate below the costs' round-off).

    Examples
    --------
    >>> check = barrier.check_barrier_decay(n=2, widths=[16, 32, 64, 512], seeds=5)  # doctest: +SKIP
    >>> check.verdict  # doctest: +SKIP
    'PASSED'

    Notes
    -----
    ``SLOPE_TOL`` is the slope's offset plus four standard deviations over 20 seed offsets
    (:func:`spread_certificate_slopes`); its measurement and resolution are in the chapter's "How the
    checks decide" and in the tests. Budget: widths × seeds constructions and audits within
    ``budget.work()``.
    """
    n, widths, seeds = _rate_inputs(n, widths, seeds)
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    cover = _choice("cover", cover, COVERS)
    expected = -1.0 / (n - 1)
    if tolerance is None:
        _measured_sizes(n, widths, seeds)
        tolerance = SLOPE_TOL[n]
    tolerance = finite_real("tolerance", tolerance)
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    device = book_device.device()
    x, y = _check_data(data, n, loss, seed, device)
    cells = None if cells is None else positive_int("cells", cells)
    _refuse_check("n, widths, seeds, cells and data", (n, widths, seeds, cells), n=n, widths=widths, pairs=seeds,
                  samples=x.shape[0], covers=(cover,), cells=cells)
    options = dict(cover=cover, cells=cells, spherization=spherization, bridge=bridge)
    audits, mean, largest, realised = [], [], [], []
    for m in widths:
        found = [audit(constructive_path(A, B, x, **options), x, y, A=A, B=B, loss=loss, lam=lam)
                 for A, B in spread_pairs(n, m, seeds=seeds, seed=seed, device=device)]
        audits += found
        mean.append(float(np.mean([r.certificate for r in found])))
        largest.append(max(r.certificate for r in found))
        realised.append(max(r.barrier for r in found))
    return _decided(rate_check(
        f"barrier decay, n = {n}, worst-case (spread) networks, {loss} loss, {cover} cover"
        + (f", {cells} cells" if cells is not None else "")
        + ("" if spherization == "curve" else f", spherization {spherization}")
        + ("" if bridge == "output" else f", {bridge} bridge"),
        widths,
        mean,
        expected=expected,
        tolerance=tolerance,
        sense="==" if cover == "grid" else "<=",
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
            "largest function change on exact segments, in float64 error bounds": max(r.max_function_change for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    ), audits)


def check_trained_barriers(*, n: int, widths: Sequence[int], seeds: int = 3, loss: str = "huber", data=None,
                           lam: float = LAMBDA, steps: int | None = None, seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-decay`` on trained networks: every pair's barrier is within its certificate.

    Parameters
    ----------
    n : int
        Input dimension.
    widths : sequence of int
        Widths ``m``.
    seeds : int
        Networks trained per width (:func:`train_networks`, initialisation seed ``seed + m``); every pair
        is joined by :func:`constructive_path` with the grid and the adaptive cover.
    loss : str
        A key of :data:`LOSSES`.
    data : (x, y), optional
        Default :func:`teacher_data`.
    lam : float
        The ℓ1 weight λ.
    steps : int, optional
        Training steps (default 300 at ci, 1500 at full scale).
    seed : int
        Offset of the initialisation seeds.

    Returns
    -------
    RateCheck
        Claim: on every pair and both covers ``merge_barrier − certificate ≤`` :func:`cost_roundoff`,
        with every requirement of :func:`audit`. The log-log fit of the largest normalised barrier
        (:attr:`Audit.normalized_barrier`) is an observation in the notes, not gated.

    Examples
    --------
    >>> barrier.check_trained_barriers(n=2, widths=[16, 32], seeds=3).verdict  # doctest: +SKIP
    'PASSED'

    Notes
    -----
    Where the normalised barrier is 0 at some width no slope is observed (note ``"fitted series"``).
    Budget: training and the pairs' constructions and audits within ``budget.work()``.
    """
    n, widths, seeds = _rate_inputs(n, widths, seeds, minimum_seeds=2)
    seed = nonnegative_int("seed", seed)
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    device = book_device.device()
    x, y = _check_data(data, n, loss, seed, device)
    steps = book_device.sizes(ci=300, full=1500) if steps is None else positive_int("steps", steps)
    _refuse_check("n, widths, seeds, steps and data", (n, widths, seeds, steps), n=n, widths=widths,
                  pairs=seeds * (seeds - 1) // 2, samples=x.shape[0], covers=COVERS, train=(seeds, steps))
    audits, normalized, raw, certificates, relative, inside = [], [], [], [], [], []
    every_normalized, every_allowed = [], []
    for m in widths:
        W, a = train_networks(x, y, width=m, seeds=seeds, loss=loss, lam=lam, steps=steps, seed=seed + m)
        inside.append(float((W.norm(dim=-1) < 0.99).to(torch.float64).mean()))
        grid = [audit(constructive_path(A, B, x, cover="grid"), x, y, A=A, B=B, loss=loss, lam=lam)
                for A, B in _pairs(W, a)]
        adaptive = [audit(constructive_path(A, B, x, cover="adaptive"), x, y, A=A, B=B, loss=loss, lam=lam)
                    for A, B in _pairs(W, a)]
        audits += grid + adaptive
        normalized.append(max(r.normalized_barrier for r in grid))
        every_normalized.append([r.normalized_barrier for r in grid])
        every_allowed.append([r.certificate / r.scale if r.scale > 0 else 0.0 for r in grid])
        raw.append(max(max(r.barrier, 0.0) for r in grid))
        certificates.append(max(r.certificate for r in grid))
        relative.append(max(max(r.barrier, 0.0) / r.level if r.level > 0 else 0.0 for r in adaptive))  # cost 0: no barrier
    fitted, series = _fitted_series([("largest normalised barrier (grid)", normalized),
                                     ("largest certificate (grid)", certificates)], widths)
    return _decided(rate_check(
        f"certificate on trained networks, n = {n}, {loss} loss, grid and adaptive covers",
        widths,
        series,
        expected=0.0,
        tolerance=max(r.roundoff for r in audits),
        sense="<=",
        measured=max(r.merge_barrier - r.certificate for r in audits),
        quantity="largest (barrier above the spherized endpoints − certificate) over all pairs",
        requirements=_audit_requirements(audits),
        notes={
            "m": widths,
            "pairs per width": seeds * (seeds - 1) // 2,
            "fitted series": fitted,
            "observed slope of the largest normalised barrier (grid)": (
                fit_loglog(widths, normalized).slope if min(normalized) > 0 else None),
            "theorem's slope (an upper bound)": -1.0 / (n - 1),
            "largest normalised barrier per width (grid)": normalized,
            "normalised barrier of every pair (grid)": every_normalized,
            "normalised certificate of every pair (grid)": every_allowed,
            "largest raw barrier per width (grid)": raw,
            "largest certificate per width (grid)": certificates,
            "largest relative barrier per width (adaptive)": relative,
            "share of neurons with ‖w‖ < 0.99": inside,
            "largest ratio barrier/certificate": max(
                (max(r.merge_barrier, 0.0) / r.certificate for r in audits if r.certificate > 0), default=0.0),
            "largest function change on exact segments, in float64 error bounds": max(r.max_function_change for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    ), audits)


def check_zero_barrier_1d(widths: Sequence[int], *, loss: str = "huber", seeds: int = 4, data=None,
                          biases: bool = False, lam: float = LAMBDA, steps: int | None = None,
                          seed: int = 0) -> RateCheck:
    """Theorem ``thm-barrier-1d``: for ``n = 1`` and ``m ≥ 4`` the constructive path has barrier exactly 0.

    Parameters
    ----------
    widths : sequence of int
        At least two distinct widths ``m ≥ 4``.
    loss : str
        A key of :data:`LOSSES`.
    seeds : int
        Networks trained per width (≥ 2); every pair is joined with the grid cover.
    data : (x, y), optional
        Default :func:`teacher_data` with ``n = 1``.
    biases : bool
        The negative control: networks with biases, i.e. bias-free networks on ``(x, 1)``.
    lam, steps, seed
        As in :func:`check_trained_barriers`.

    Returns
    -------
    RateCheck
        Claim: the largest barrier ``≤`` its audit's :func:`cost_roundoff`, every certificate exactly 0 and
        every requirement of :func:`audit`. The fit, of the naive straight line's largest barrier, is
        for contrast only.

    Examples
    --------
    >>> barrier.check_zero_barrier_1d([4, 8, 16], seeds=3).verdict  # doctest: +SKIP
    'PASSED'

    Notes
    -----
    Budget: training and the pairs' constructions and audits within ``budget.work()``.
    """
    widths = _widths(widths)
    if len(set(widths)) < 2:
        raise ValueError(f"widths needs at least two distinct widths, got {widths}")
    seeds = positive_int("seeds", seeds)
    if seeds < 2:
        raise ValueError(f"seeds must be >= 2 (pairs of trained networks), got {seeds}")
    seed = nonnegative_int("seed", seed)
    if not isinstance(biases, bool):
        raise TypeError(f"biases must be a bool, got {type(biases).__name__}")
    loss_fn = get_loss(loss)
    lam = _lam(lam)
    device = book_device.device()
    x, y = _check_data(data, 1, loss, seed, device)
    steps = book_device.sizes(ci=300, full=1500) if steps is None else positive_int("steps", steps)
    _refuse_check("widths, seeds, steps and data", (widths, seeds, steps), n=2 if biases else 1, widths=widths,
                  pairs=seeds * (seeds - 1) // 2 * 2, samples=x.shape[0], train=(seeds, steps))
    inputs = _lift(x) if biases else x
    audits, largest, naive, certificates = [], [], [], []
    for m in widths:
        W, a = train_networks(inputs, y, width=m, seeds=seeds, loss=loss, lam=lam, steps=steps, seed=seed + m)
        found = [audit(constructive_path(A, B, inputs, cover="grid"), inputs, y, A=A, B=B, loss=loss, lam=lam)
                 for A, B in _pairs(W, a)]
        audits += found
        largest.append(max(r.barrier for r in found))
        certificates.append(max(r.certificate for r in found))
        naive.append(max(barrier(straight_line(A, B), inputs, y, loss=loss, lam=lam, points_per_segment=51)
                         for A, B in _pairs(W, a)))
    requirements = {"certificate exactly 0 on every pair (S⁰ covered with radius 0)": max(certificates) == 0.0}
    requirements.update(_audit_requirements(audits))
    fitted, series = _fitted_series([("naive straight-line barrier (largest)", naive)], widths)
    return _decided(rate_check(
        f"zero barrier in 1-D, {loss} loss" + (", networks with biases" if biases else ""),
        widths,
        series,
        expected=0.0,
        tolerance=max(r.roundoff for r in audits),
        sense="<=",
        measured=max(max(largest), 0.0),
        quantity="largest barrier of the constructive path over all pairs",
        requirements=requirements,
        notes={
            "m": widths,
            "fitted series": fitted,
            "pairs per width": len(audits) // len(widths),
            "largest barrier per width": largest,
            "largest certificate per width": certificates,
            "naive straight-line barrier per width (largest)": naive,
            "largest function change on exact segments, in float64 error bounds": max(r.max_function_change for r in audits),
            "level max(C_A, C_B) (largest)": max(r.level for r in audits),
            "lipschitz": loss_fn.lipschitz,
        },
    ), audits)


def default_widths(kind: str) -> list[int]:
    """The chapter's widths for one kind of check.

    Parameters
    ----------
    kind : {"1d", "spread", "trained"}
        The check: :func:`check_zero_barrier_1d`, :func:`check_barrier_decay` or
        :func:`check_trained_barriers`.

    Returns
    -------
    list of int
        ``"1d"``: 4 … 128; ``"spread"``: 16 … 512 (``BOOK_SCALE=full``: … 2048); ``"trained"``: 16 … 128.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.default_widths("1d")
    [4, 8, 16, 32, 64, 128]

    Notes
    -----
    Budget: constant work.
    """
    kind = _choice("kind", kind, ("1d", "spread", "trained"))
    if kind == "1d":
        return [4, 8, 16, 32, 64, 128]
    if kind == "spread":
        return [2**k for k in range(4, book_device.sizes(ci=10, full=12))]
    return [16, 32, 64, 128]


def default_seeds(kind: str) -> int:
    """The chapter's seeds per width for one kind of check.

    Parameters
    ----------
    kind : {"1d", "spread", "trained"}
        As in :func:`default_widths`.

    Returns
    -------
    int
        At ``ci``: 5 spread pairs, or 3 trained networks (3 pairs); at ``full``: 10 (10 pairs, or 45).

    Examples
    --------
    >>> from nnproofs import barrier
    >>> barrier.default_seeds("spread") in (5, 10)
    True

    Notes
    -----
    At ``full`` scale the trained grid is 4 widths × 45 pairs × 2 losses × 2 dimensions = 720 pairs.
    Budget: constant work.
    """
    kind = _choice("kind", kind, ("1d", "spread", "trained"))
    return book_device.sizes(ci=5 if kind == "spread" else 3, full=10)
