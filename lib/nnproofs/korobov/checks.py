"""Chapter 2, the public checks of the sparse grid, bit extraction and Network A.

:func:`check_sparse_grid_levels` (``thm-sparse-grid-interp``: error ratio per level and surplus decay),
:func:`check_bit_extraction` (``lem-bit-extraction``) and :func:`check_relu_sparse_grid_network` (Network
A against its interpolant) take the target (or the words) and the sizes as arguments and return a
:class:`nnproofs.rates.RateCheck`. The checks of Networks B and C are in
:mod:`nnproofs.korobov.super_checks`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import torch
from torch import nn

from .. import budget
from .. import device as book_device
from ..gadgets import yarotsky_product
from ..measure import ERROR_NORMS, evaluate_target, interpolation_error, target_gradient, uniform_points
from ..rates import RateCheck, rate_check
from ..validate import int_list, nonnegative_int, positive_int
from .bits import bit_extract, pack_bits
from .network_a import product_error, relu_sparse_grid_network
from .sizes import (ROUNDING, MAX_BITS, MAX_PRODUCT_DEPTH, require_count, require_length, require_product_depth,
                    roundoff_floor)
from .smoothness import read_class, require_reading, steady, verdict
from .sparsegrid import MAX_LEVEL_INDICES, MAX_POINTS, SparseGridInterpolant, sparse_grid_interpolant, sparse_grid_size


def check_bit_extraction(bits: Sequence[int], *, storage: torch.dtype = torch.float64, words: int = 20000,
                         seed: int = 0) -> RateCheck:
    """Lemma ``lem-bit-extraction``: every digit of random :math:`B`-bit words is recovered exactly.

    Parameters
    ----------
    bits : sequence of int
        At least two word lengths :math:`B`.
    storage : torch.dtype
        The dtype the packed words are stored in: float64 keeps them, float32 rounds them to 24
        significant bits (the negative control).
    words : int
        Random words per :math:`B` (``seed``).
    seed : int
        Seed of the words.

    Returns
    -------
    RateCheck
        ``measured`` is the number of wrong digits over all words, required ``<= 0``; the fit is the
        depth :math:`2B` of the extraction network against :math:`B` (slope 1).

    Notes
    -----
    The words are packed by :func:`pack_bits` and read by :func:`bit_extract` in float64.

    Examples
    --------
    >>> from nnproofs import korobov
    >>> korobov.check_bit_extraction([8, 16], words=100).verdict
    'PASSED'
    """
    require_length("bits", bits, MAX_BITS[torch.float64])
    bits = int_list("bits", bits)
    if len(set(bits)) < 2:
        raise ValueError(f"bits needs at least two distinct word lengths B (the depth 2B is fitted against B), "
                         f"got {bits}")
    if max(bits) > MAX_BITS[torch.float64]:
        raise ValueError(f"bits must be <= 53 (float64 words), got {max(bits)}")
    if not isinstance(storage, torch.dtype) or storage not in MAX_BITS:
        raise ValueError(f"storage={storage} is not allowed; use torch.float64 or torch.float32")
    require_count("words", words, bytes_each=8 * 4 * max(bits))  # digits, packed words and two layers, float64
    nonnegative_int("seed", seed)
    device = book_device.device()
    generator = torch.Generator(device=device).manual_seed(seed)
    wrong = []
    for b in bits:
        digits = torch.randint(0, 2, (words, b), generator=generator, device=device).to(torch.float64)
        stored = pack_bits(digits).to(storage).to(torch.float64).clamp(max=1 - 2.0**-b)  # a word rounded up to 1
        wrong.append(int((bit_extract(stored, b) != digits).sum()))
    return rate_check(
        f"bit extraction, words stored in {str(storage)[6:]}",
        bits,
        [2.0 * b for b in bits],
        expected=0.0,
        tolerance=0.0,
        sense="<=",
        measured=float(sum(wrong)),
        quantity="wrong digits over all words",
        requirements={f"every digit of {words} random words recovered for B = {b}": w == 0 for b, w in zip(bits, wrong)},
        notes={"B": bits, "wrong digits": wrong, "depth 2B": [2 * b for b in bits], "storage": str(storage)},
    )



NORMS = ERROR_NORMS  # L2, Linf, H1 (nnproofs.measure.interpolation_error)
SAMPLES = 20000  # Monte Carlo points for L2 / H1 and the starts of the refined maximum for Linf
MIN_SAMPLES = 256  # fewer: a Monte Carlo error (or the half sample of the L_inf convergence test) is not a measurement
RATIO_WINDOW = 3  # the claim's ratio is the smallest over the last three levels (a single jump cannot carry it)
RATIO_MARGIN = 0.1  # relative to the expected ratio: Monte Carlo noise and the sample maximum
INTERPOLATION_RTOL = 1e-12
RESOLUTION = ("exact: every linear piece of the product is enumerated and |P − ab| is maximised on its edges; "
              "kinks closer than 1e-12 of a piece's range merge")
CONVERGED = 0.01  # the refinement may move a sampled supremum by at most 1%, else INCONCLUSIVE
MAX_TERMS = 1 << 24  # samples x level multi-indices held at once (128 MiB) when one grid's terms serve every level


def _values_at_x(values: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    """A model that returns ``values``, computed already at the sample of :func:`check_sparse_grid_levels`."""
    return lambda _x: values


LINF_STARTS = 1024  # sampled points of largest error refined by a pattern search (L_inf); 64 left the halves of
#                     the sample 2-3% apart on korobov_example(2), level 9 (tests/test_korobov_class.py)
LINF_ROUNDS = 14  # rounds of the pattern search: steps 2^-(n-2), 2^-(n-1), ... around each start


def _refined_sup(interpolant: SparseGridInterpolant, f: Callable, x: torch.Tensor, error: torch.Tensor) -> float:
    """:math:`\\max|f - I_n f|` after a pattern search from the ``LINF_STARTS`` sampled points of largest error.

    Each round evaluates the start and the points at :math:`\\pm` the step along each axis and the diagonal
    (:math:`2d + 3`), moves the start to the largest, and halves the step (from four finest cells,
    :math:`2^{2-n}`): a lower bound of the supremum that converges to a local maximum near each start, which
    a sample maximum does not (rule 11).
    """
    d = interpolant.d
    starts = x[error.topk(min(LINF_STARTS, x.shape[0])).indices]
    best = error.topk(min(LINF_STARTS, x.shape[0])).values
    eye = torch.eye(d, dtype=torch.float64)
    ones = torch.ones(1, d, dtype=torch.float64)
    pattern = torch.cat([0 * ones, eye, -eye, ones, -ones])  # the start, +-step per axis and along the diagonal
    step = 2.0 ** (2 - interpolant.level)
    for _ in range(LINF_ROUNDS):
        trial = (starts[:, None, :] + step * pattern.to(x.device)).clamp(0, 1).reshape(-1, d)
        values = (interpolant(trial) - evaluate_target(f, trial)).abs().reshape(starts.shape[0], -1)
        top, index = values.max(1)
        better = top > best
        starts = torch.where(better[:, None], trial.reshape(starts.shape[0], -1, d)[torch.arange(starts.shape[0]),
                                                                                    index], starts)
        best = torch.maximum(best, top)
        step /= 2
    return float(best.max())


def _from_data(interpolant) -> SparseGridInterpolant:
    """A plain :class:`SparseGridInterpolant` holding the data (surpluses, points, levels) of what ``build``
    returned: the check evaluates the hat basis with those surpluses, never a subclass's methods (rule 9)."""
    if not isinstance(interpolant, SparseGridInterpolant):
        raise TypeError(f"build must return a SparseGridInterpolant, got {type(interpolant).__name__}")
    data = {field.name: getattr(interpolant, field.name) for field in dataclasses.fields(SparseGridInterpolant)}
    if not all(isinstance(value, torch.Tensor) for key, value in data.items() if key not in ("d", "level", "degree")):
        raise TypeError("build must return a SparseGridInterpolant whose data are tensors")
    return SparseGridInterpolant(**data)


