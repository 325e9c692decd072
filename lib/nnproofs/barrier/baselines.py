"""Path finders without a guarantee (straight line, weight matching, Bezier curves) and the comparison
of every method on the same pairs."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import torch
from scipy.optimize import linear_sum_assignment

from ..validate import finite_real, positive_int
from . import costs
from .construction import constructive_path, default_cells
from .evaluation import COST_ATOL, Profile, _roundoff, profile
from .losses import get_loss
from .model import LAMBDA, MAX_LR, Network, as_network, as_pair, _data, _forward, _generator, _lam, _values, function_roundoff
from .paths import Path, Segment


def _matching_cost(m: int) -> tuple[float, float]:
    """``(work, memory)`` of one Hungarian assignment of ``m`` units: ``m³`` and a few ``m × m`` tables."""
    return float(m) ** 3, 8.0 * 4 * m * m


def _pairs(pairs) -> list[tuple]:
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise TypeError(f"pairs must be a sequence of pairs (A, B), got {type(pairs).__name__}")
    if len(pairs) == 0:
        raise ValueError("pairs must contain at least one pair (A, B)")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"pairs[{i}] must be a pair (A, B) of networks, got {type(pair).__name__}")
        out.append((as_network(f"pairs[{i}][0]", pair[0]), as_network(f"pairs[{i}][1]", pair[1])))
    shapes = {tuple(p[0][0].shape) for p in out} | {tuple(p[1][0].shape) for p in out}
    if len(shapes) != 1:
        raise ValueError(f"every network in pairs must have the same shape, got {sorted(shapes)}")
    return out


def straight_line(A, B) -> Path:
    """The naive path ``(1−t)θ_A + tθ_B``, without a guarantee.

    Parameters
    ----------
    A, B : Network
        The networks to join (:func:`as_pair`).

    Returns
    -------
    Path
        One segment of kind ``"line"`` and no certificate.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> barrier.straight_line(A, B).kinds
    ['line']

    Notes
    -----
    Budget: linear in the networks' size.
    """
    (WA, aA), (WB, aB) = as_pair(A, B)
    return Path((Segment("line", "bridge", WA, aA, WB, aB),))


def weight_matching(A, B) -> tuple[Network, torch.Tensor]:
    """``B`` with its hidden units permuted to match ``A``'s (Git Re-Basin's weight matching).

    Parameters
    ----------
    A, B : Network
        The networks (:func:`as_pair`).

    Returns
    -------
    (W_B[π], a_B[π]) : Network
        The permuted ``B``, which computes the same function.
    π : tensor (m,), long
        The permutation.

    Examples
    --------
    >>> import torch
    >>> from nnproofs import barrier
    >>> A, _, x, y = barrier.tight_pair()
    >>> B = tuple(t.flip(0) for t in A)  # A with its units in reverse order
    >>> (W, a), perm = barrier.weight_matching(A, B)
    >>> torch.equal(W, A[0]) and torch.equal(a, A[1])
    True

    Notes
    -----
    For one hidden layer the matching is one assignment problem: ``π`` maximises
    ``Σ_j ⟨(w^A_j, a^A_j), (w^B_{π(j)}, a^B_{π(j)})⟩`` (``scipy.optimize.linear_sum_assignment``).
    Budget: ``m³`` operations within ``budget.work()``.
    """
    (WA, aA), (WB, aB) = as_pair(A, B)
    work, memory = _matching_cost(WA.shape[0])
    costs.refuse("A and B", tuple(WA.shape), work=work, memory=memory)
    similarity = torch.cat([WA, aA[:, None]], 1) @ torch.cat([WB, aB[:, None]], 1).T
    _, perm = linear_sum_assignment(similarity.cpu().numpy(), maximize=True)
    perm = torch.as_tensor(perm, dtype=torch.long, device=WA.device)
    return (WB[perm], aB[perm]), perm


def matched_line(A, B) -> Path:
    """The straight line from ``A`` to ``B`` after weight matching, without a guarantee.

    Parameters
    ----------
    A, B : Network
        The networks (:func:`as_pair`).

    Returns
    -------
    Path
        One ``"line"`` segment from ``A`` to :func:`weight_matching`'s permuted ``B`` (not ``B`` itself).

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, _, x, y = barrier.tight_pair()
    >>> path = barrier.matched_line(A, tuple(t.flip(0) for t in A))  # B: A's units reversed
    >>> abs(barrier.barrier(path, x, y, loss="huber", lam=1e-3)) < 1e-12  # zero, to round-off
    True

    Notes
    -----
    The path ends at a permuted copy of ``B``: reaching ``B`` itself needs a reordering the line does not
    contain. Budget: as :func:`weight_matching`.
    """
    return straight_line(A, weight_matching(A, B)[0])


def bezier_paths(pairs: Sequence[tuple], x, y, *, loss: str, lam: float = LAMBDA, steps: int = 300,
                 samples: int = 8, lr: float = 0.01, converge: float | None = None, check_every: int = 50,
                 seed: int = 0) -> list[Path]:
    """Quadratic Bezier curves ``(1−t)²θ_A + 2t(1−t)θ_c + t²θ_B`` with trained control points (Garipov et al.).

    Parameters
    ----------
    pairs : sequence of (Network, Network)
        The pairs to join, all of the same shape (trained at once).
    x, y : tensors (N, n) and (N,)
        The data.
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ.
    steps : int
        Adam steps (the cap when ``converge`` is given).
    samples : int
        Random times ``t`` whose cost each step averages.
    lr : float
        Adam's learning rate.
    converge : float, optional
        Stop when the largest barrier, evaluated at 101 times every ``check_every`` steps, is at most
        ``COST_ATOL`` or fell by less than this fraction since the previous evaluation.
    check_every : int
        Steps between those evaluations.
    seed : int
        Seed of the random times.

    Returns
    -------
    list of Path
        One ``"bezier"`` segment per pair, without a certificate; ``path.info["steps"]`` is the number of
        steps taken.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> [p.kinds for p in barrier.bezier_paths([(A, B)], x, y, loss="huber", steps=2)]
    [['bezier']]

    Notes
    -----
    ``θ_c`` starts at the midpoint; ``W_c`` is projected onto the unit ball after each step, so the whole
    curve is feasible (the Bernstein weights are a convex combination). Budget:
    ``steps·(3·samples + 101/check_every)·pairs·m·N·(n + 1)`` multiply-adds within ``budget.work()``.
    """
    nets = _pairs(pairs)
    steps, samples = positive_int("steps", steps), positive_int("samples", samples)
    check_every = positive_int("check_every", check_every)
    if converge is not None and not 0 <= finite_real("converge", converge) < 1:
        raise ValueError(f"converge must be a fraction in [0, 1) or None, got {converge!r}")
    lr = finite_real("lr", lr)
    if not 0 < lr <= MAX_LR:
        raise ValueError(f"lr must be in (0, {MAX_LR:g}], got {lr!r}")
    loss_fn, lam = get_loss(loss), _lam(lam)
    device = nets[0][0][0].device
    x, y = _data(x, y, n=nets[0][0][0].shape[1], loss=loss)
    m, n = nets[0][0][0].shape
    work, memory = _bezier_cost(len(nets), m, n, x.shape[0], steps, samples, check_every)
    costs.refuse("pairs, x, steps, samples and check_every",
                 (len(nets), tuple(x.shape), steps, samples, check_every), work=work, memory=memory)
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
            if current <= COST_ATOL or (math.isfinite(previous) and previous - current <= converge * previous):
                break
            previous = current
    Wc, ac = Wc.detach(), ac.detach()
    if not (bool(torch.isfinite(Wc).all()) and bool(torch.isfinite(ac).all())):
        raise ValueError(f"lr = {lr:g}: the control points left the floats (training diverged); use a smaller lr")
    return [Path((Segment("bezier", "bridge", WA[p], aA[p], WB[p], aB[p], curve="bezier", control=(Wc[p], ac[p])),),
                 info={"steps": taken}) for p in range(len(nets))]


def _bezier_cost(pairs: int, m: int, n: int, samples_x: int, steps: int, samples: int,
                 check_every: int) -> tuple[float, float]:
    per_step = costs.training(1, pairs * samples, m, n, samples_x)
    check = costs.sampled(1, 101 * pairs, m, n, samples_x)
    return steps * per_step[0] + steps / check_every * check[0], max(per_step[1], check[1])


METHODS = ("straight line", "weight matching + line", "Bezier", "weight matching + Bezier",
           "constructive (grid)", "constructive (adaptive)")
POINTS_PER_SEGMENT = {  # samples of the cost per segment: lines, curves, constructive segments
    "straight line": 51, "weight matching + line": 51, "Bezier": 101, "weight matching + Bezier": 101,
    "constructive (grid)": 17, "constructive (adaptive)": 17,
}


def path_finders(pairs: Sequence[tuple], x, y, *, loss: str, lam: float = LAMBDA, bezier_steps: int = 300,
                 converge: float | None = None, check_every: int = 50,
                 seed: int = 0) -> dict[str, Callable[[], list[Path]]]:
    """For every method of ``METHODS``, a function that joins every pair of ``pairs`` by that method.

    Parameters
    ----------
    pairs : sequence of (Network, Network)
        The pairs to join.
    x, y : tensors (N, n) and (N,)
        The data.
    loss : str
        A key of :data:`LOSSES`.
    lam : float
        The ℓ1 weight λ.
    bezier_steps, converge, check_every, seed
        Passed to :func:`bezier_paths`.

    Returns
    -------
    dict
        ``{method: callable}``; each callable returns the list of paths, one per pair.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> finders = barrier.path_finders([(A, B)], x, y, loss="huber")
    >>> sorted(finders) == sorted(barrier.METHODS), finders["straight line"]()[0].kinds
    (True, ['line'])

    Notes
    -----
    Shared by :func:`compare_paths` and the benchmark, so that both time and evaluate the same thing.
    Budget: two Bezier trainings, a matching and two constructions per pair within ``budget.work()``.
    """
    pairs = _pairs(pairs)
    bezier_steps, check_every = positive_int("bezier_steps", bezier_steps), positive_int("check_every", check_every)
    x = _data(x, n=pairs[0][0][0].shape[1])
    m, n = pairs[0][0][0].shape
    bezier_work, memory = _bezier_cost(len(pairs), m, n, x.shape[0], bezier_steps, 8, check_every)
    matching, _ = _matching_cost(m)
    construction, _ = costs.path(m, n, "adaptive", default_cells(n, m))
    costs.refuse("pairs, x, bezier_steps and check_every", (len(pairs), tuple(x.shape), bezier_steps, check_every),
                 work=2 * bezier_work + len(pairs) * (2 * matching + 2 * construction), memory=memory)
    bezier = dict(loss=loss, lam=lam, steps=bezier_steps, converge=converge, check_every=check_every, seed=seed)
    return {
        "straight line": lambda: [straight_line(A, B) for A, B in pairs],
        "weight matching + line": lambda: [matched_line(A, B) for A, B in pairs],
        "Bezier": lambda: bezier_paths(pairs, x, y, **bezier),
        "weight matching + Bezier": lambda: bezier_paths([(A, weight_matching(A, B)[0]) for A, B in pairs], x, y,
                                                         **bezier),
        "constructive (grid)": lambda: [constructive_path(A, B, x, cover="grid") for A, B in pairs],
        "constructive (adaptive)": lambda: [constructive_path(A, B, x, cover="adaptive") for A, B in pairs],
    }


def _sampled_roundoff(path, sampled: Profile, x, lipschitz: float, lam: float) -> float:
    """The round-off bound (:func:`nnproofs.barrier.evaluation._roundoff`) of ``path``'s sampled costs on ``x``."""
    W, a = path.evaluate(sampled.t)
    return _roundoff(torch.as_tensor(sampled.cost, device=W.device), a, function_roundoff(W, a, _data(x).to(W.device)),
                     lipschitz, lam)


