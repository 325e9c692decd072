"""Theorem ``thm-relu-floor``: a ReLU network with ``P`` pieces on a segment is at least ``μ/(16P²)`` from a target
with ``|f''| >= μ``; trained ReLU networks against smooth networks of the same architecture."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import torch
from torch import nn

from .. import budget
from .. import device as book_device
from ..measure import sup_error
from ..networks import affine_maps
from ..pieces import breakpoints, linear_pieces
from ..rates import RateCheck, rate_check
from ..validate import finite_real, nonnegative_int, positive_int
from . import gadgets as sg
from .inputs import device_of, short_list, target
from .training import fit_target

EPS = sg.EPS


STALLED = 1.0 / 16  # a fit whose sup error is at least μ/16, the floor of a single linear piece (P = 1), has not
#                     used its units: it stalled (seen: sigmoid nets stuck at the mean of f, sup error ~ max|f - mean f|)
MAX_POINTS = 1 << 16  # training samples a check_relu_bottleneck fit may take (the chapter uses 257)
RETRAINS = 4  # a stalled comparison fit is refitted from seed + RETRAIN_SEED_STEP·i, i = 1..4; still stalled: INCONCLUSIVE
#              (sweep: 7 of 30 sigmoid checks had a stalled fit at H = 3, W = 8; six needed <= 2 refits, one needed 4)
RETRAIN_SEED_STEP = 10_000
CACHED_RELU_FITS = 12  # the ReLU fits of the last two calls with the same (f, sizes, seed): a control reuses them


def relu_piece_count(net: nn.Sequential, a: float = 0.0, b: float = 1.0) -> int:
    """The number of linear pieces of the 1-D ReLU network ``net`` on ``[a, b]``, counted exactly.

    Parameters
    ----------
    net : torch.nn.Sequential
        ``Sequential(Linear, ReLU, ..., Linear)`` with one input and one output.
    a, b : float
        The interval.

    Returns
    -------
    int
        The number of pieces, adjacent pieces with equal slopes merged.

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> from nnproofs import smooth
    >>> net = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1)).double()
    >>> with torch.no_grad():
    ...     _ = net[0].weight.fill_(1.0), net[0].bias.fill_(-0.5)
    >>> smooth.relu_piece_count(net)
    2

    Raises
    ------
    ValueError
        Naming ``net``, when the work or memory bound of :func:`piece_count_cost` exceeds :func:`nnproofs.budget.work`
        or :func:`nnproofs.budget.memory`.

    Notes
    -----
    :func:`nnproofs.pieces.linear_pieces`: kinks followed layer by layer.
    """
    a, b = finite_real("a", a), finite_real("b", b)
    if not a < b:
        raise ValueError(f"need a < b, got a={a!r}, b={b!r}")
    work, memory = piece_count_cost(net)
    widths = [w.shape[0] for w, _ in affine_maps(net)]
    budget.refuse_beyond("net", f"ReLU widths {widths}", cost=work, limit=budget.work(), unit="multiply-adds")
    budget.refuse_beyond("net", f"ReLU widths {widths}", cost=memory, limit=budget.memory(), unit="bytes")
    return linear_pieces(net, a, b)


def piece_count_cost(net: nn.Sequential) -> tuple[float, float]:
    """Multiply-adds and bytes of :func:`relu_piece_count` on ``net``, bounded before anything is computed.

    Parameters
    ----------
    net : torch.nn.Sequential
        ``Sequential(Linear, ReLU, ..., Linear)`` with hidden widths ``w_1, ..., w_L``.

    Returns
    -------
    tuple of float
        ``Σ_l B_l (w_(l-1) + 1) w_l`` multiply-adds and ``8 max_l B_(l+1) w_l`` bytes, where ``B_l = 2 Π_(i<l) (w_i +
        1)`` bounds the partition's points before map ``l`` (``w_0 = 1``, the output's width last; a ReLU layer of
        width ``w`` splits each interval into at most ``w + 1``).

    Examples
    --------
    >>> from torch import nn
    >>> from nnproofs.smooth.bottleneck import piece_count_cost
    >>> piece_count_cost(nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)))
    (26.0, 96.0)

    Notes
    -----
    The bound ``(W + 1)^L`` is attained by sawtooth compositions only up to a factor: a depth-25 sawtooth of
    width 2 (``2^25`` pieces) is refused, as its count takes more than half a minute of CPU.
    """
    widths = [1] + [w.shape[0] for w, _ in affine_maps(net)]
    work, memory, partition = 0.0, 0.0, 2.0
    for before, after in zip(widths, widths[1:]):
        work += partition * (before + 1) * after
        partition *= after + 1
        memory = max(memory, 8.0 * partition * after)
    return work, memory


def check_curvature(f: Callable, mu: float, *, samples: int = (1 << 20) + 1) -> int:
    """The sign of ``f''`` when ``|f''| >= μ`` on ``[0, 1]`` (within 1%), else a ``ValueError``.

    Parameters
    ----------
    f : callable
        The target, ``(n, 1)`` float64 tensor to ``(n,)``.
    mu : float
        The curvature bound ``μ > 0`` of Theorem ``thm-relu-floor``.
    samples : int
        The finest grid has ``samples`` points (spacing ``1/(samples - 1)``).

    Returns
    -------
    int
        ``+1`` or ``-1``, the sign of ``f''``.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.check_curvature(smooth.convex_target, 1.0)
    1

    Notes
    -----
    ``f''`` is read from second differences on grids of spacing ``2^-4, 2^-5, ...`` down to ``1/(samples - 1)``,
    scales whose round-off ``4ε max|f|/h²`` exceeds ``μ/100`` skipped; a dip narrower than the finest spacing can
    pass. Budget: ``8·samples`` bytes within :func:`nnproofs.budget.memory`.
    """
    mu = finite_real("mu", mu)
    if mu <= 0:
        raise ValueError(f"mu must be > 0 (a lower bound on |f''|), got {mu!r}")
    samples = positive_int("samples", samples)
    if samples < 17:
        raise ValueError(f"samples must be >= 17 (the coarsest grid, h = 1/16, ends included), got {samples}")
    budget.refuse_beyond("samples", samples, cost=3 * 8 * samples, limit=budget.memory(), unit="bytes")
    if not callable(f):
        raise TypeError(f"f must be a callable, got {type(f).__name__}")
    sign, intervals = 0, 16
    while intervals <= samples - 1:
        x = torch.linspace(0.0, 1.0, intervals + 1, dtype=torch.float64)[:, None]
        values = f(x).reshape(-1)
        if not bool(torch.isfinite(values).all()):
            raise ValueError("f returned non-finite values on [0, 1]: f'' cannot be read")
        h = 1.0 / intervals
        second = (values[:-2] - 2 * values[1:-1] + values[2:]) / h**2
        if sign == 0:
            sign = 1 if float(second.mean()) > 0 else -1
        if 4 * EPS * float(values.abs().max()) / h**2 <= 0.01 * mu:
            worst = int(torch.argmin(sign * second))
            if not float(sign * second[worst]) >= 0.99 * mu:
                raise ValueError(f"f violates the theorem's assumption |f''| >= mu = {mu:g} with a fixed sign: the"
                                 f" mean of f'' over [{float(x[worst]):.4g}, {float(x[worst + 2]):.4g}] is"
                                 f" ≈ {float(second[worst]):.4g}")
        intervals *= 2
    return sign


def _sup_on_segment(net: nn.Module, f: Callable, grid: torch.Tensor, extra: torch.Tensor | None = None) -> tuple[float, float]:
    """Sup (on the grid plus ``extra`` points) and RMS (trapezoidal, on the uniform grid) of ``net - f``."""
    points = grid if extra is None else torch.cat([grid, extra[:, None]])
    sup = sup_error(net, f, points)
    with torch.no_grad():
        sq = (net(grid).reshape(-1) - f(grid).reshape(-1)) ** 2
    weights = torch.ones_like(sq)
    weights[0] = weights[-1] = 0.5
    return sup, float(torch.sqrt((weights * sq).sum() / (sq.numel() - 1)))


def check_relu_bottleneck(f: Callable, *, mu: float, widths: Sequence[int], hidden_layers: Sequence[int] = (1, 2, 3),
                          comparison: str = "gelu", iterations: int | None = None, points: int = 257, seed: int = 0,
                          device=None) -> RateCheck:
    """Check Theorem ``thm-relu-floor`` on trained networks fitting ``f`` on ``[0, 1]`` (``|f''| >= μ``):
    ``sup|f - φ| >= μ/(16P²)`` for every ReLU net ``φ`` with ``P`` pieces.

    Parameters
    ----------
    f : callable
        The target on ``[0, 1]``, ``(n, 1)`` float64 tensor to ``(n,)``, with ``|f''| >= mu`` (:func:`check_curvature`).
    mu : float
        The lower bound on ``|f''|``.
    widths, hidden_layers : sequence of int
        The architectures ``(H, W)``: every ``W`` in ``widths`` with every ``H`` in ``hidden_layers``.
    comparison : str
        The activation of the networks of the same architectures (``"relu"``: the negative control).
    iterations, points, seed : int
        BFGS steps (default 2000 at ci, 4000 at full scale), training samples, and the seed of every fit.
    device : str or torch.device, optional
        Where to train (default ``BOOK_DEVICE``).

    Returns
    -------
    RateCheck
        Claim: ``min over ReLU nets of sup error / (μ/(16P²)) >= 1``. Requirements: ``P <= (W+1)^H`` and the
        RMS error ``>= μ/(√720 P²)`` for every net; the comparison nets go below their ReLU twin's floor on a
        majority of the architectures. ``notes`` hold the table of pieces and errors.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.check_relu_bottleneck(smooth.convex_target, mu=1.0, widths=[4, 8]).verdict
    'PASSED'

    Notes
    -----
    ``P`` is counted exactly; the sup error is measured on ``2^14 + 1`` points plus the breakpoints. A majority,
    not every architecture, because the theorem says nothing about a *trained* smooth net (sweeps in
    ``tests/test_smooth.py``); a comparison fit stalled at ``STALLED · μ`` is refitted up to :data:`RETRAINS` times,
    then INCONCLUSIVE. The ReLU fits are cached (:data:`CACHED_RELU_FITS`), so ``comparison="relu"`` after the
    check refits nothing. Details: the chapter's section "How the checks decide".
    """
    device = device_of(device)
    sign = check_curvature(target(f, 1, device), mu)
    mu = float(mu)
    widths, hidden_layers = short_list("widths", widths, 1), short_list("hidden_layers", hidden_layers, 1)
    comparison = sg.activation_name(comparison, trainable=True, parameter="comparison")
    iterations = positive_int("iterations", iterations) if iterations is not None else book_device.sizes(ci=2000, full=4000)
    seed = nonnegative_int("seed", seed)
    points = positive_int("points", points)
    if points > MAX_POINTS:
        raise ValueError(f"points must be <= {MAX_POINTS} (training samples of a target on [0, 1]), got {points}")
    # BFGS on two nets per architecture: about 10 (H W² + 3W) multiply-adds per sample and step, plus ~100 of
    # per-sample overhead that dominates at small widths (a rare retrain aside)
    cost = 2.0 * iterations * points * sum(10 * (H * W * W + 3 * W) + 100 for H in hidden_layers for W in widths)
    budget.refuse_beyond("widths, hidden_layers, iterations, points", (widths, hidden_layers, iterations, points),
                         cost=cost, limit=budget.work(), unit="multiply-adds")
    grid = torch.linspace(0.0, 1.0, (1 << 14) + 1, dtype=torch.float64, device=device)[:, None]
    rows, stalled = [], []
    for H in hidden_layers:
        for W in widths:
            kw = {"hidden_layers": H, "width": W, "iterations": iterations, "points": points, "device": device}
            relu = _relu_fit(f, H, W, iterations, points, seed, str(device))
            kinks = breakpoints(relu, 0.0, 1.0)
            pieces = kinks.numel() + 1
            relu_sup, relu_rms = _sup_on_segment(relu, f, grid, kinks)
            retrains = 0
            if comparison == "relu":
                other_sup = relu_sup
            else:
                other_sup, _ = _sup_on_segment(fit_target(f, activation=comparison, seed=seed, **kw), f, grid)
                while other_sup >= STALLED * mu and retrains < RETRAINS:
                    retrains += 1
                    other = fit_target(f, activation=comparison, seed=seed + RETRAIN_SEED_STEP * retrains, **kw)
                    other_sup, _ = _sup_on_segment(other, f, grid)
                if other_sup >= STALLED * mu:
                    stalled.append((H, W))
            rows.append({"H": H, "W": W, "P": pieces, "bound": (W + 1) ** H, "relu sup": relu_sup, "relu rms": relu_rms,
                         "floor": mu / (16 * pieces**2), "rms floor": mu / (math.sqrt(720) * pieces**2),
                         "comparison sup": other_sup, "retrains": retrains,
                         "architecture floor": mu / (16 * (W + 1) ** (2 * H))})
    ratios = [r["relu sup"] / r["floor"] for r in rows]
    pieces = [r["P"] for r in rows]
    if len(set(pieces)) < 2:
        raise ValueError(f"the trained ReLU nets all have {pieces[0]} pieces; use more widths or depths to fit a rate")
    below = sum(r["comparison sup"] < r["floor"] for r in rows)
    why = ""
    if stalled:
        why = (f"the {comparison} fits at (H, W) = {stalled} stalled: sup error >= μ/16 (one linear piece's floor)"
               f" after {RETRAINS} refits from other seeds; no verdict on a fit that did not train")
    return rate_check(
        f"ReLU floor: sup|f − φ| ≥ μ/(16P²), P ≤ (W+1)^H; {comparison} nets of the same architecture below it",
        pieces,
        [r["relu sup"] for r in rows],
        expected=1.0,
        tolerance=0.0,
        sense=">=",
        measured=min(ratios),
        quantity="min over ReLU nets of sup error / (μ/(16P²))",
        requirements={
            "P ≤ (W+1)^H for every ReLU net": all(r["P"] <= r["bound"] for r in rows),
            "RMS error ≥ μ/(√720 P²) for every ReLU net": all(r["relu rms"] >= r["rms floor"] for r in rows),
            f"{comparison} net of the same architecture below μ/(16P²) on a majority of (H, W)": 2 * below > len(rows),
        },
        inconclusive=why,
        notes={"H": [r["H"] for r in rows], "W": [r["W"] for r in rows], "pieces P": pieces,
               "(W+1)^H": [r["bound"] for r in rows], "ReLU sup error": [r["relu sup"] for r in rows],
               "floor μ/(16P²)": [r["floor"] for r in rows], "ReLU RMS error": [r["relu rms"] for r in rows],
               f"{comparison} sup error": [r["comparison sup"] for r in rows],
               f"{comparison} / floor": [r["comparison sup"] / r["floor"] for r in rows],
               f"{comparison} nets below the floor": f"{below} of {len(rows)}",
               f"{comparison} refits of stalled fits": [r["retrains"] for r in rows],
               "architecture floor μ/(16(W+1)^(2H))": [r["architecture floor"] for r in rows],
               "sign of f''": sign, "training iterations": iterations},
    )


@functools.lru_cache(maxsize=CACHED_RELU_FITS)
def _relu_fit(f: Callable, H: int, W: int, iterations: int, points: int, seed: int, device: str) -> nn.Sequential:
    """The trained ReLU net of :func:`check_relu_bottleneck` (frozen; kept for the control that compares it)."""
    return fit_target(f, activation="relu", hidden_layers=H, width=W, iterations=iterations, points=points, seed=seed,
                      device=device)


def default_bottleneck_widths() -> list[int]:
    """The widths of the trained networks of the ReLU floor.

    Returns
    -------
    list of int
        ``[4, 8]`` at ``BOOK_SCALE=ci``, ``[4, 8, 16]`` at ``full``.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.default_bottleneck_widths()  # at BOOK_SCALE=ci
    [4, 8]

    Notes
    -----
    Sized so that the trained networks fit the page's time at ci.
    """
    return book_device.sizes(ci=[4, 8], full=[4, 8, 16])