def _is_grid_of_level(interpolant: SparseGridInterpolant, n: int, d: int) -> bool:
    """Whether ``interpolant`` holds the level-``n`` sparse grid, counted on its own points (rule 9): each point is
    :math:`\\mathbf i/2^{\\mathbf l}` with odd :math:`\\mathbf i` and :math:`|\\mathbf l|_1 \\le n + d - 1`, and there are
    :math:`N(n, d)` distinct ones (all the points of that form)."""
    lv, idx, pts = (t.detach().cpu() for t in (interpolant.point_levels, interpolant.point_indices, interpolant.points))
    if interpolant.d != d or pts.ndim != 2 or pts.shape[1] != d or lv.shape != pts.shape or idx.shape != pts.shape:
        return False
    lv, idx = lv.to(torch.int64), idx.to(torch.int64)
    of_form = bool(((lv >= 1).all() & (lv.sum(1) <= n + d - 1).all() & (idx % 2 == 1).all()
                    & (idx < 2**lv).all()) and torch.equal(pts.to(torch.float64), idx / 2.0**lv))
    return (of_form and int(torch.unique(pts, dim=0).shape[0]) == pts.shape[0] == sparse_grid_size(n, d)
            and interpolant.levels.shape[0] == math.comb(n + d - 1, d))