def compare_paths(pairs: Sequence[tuple], x, y, *, loss: str, lam: float = LAMBDA, bezier_steps: int = 300,
                  methods: Sequence[str] = METHODS, seed: int = 0) -> dict[str, dict[str, list]]:
    """Every method of ``methods`` on the same ``pairs``, with the same cost and barrier conventions.

    Parameters
    ----------
    pairs : sequence of (Network, Network)
        The pairs to join.
    x, y, loss, lam
        As in :func:`profile`.
    bezier_steps : int
        Adam steps of the Bezier curves (trained for all pairs at once).
    methods : sequence of str
        Names from ``METHODS`` (default all).
    seed : int
        Seed of the Bezier training.

    Returns
    -------
    dict
        ``{method: {"max", "mean", "interpolated", "level", "certificate", "roundoff": list per pair,
        "seconds": float}}``: the three barrier conventions (:meth:`Profile.barriers`), ``max(C_A, C_B)``,
        the certificate (``None`` for the methods that give none), the sampled costs' :func:`cost_roundoff`,
        and the process time to *find* the path, per pair.

    Examples
    --------
    >>> from nnproofs import barrier
    >>> A, B, x, y = barrier.tight_pair()
    >>> table = barrier.compare_paths([(A, B)], x, y, loss="huber", bezier_steps=2)
    >>> sorted(table) == sorted(barrier.METHODS)
    True

    Notes
    -----
    Sampling: ``POINTS_PER_SEGMENT`` (51 points on lines, 101 on Bezier curves, 17 per constructive
    segment). Budget: as :func:`path_finders`.
    """
    if (isinstance(methods, str) or not isinstance(methods, Sequence) or not methods
            or any(not isinstance(m, str) or m not in METHODS for m in methods)):
        raise ValueError(f"methods must be a non-empty sequence of names from {METHODS}, got {methods!r}")
    lipschitz, lam = get_loss(loss).lipschitz, _lam(lam)
    finders = path_finders(pairs, x, y, loss=loss, lam=lam, bezier_steps=bezier_steps, seed=seed)
    table = {}
    for method in (m for m in METHODS if m in methods):
        start = time.process_time()
        paths = finders[method]()
        seconds = (time.process_time() - start) / len(paths)
        profiles = [profile(p, x, y, loss=loss, lam=lam, points_per_segment=POINTS_PER_SEGMENT[method]) for p in paths]
        conventions = [p.barriers() for p in profiles]
        table[method] = {
            **{key: [c[key] for c in conventions] for key in ("max", "mean", "interpolated")},
            "level": [max(float(p.cost[0]), float(p.cost[-1])) for p in profiles],
            "certificate": [p.certificate(x, lipschitz) if p.moments is not None else None for p in paths],
            "roundoff": [_sampled_roundoff(p, q, x, lipschitz, lam) for p, q in zip(paths, profiles)],
            "seconds": seconds,
        }
    return table
