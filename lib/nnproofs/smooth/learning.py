"""Learning curves (Theorem ``thm-erm-rate``, illustrated, not gated as a rate): one-hidden-layer networks fitted to
noisy samples, with the shuffled-label control."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .. import budget
from ..measure import nondyadic_grid
from ..rates import RateCheck, rate_check
from ..validate import finite_real, positive_int
from . import gadgets as sg
from .inputs import device_of, dimension, finite_values, sizes, target
from .training import fit_network


LEARNING_SLOPE = -0.4  # learning curves: the test MSE must fall at least like n^-0.4 (theory: -0.8 to -1; over
#                       ten seeds the slopes were -0.54 to -1.31, those with shuffled labels -0.11 to +0.02)
LEARNING_MIN_SIZES = 3  # a learning curve needs at least three sample sizes (two give one slope, no trend)
LEARNING_MIN_N = 50  # and its smallest n at least 50: below that the width ⌈√n⌉ <= 7 and the fit is the prior's
LEARNING_CONVERGED = 0.2  # a slope failure is trusted only if twice the BFGS steps move no median test MSE by
#                           more than this share: the theorem bounds the risk minimiser, not an unfinished fit
LEARNING_NULL_SHARE = 0.5  # at the largest n the test MSE must be below half that of the best constant (see
#                            check_learning_curve: shuffled labels cannot go below the null error, for any amplitude)


def learning_curve(f: Callable, *, activation: str, ns: Sequence[int], noise: float = 0.1, seeds: int = 3,
                   seed: int = 0, d: int = 1, iterations: int = 300, width: Callable[[int], int] | None = None,
                   permute_labels: bool = False, test_size: int | None = None, device=None) -> dict:
    """Test MSE ``‖f̂_n - f‖²`` of one-hidden-layer networks fitted to ``n`` noisy samples, per ``n`` and seed.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    activation : str
        The activation of the hidden layer.
    ns : sequence of int
        The sample sizes.
    noise : float
        The standard deviation of the label noise.
    seeds : int
        Runs per ``n``; run ``s`` seeds the samples, the noise and the initial weights with ``seed + s``.
    seed : int
        The first seed.
    d : int
        The dimension, 1 or 2.
    iterations : int
        BFGS steps of the least-squares fit (the empirical risk minimiser, approximately).
    width : callable, optional
        ``width(n)`` hidden units (default ``⌈√n⌉``).
    permute_labels : bool
        Shuffle the ``y_i`` (negative control: nothing left to learn).
    test_size : int, optional
        Test points (default ``4096`` in 1-D, ``64²`` in 2-D, on a non-dyadic grid).
    device : str or torch.device, optional
        Where to fit (default ``BOOK_DEVICE``).

    Returns
    -------
    dict
        ``"n"`` (the sizes), ``"widths"``, ``"test MSE"`` (one row of seeds per ``n``), ``"median test MSE"`` per
        ``n`` and ``"null MSE"`` (the variance of ``f`` on the test grid: the error of predicting its mean).

    Examples
    --------
    >>> from nnproofs import smooth
    >>> curve = smooth.learning_curve(smooth.learning_target, activation="gelu", ns=[50, 100], seeds=1,
    ...                              iterations=10)
    >>> curve["n"], len(curve["test MSE"][0])
    ([50, 100], 1)

    Notes
    -----
    Samples ``x_i ~ U[0, 1]^d``, ``y_i = f(x_i) + noise·ξ_i``. Budget: ``10 (d + 2) · seeds · iterations ·
    Σ n·width(n)`` multiply-adds within :func:`nnproofs.budget.work`.
    """
    name = sg.activation_name(activation, trainable=True)
    d = dimension(d)
    ns = sizes("ns", ns, 1)
    noise = finite_real("noise", noise)
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise!r}")
    seeds, iterations = positive_int("seeds", seeds), positive_int("iterations", iterations)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= 2**63 - 1 - seeds:
        raise ValueError(f"seed must be an int >= 0 and <= 2**63 - 1 - seeds (the runs use seeds seed .. seed + seeds"
                         f" - 1; torch's generator takes 64-bit seeds), got {seed!r}")
    if width is not None and not callable(width):
        raise TypeError(f"width must be a callable n -> hidden width, or None, got {type(width).__name__}")
    width = width or (lambda n: math.ceil(math.sqrt(n)))
    widths = [positive_int("width(n)", width(n)) for n in ns]
    # forward and backward passes of every BFGS step: about 10 (d + 2) n w multiply-adds per sample and step
    cost = 10 * (d + 2) * seeds * iterations * sum(n * w for n, w in zip(ns, widths))
    budget.refuse_beyond("ns, seeds, iterations", (ns, seeds, iterations), cost=cost,
                         limit=budget.work(), unit="multiply-adds")
    if test_size is not None:
        positive_int("test_size", test_size)
        budget.refuse_beyond("test_size", test_size, cost=8 * test_size ** d * max(widths), limit=budget.memory(),
                             unit="bytes")
    device = device_of(device)
    f = target(f, d, device)
    test = _test_points(d, test_size, device)
    truth = finite_values("f", f(test).reshape(-1))
    errors = []
    for n in ns:
        row = []
        for run in range(seed, seed + seeds):
            generator = torch.Generator(device="cpu").manual_seed(10_000 * run + n)
            x = torch.rand(n, d, dtype=torch.float64, generator=generator).to(device)
            y = finite_values("f", f(x).reshape(-1)) + noise * torch.randn(n, dtype=torch.float64,
                                                                              generator=generator).to(device)
            if permute_labels:
                y = y[torch.randperm(n, generator=generator).to(device)]
            net = fit_network(x, y, hidden_layers=1, width=widths[ns.index(n)], activation=name,
                                 iterations=iterations, seed=run, device=device)
            with torch.no_grad():
                row.append(float(((net(test).reshape(-1) - truth) ** 2).mean()))
        errors.append(row)
    return {"n": ns, "widths": [width(n) for n in ns], "test MSE": errors,
            "median test MSE": [float(np.median(row)) for row in errors],
            "null MSE": float(((truth - truth.mean()) ** 2).mean())}


def _test_points(d: int, test_size: int | None, device) -> torch.Tensor:
    """The test grid: ``test_size`` (default 4096) non-dyadic points in 1-D, ``test_size²`` (default 64²) in 2-D."""
    if d == 1:
        return nondyadic_grid(test_size or 4096, device=device)
    line = nondyadic_grid(test_size or 64, device=device)[:, 0]
    return torch.stack(torch.meshgrid(line, line, indexing="ij"), -1).reshape(-1, 2)


def check_learning_curve(f: Callable, *, activation: str, ns: Sequence[int], noise: float = 0.1, seeds: int = 3,
                         seed: int = 0, d: int = 1, iterations: int = 300, permute_labels: bool = False, device=None) -> RateCheck:
    """Illustration of Theorem ``thm-erm-rate``: the median test MSE falls at least like ``n^-0.4`` and ends
    below half the null error.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``, not constant on the test grid.
    activation : str
        ``"relu"`` or one of the smooth activations.
    ns : sequence of int
        Sample sizes: at least :data:`LEARNING_MIN_SIZES` distinct ones, each at least :data:`LEARNING_MIN_N`.
    noise, seeds, seed, d, iterations
        As in :func:`learning_curve` (noise level, runs per ``n``, first seed, dimension, BFGS steps).
    permute_labels : bool
        Shuffle the labels (the negative control: the check must fail).
    device : str or torch.device, optional
        Where to train (default ``BOOK_DEVICE``).

    Returns
    -------
    RateCheck
        One-sided: fitted slope of the median test MSE ``<= -0.4``; requirement: the last median at most
        ``LEARNING_NULL_SHARE = 0.5`` of the null error ``‖f - mean f‖²``. INCONCLUSIVE when the slope holds and
        only that share fails, or when the slope fails but the fits have not converged (twice the BFGS steps move a
        median by more than ``LEARNING_CONVERGED = 0.2`` of it); FAILED when the slope fails on converged fits, or
        with ``permute_labels=True``.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> ns = [100, 200, 400, 800, 1600]
    >>> smooth.check_learning_curve(smooth.learning_target, activation="gelu", ns=ns).verdict
    'PASSED'

    Notes
    -----
    A deliberately weak check: at these sizes the slope is set by noise and optimisation as much as by
    approximation. A slope alone does not show learning (shuffled labels fit noise that shrinks with ``n``); the
    null share does. Budget: that of :func:`learning_curve`. Details: the chapter's section "How the checks decide".
    """
    device, d = device_of(device), dimension(d)
    ns_ = sizes("ns", ns, 1)
    if len(ns_) < LEARNING_MIN_SIZES or min(ns_) < LEARNING_MIN_N:
        raise ValueError(f"ns must hold at least {LEARNING_MIN_SIZES} distinct sizes, each >= {LEARNING_MIN_N}, got"
                         f" {ns_}: fewer sizes show no trend, and below {LEARNING_MIN_N} samples the curve is the prior's")
    values = finite_values("f", target(f, d, device)(_test_points(d, None, device)).reshape(-1))
    if float(values.max() - values.min()) == 0.0:
        raise ValueError(f"f is constant ({float(values[0])!r}) on the test grid: its null error ‖f − mean f‖² is 0,"
                         " so no test MSE can end below half of it; use a non-constant target")
    curve = learning_curve(f, activation=activation, ns=ns, noise=noise, seeds=seeds, seed=seed, d=d,
                           iterations=iterations, permute_labels=permute_labels, device=device)
    last = int(np.argmax(curve["n"]))
    share = curve["median test MSE"][last] / curve["null MSE"]
    slope = float(np.polyfit(np.log(curve["n"]), np.log(curve["median test MSE"]), 1)[0])
    why = ""
    if share > LEARNING_NULL_SHARE and slope <= LEARNING_SLOPE and not permute_labels:
        why = (f"the test MSE falls (slope {slope:.2f}) but ends at {share:.2f} x the null error, above"
               f" {LEARNING_NULL_SHARE:g}: a target of small amplitude against the noise needs larger n to show learning")
    if slope > LEARNING_SLOPE and not permute_labels:
        why = _unconverged(f, curve, activation=activation, noise=noise, seeds=seeds, seed=seed, d=d,
                           iterations=iterations, device=device)
    return rate_check(
        f"learning curve, {sg.activation_name(activation, trainable=True)}, d = {d}{', labels permuted' if permute_labels else ''}:"
        " test MSE decays",
        curve["n"],
        curve["median test MSE"],
        expected=LEARNING_SLOPE,
        tolerance=0.0,
        sense="<=",
        quantity="slope of the median test MSE against n",
        requirements={f"median test MSE at n = {curve['n'][last]} <= {LEARNING_NULL_SHARE:g} x the null error ‖f − mean f‖²":
                      curve["median test MSE"][last] <= LEARNING_NULL_SHARE * curve["null MSE"]},
        notes={"widths": curve["widths"], "test MSE per seed": curve["test MSE"], "null MSE": curve["null MSE"],
               "noise": noise, "seeds": seeds},
        inconclusive=why,
    )


def _unconverged(f: Callable, curve: dict, *, iterations: int, **kw) -> str:
    """Why a slope failure of ``curve`` is not the theorem's (the fits are not converged), or ``""``.

    The fits are repeated with ``2 · iterations`` BFGS steps; if any median test MSE moves by more than
    :data:`LEARNING_CONVERGED` of itself, the slope measures the optimiser (an unfinished fit at the larger widths),
    not the risk minimiser the theorem bounds.
    """
    try:
        longer = learning_curve(f, ns=curve["n"], iterations=2 * iterations, **kw)
    except ValueError as error:  # the inputs were accepted once: only the budget can refuse twice the steps
        return f"the slope fails, and the fits cannot be shown converged: {error}"
    moved = [abs(b - a) / a for a, b in zip(curve["median test MSE"], longer["median test MSE"])]
    worst = int(np.argmax(moved))
    if moved[worst] <= LEARNING_CONVERGED:
        return ""
    return (f"the fits have not converged: {2 * iterations} BFGS steps instead of {iterations} move the median test"
            f" MSE at n = {curve['n'][worst]} by {moved[worst]:.0%} (> {LEARNING_CONVERGED:.0%}), so the slope"
            " measures the optimiser, not the risk minimiser the theorem bounds; pass more iterations")