def _enough(name: str, samples: int) -> None:
    if samples < MIN_SAMPLES:
        raise ValueError(f"{name}={samples} is too few: the sampled errors need at least {MIN_SAMPLES} points")


@steady
def check_sparse_grid_levels(f: Callable[[torch.Tensor], torch.Tensor], *, d: int, levels: Sequence[int],
                             norm: str = "L2", degree: int = 1, samples: int = SAMPLES,
                             build: Callable[..., SparseGridInterpolant] = sparse_grid_interpolant,
                             seed: int = 0) -> RateCheck:
    """Theorem ``thm-sparse-grid-interp`` level by level: the error falls by a factor :math:`2^{p+1}` per level.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 points in :math:`[0, 1]^d` to ``(n,)`` values, zero on the boundary.
    d : int
        Dimension.
    levels : sequence of int
        At least two strictly increasing levels :math:`n`.
    norm : {"L2", "Linf", "H1"}
        The error measured; the expected ratio per level is :math:`2^{p+1}` in :math:`L_2` and
        :math:`L_\\infty`, :math:`2^p` in :math:`H^1`.
    degree : {1, 2}
        :math:`p`: hats or the quadratic basis; the class read is :math:`X^{p+1}`.
    samples : int
        Uniform random points of the measurement (``seed``), at least :data:`MIN_SAMPLES`.
    build : callable
        Replaces :func:`sparse_grid_interpolant` (negative controls); its data are evaluated through the
        plain basis, never its methods.
    seed : int
        Seed of the sample.

    Returns
    -------
    RateCheck
        ``measured`` is the smallest ratio per level over the last three levels, tested one-sided
        (at least the expected ratio minus the tolerance). Requirements: :math:`I_n f = f` at the grid
        points (relative ``1e-12``), every error above float64 round-off, and the class readings of
        :func:`~nnproofs.korobov.read_class` with :math:`m = p + 1`, of :math:`X^m_2` for the :math:`L_2` and
        :math:`H^1` errors and of :math:`X^m_\\infty` for :math:`L_\\infty` (the theorem's classes).

    Notes
    -----
    The tolerance is the deficit :math:`2^{p+1}[1 - (n_0/(n_0+1))^{d-1}]` that the factor :math:`n^{d-1}`
    causes at the window's first level :math:`n_0`, plus 10% (:math:`H^1`: 10%). Pre-asymptotic data
    (surpluses alone failing, or ratios rising to the rate) give INCONCLUSIVE, never PASSED. The
    calibration and the resolution of the readings: the chapter's section "How the checks decide" and
    ``tests/test_korobov_class.py``. Budget: ``samples`` × 64 (d + 1) bytes, ``MAX_POINTS`` per grid.

    Examples
    --------
    >>> from nnproofs import korobov
    >>> f = korobov.korobov_example(2)
    >>> korobov.check_sparse_grid_levels(f, d=2, levels=[5, 6, 7, 8], samples=5000).verdict
    'PASSED'
    """
    d = require_reading(f, d)
    require_length("levels", levels, MAX_POINTS.bit_length())
    levels = int_list("levels", levels)
    if levels != sorted(set(levels)) or len(levels) < 2:
        raise ValueError(f"levels must be at least two strictly increasing levels, got {levels}")
    if levels[-1] > MAX_POINTS.bit_length() or levels[-1] * d > MAX_LEVEL_INDICES:
        raise ValueError(f"levels={levels} in d={d}: the finest grid would exceed {MAX_POINTS} points or "
                         f"{MAX_LEVEL_INDICES} level multi-indices; lower the levels")
    if norm not in NORMS:
        raise ValueError(f"norm={norm!r} is not allowed; use one of {', '.join(NORMS)}")
    require_count("samples", samples, bytes_each=8 * 8 * (d + 1))  # points, values, gradients, temporaries
    _enough("samples", samples)
    nonnegative_int("seed", seed)
    x = uniform_points(samples, d, seed=seed)
    f_values = evaluate_target(f, x)
    f_gradient = target_gradient(f, x) if norm == "H1" else None
    if not callable(build):
        raise TypeError(f"build must be a callable like sparse_grid_interpolant, got {type(build).__name__}")
    try:
        interpolants = [build(f, d=d, level=n, degree=degree) for n in levels]
    except (TypeError, ValueError) as error:
        raise type(error)(f"build(f, d={d}, level=..., degree={degree}) failed: {error}") from error
    interpolants = [_from_data(interpolant) for interpolant in interpolants]
    finest = interpolants[-1]
    if norm == "Linf":  # the refinement: two pattern searches per level, each point costs about 8 d K multiply-adds
        budget.refuse_beyond("levels", levels, cost=2 * LINF_STARTS * (2 * d + 3) * LINF_ROUNDS * 8 * d * sum(
            int(i.levels.shape[0]) for i in interpolants), limit=budget.work(), unit="multiply-adds")
    # Values: the finest grid's terms once, prefix sums for every grid that is its restriction (all of them, unless
    # ``build`` makes the surpluses depend on the level); H1 and very large samples evaluate each grid.
    terms = (finest.level_terms(x) if norm != "H1" and samples * finest.levels.shape[0] <= MAX_TERMS else None)
    errors, points, reproduction, unconverged = [], [], [], []
    for interpolant in interpolants:
        model = interpolant
        if terms is not None and interpolant.restricts(finest):
            model = _values_at_x(terms[:, : interpolant.levels.shape[0]].sum(-1))
        if norm == "Linf":  # the sample maximum of half the sample and of all of it, refined (rule 11)
            error = (model(x) - f_values).abs()
            refined = [_refined_sup(interpolant, f, x[part], error[part]) for part in (slice(0, samples // 2), slice(None))]
            errors.append(refined[1])
            unconverged.append(abs(refined[1] - refined[0]) > CONVERGED * refined[1])
        else:
            errors.append(interpolation_error(model, f, x, norm, f_values=f_values, f_gradient=f_gradient))
        points.append(interpolant.num_points)
        grid_values = evaluate_target(f, interpolant.points)
        scale = max(float(grid_values.abs().max()), 2.0**-1022)  # relative, as for c·f
        reproduction.append(float((interpolant(interpolant.points) - grid_values).abs().max()) / scale)
    resolution = roundoff_floor(float(f_values.abs().max()))
    resolved = [max(e, resolution) for e in errors]  # an error below round-off is not a measurement
    ratios = [(resolved[k - 1] / resolved[k]) ** (1.0 / (levels[k] - levels[k - 1])) for k in range(1, len(levels))]
    window = ratios[-RATIO_WINDOW:]
    expected = 2.0 ** (degree if norm == "H1" else degree + 1)
    n0 = levels[-len(window)]
    log_deficit = 0.0 if norm == "H1" else expected * (1 - (n0 / (n0 + 1)) ** (d - 1))
    tolerance = log_deficit + RATIO_MARGIN * expected
    reading = read_class(f, d=d, m=degree + 1, interpolant=finest, p=math.inf if norm == "Linf" else 2)
    requirements = {
        "build returns the sparse grid of each level n: N(n, d) distinct points i/2^l, i odd, |l|_1 <= n + d − 1 "
        "(counted on the returned grid)": all(_is_grid_of_level(i, n, d) for i, n in zip(interpolants, levels)),
        f"I_n f = f at the grid points (relative {INTERPOLATION_RTOL:g}) at every level": all(
            r <= INTERPOLATION_RTOL for r in reproduction),
        "every error is resolved above round-off (> 100·2^-52·max|f|)": min(errors) > resolution,
        **reading.requirements,
    }
    measured = min(window)
    noise = 2 * CONVERGED if norm == "Linf" else 0.0  # each refined L_inf error is settled to 1%: a ratio to 2%
    rising = len(window) > 1 and window[-1] > window[0] and all(b > a * (1 - noise) for a, b in zip(window, window[1:]))
    rate_pending = (f"pre-asymptotic: the ratios {[round(r, 2) for r in window]} rise (to the noise) and the last "
                    f"meets the rate; raise the levels"
                    if rising and window[-1] >= expected - tolerance else "")
    inconclusive = verdict(requirements, reading, measured >= expected - tolerance, rate_pending)
    if any(unconverged) and (inconclusive or all(requirements.values())):
        moved = [n for n, u in zip(levels, unconverged) if u]
        inconclusive = "; ".join(r for r in (f"the refined L_inf error moved by more than {CONVERGED:.0%} from half "
                                             f"the sample to all of it at levels {moved}", inconclusive) if r)
    return rate_check(
        f"sparse-grid interpolation, degree {degree}, d = {d}, {norm} error per level",
        points,
        resolved,
        expected=expected,
        tolerance=tolerance,
        sense=">=",
        measured=measured,
        quantity=f"smallest {norm} error ratio per level over the last {len(window)} levels",
        requirements=requirements,
        inconclusive=inconclusive,
        notes={"levels": levels, "points N": points, "errors": errors, "ratios per level": ratios,
               **reading.notes,
               "tolerance": f"{log_deficit:.3g} (factor n^(d-1) at level {n0}) + {RATIO_MARGIN * expected:.3g}",
               "samples": samples},
    )


@steady
def check_relu_sparse_grid_network(f: Callable, *, d: int, level: int, ss: Sequence[int],
                                   product: Callable[[int], nn.Module] = yarotsky_product,
                                   samples: int = 2000) -> RateCheck:
    """Network A against its interpolant: :math:`\\sup|\\Phi_s - I_n f| \\le \\#\\text{levels}\\max|v|(d-1)2^{-2s}`.

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 points to ``(n,)`` values, vanishing on the boundary.
    d : int
        Dimension, at least 2 (in one dimension Network A is exact).
    level : int
        Level :math:`n` of the sparse grid.
    ss : sequence of int
        At least two distinct depths :math:`s` of the products.
    product : callable, optional
        ``s -> nn.Sequential``, a ReLU network of two inputs; default Yarotsky's :math:`\\tilde\\times_s`.
    samples : int, optional
        Random points on which :math:`|\\Phi_s - I_n f|` is measured, at least :data:`MIN_SAMPLES`.

    Returns
    -------
    RateCheck
        ``measured`` is the slope of :math:`\\sup|\\Phi_s - I_n f|` against :math:`2^s` (at most
        :math:`-2 + 0.3`); the requirements are the bound at every ``s`` and what it rests on, read
        from the product's own network: zero preservation and :math:`\\sup|P(a, b) - ab| \\le 4^{-s}`.

    Notes
    -----
    Zero preservation is read exactly from the weights
    (:func:`~nnproofs.korobov.network_a.zero_preserving`), the product's error exactly on every
    linear piece (:func:`~nnproofs.korobov.network_a.product_error`): no defect of the product is
    too small to be seen. How this decides: the chapter's section "How the checks decide".

    Examples
    --------
    >>> from nnproofs import korobov
    >>> check = korobov.check_relu_sparse_grid_network(korobov.basis_sum_target(2, 3), d=2, level=3, ss=[3, 5])
    >>> check.verdict
    'PASSED'
    """
    d = require_reading(f, d)
    if d < 2:
        raise ValueError(f"d={d}: in one dimension Network A is exact (no products); use d >= 2")
    require_length("ss", ss, MAX_PRODUCT_DEPTH)
    ss = [require_product_depth(f"ss[{i}]", s) for i, s in enumerate(int_list("ss", ss))]
    if len(set(ss)) < 2:
        raise ValueError(f"ss needs at least two distinct product depths, got {ss}")
    require_count("samples", samples, bytes_each=8 * 64 * d)
    _enough("samples", samples)
    interpolant = sparse_grid_interpolant(f, d=d, level=level)
    template = (8 * d) ** 2 * (1 + math.ceil(math.log2(d)) * (max(ss) + 1))  # parameters of one copy, at most
    budget.refuse_beyond("samples", samples, cost=samples * interpolant.num_points * template * len(ss),
                         limit=budget.work(), unit="multiply-adds")
    pieces = [4**s * template for s in ss]  # Yarotsky's product has 4^s / 2 linear pieces
    budget.refuse_beyond("ss", ss, cost=sum(pieces), limit=budget.work(), unit="multiply-adds")
    x = uniform_points(samples, d, seed=1)
    reference = interpolant(x)
    distances, bounds, shapes, zero, errors = [], [], [], [], []
    for s in ss:
        network = relu_sparse_grid_network(interpolant, s=s, product=product)  # calls product(s) once
        with torch.no_grad():
            distances.append(float((network(x) - reference).abs().max()))  # every copy unless proven inactive
        zero.append(network.zero_preserving)
        errors.append(product_error(network.product) if network.zero_preserving else None)  # None: FAILED already
        bounds.append(network.error_bound)
        shapes.append((network.width, network.depth, network.nonzero_parameters))
    requirements = {
        "the product is zero-preserving, read from its weights (every breakpoint of P(a, 0) and P(0, b))": all(zero),
        "sup|P(a, b) − ab| <= 4^(−s) (+ round-off), the bound's error per product, on every linear piece of a "
        "zero-preserving product":
            all(e <= 4.0**-s + ROUNDING for e, s in zip(errors, ss) if e is not None),
        "sup|network − interpolant| <= #levels·max|v|·(d−1)·2^(−2s) for every s on the samples": all(
            dist <= bound for dist, bound in zip(distances, bounds)),
    }
    return rate_check(
        f"Network A (d = {d}, level {level}) against the sparse-grid interpolant",
        [2.0**s for s in ss],
        distances,
        expected=-2.0,
        tolerance=0.3,
        sense="<=",
        quantity="slope of sup|network − interpolant| against 2^s",
        requirements=requirements,
        notes={"s": ss, "distance": distances, "bound": bounds,
               "sup|P(a, b) − ab|·4^s": [
                   None if e is None else e * 4.0**s for e, s in zip(errors, ss)],
               **({"None": "the product is not zero-preserving (FAILED already): its error is not read"}
                  if None in errors else {}),
               "(width, depth, nonzero parameters)": shapes,
               "grid points": interpolant.num_points, "levels": int(interpolant.levels.shape[0]),
               "resolution": RESOLUTION},
    )

