"""Reading the class of Theorem ``thm-constant-depth`` off the target: is ``f`` in ``C^{k+1}``?

Two independent estimators of the Hölder exponent ``α`` of a function ``g`` on ``[0, 1]``, the less favourable
deciding:

* :func:`chebyshev_smoothness`: the Chebyshev coefficients of ``|x - a|^α`` decay like ``n^{-α-1}``, those of an
  analytic ``g`` geometrically, down to round-off;
* :func:`interpolation_smoothness`: the sup error of ``g``'s own piecewise-polynomial interpolant of degree
  :data:`INTERPOLATION_DEGREE` on dyadic meshes of side ``h = 2^{-j}`` falls like ``h^{min(α, 6)}``; the cell that
  holds a singularity decides, so a singularity at an end of ``[0, 1]`` is seen at its true exponent and a small one
  under a large offset or smooth part is seen once the smooth part's error has fallen below it.

Each gives an :class:`ExponentReading`: an exponent, ``inf`` (coefficients that reach round-off geometrically, or
errors at round-off on every mesh), or *unread* (round-off reached without such evidence). :func:`read_class`
combines them, along the line ``[0, 1]`` in ``d = 1`` and along :func:`lines` (axes, edges, diagonals, radial lines
through the centre) in ``d = 2``: out of the class when any reading lies below ``k + 1 - CLASS_MARGIN``, unread when
any is unread, in the class otherwise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from . import gadgets as sg
from .inputs import degree, device_of, dimension, target

EPS = sg.EPS
CHEBYSHEV_DEGREE = 1024  # degree of the Chebyshev interpolant on [0, 1] from which chebyshev_smoothness reads g
MIN_COEFFICIENTS = 4  # the envelope is read when at least 4 degrees of its last TAIL_SPAN above round-off do
TAIL_SPAN = 4  # the Chebyshev exponent is fitted over the degrees n_max/4..n_max, n_max the last above round-off
GEOMETRIC_DECADES = 6  # "analytic" needs coefficients that fall 6 decades below the half-oscillation to round-off
INTERPOLATION_DEGREE = 5  # local degree of the dyadic interpolants: errors h^min(α, 6)
MESHES = {1: range(2, 16), 2: range(2, 12)}  # dyadic meshes h = 2^-j read in d = 1 and along each line in d = 2
MESH_SHIFTS = (0.0, 0.25, 0.5, 0.75)  # each mesh also shifted by these fractions of h: the max over the shifts
#                                       sees a singularity at any position in its cell (not only near a node)
END_WINDOWS = (2, 4)  # the exponent is the smaller of the least-squares fits over the last 2 and 4 intervals read
SETTLED = 0.2  # the last local exponent of the interpolation errors may lie at most this below the one before; beyond,
#                the errors are read as a smooth part (h^6) over a singular part (h^β) still emerging, β solved from
#                the last three errors, and a β below the class leaves the class unread (the exponent has not settled)
RESOLUTION_PLACES = (0.0, 0.5 + 0.1180)  # an end and an interior place of the unit singular part of _resolution
RESOLUTION_STEP = 0.1  # the amplitude resolution is measured for β = k + 1 - CLASS_MARGIN down to RESOLUTION_LOW
RESOLUTION_LOW = 0.4  # ... k + 0.4, in steps of 0.1. Lower, the least visible place (an end, where |t|^β nears a
#                       polynomial) paired with the worst local fit (inside a cell) overstates what hides: 1e6 + sin 3x
#                       at k = 1 would be inconclusive at β = k + 0.1 (4.8% of an error), at most 0.9% down to k + 0.4
CLASS_MARGIN = 0.2  # f is read in the class when every exponent is >= k + 1 - 0.2; see tests/test_smooth_class.py:
#                     exponents k + 1 - 0.3 are read below it (ends, interior, under smooth parts and offsets)

_SAMPLES = np.concatenate([[0.0], (np.arange(8) + (math.sqrt(5.0) - 1.0) / 2.0) / 8.0, [1.0]])

_NODES = (1.0 - np.cos(np.pi * (np.arange(INTERPOLATION_DEGREE + 1) + 0.5) / (INTERPOLATION_DEGREE + 1))) / 2.0


def _lagrange() -> np.ndarray:
    out = np.ones((_SAMPLES.size, _NODES.size))
    for i in range(_NODES.size):
        for j in range(_NODES.size):
            if j != i:
                out[:, i] *= (_SAMPLES - _NODES[j]) / (_NODES[i] - _NODES[j])
    return out


_LAGRANGE = _lagrange()


@dataclass(frozen=True)
class ExponentReading:
    """One estimator's reading of the Hölder exponent of ``f`` on a segment.

    Parameters
    ----------
    exponent : float or None
        The exponent read; ``inf`` when the evidence says smooth beyond what is read, ``None`` when unread.
    status : str
        ``"read"``, ``"analytic"`` or ``"unread"``.
    why : str
        One line: what the estimator saw.

    Returns
    -------
    ExponentReading
        A frozen record; ``read`` is false only when unread.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> round(smooth.interpolation_smoothness(smooth.holder_target(1.5)).exponent, 1)
    1.5

    Notes
    -----
    Made by :func:`chebyshev_smoothness` and :func:`interpolation_smoothness`.
    """

    exponent: float | None
    status: str
    why: str
    unconverged: bool = False  # Chebyshev: coefficients still above round-off at the last degree read
    settles_to: float | None = None  # interpolation, last exponents flattening by > SETTLED: the emerging part's β

    @property
    def read(self) -> bool:
        return self.status != "unread"


@dataclass(frozen=True)
class ClassReading:
    """The class of ``f`` as :func:`read_class` reads it.

    Parameters
    ----------
    exponent : float or None
        The least Hölder exponent read over every line and estimator (``None`` when nothing was read).
    in_class : bool or None
        ``True`` (in ``C^{k+1}`` as far as the readings see), ``False`` (an exponent below the class), ``None`` (unread).
    readings : dict
        One :class:`ExponentReading` per line and estimator.
    why : str
        Why the class is unread (empty when read).
    resolution : float
        The amplitude ``c`` down to which a singular part ``c|x - a|^β`` is seen (:func:`read_class`).
    beta : float
        The exponent ``β = k + 1 - CLASS_MARGIN`` at which ``resolution`` is measured.
    resolutions : tuple of (float, float)
        ``(β, c)`` for every ``β`` of :func:`resolution_exponents`.

    Returns
    -------
    ClassReading
        A frozen record.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.read_class(smooth.holder_target(1.5), k=1).in_class
    False

    Notes
    -----
    A singular part below ``resolution`` can hide; the rate check says when one could matter.
    """

    exponent: float | None
    in_class: bool | None
    readings: dict = field(default_factory=dict)
    why: str = ""
    resolution: float = math.inf
    beta: float = math.nan
    resolutions: tuple = ()


def _values(g: Callable[[np.ndarray], np.ndarray], t: np.ndarray) -> np.ndarray:
    y = g(t)
    if not np.isfinite(y).all():
        raise ValueError(f"f returned a non-finite value at t = {float(t[~np.isfinite(y)][0]):.6g} on [0, 1]")
    return y


def _chebyshev(g: Callable[[np.ndarray], np.ndarray]) -> ExponentReading:
    t = np.polynomial.chebyshev.chebpts1(CHEBYSHEV_DEGREE + 1)
    y = _values(g, (t + 1) / 2)
    half = (y.max() - y.min()) / 2
    if half == 0:
        return ExponentReading(math.inf, "analytic", "constant")
    c = np.abs(np.polynomial.chebyshev.chebvander(t, CHEBYSHEV_DEGREE).T @ (y - y.min() - half)) * 2 / t.size
    envelope = np.maximum.accumulate(c[::-1])[::-1]
    n = np.unique(np.geomspace(2, CHEBYSHEV_DEGREE // 2, 64).astype(int))
    # round-off: each value rounds to ε max|g| (an offset included), a coefficient sums N + 1 of them: ~30 ε max|g|
    noise = 1e3 * EPS * np.abs(y).max()
    above = n[envelope[n] > noise]  # the envelope decreases: a run of the lowest degrees
    # the tail actually measured: the last factor TAIL_SPAN of degrees above round-off, wherever it lies. A smooth
    # part that reaches round-off by degree 12 no longer hides a small singularity whose algebraic tail stays
    # above round-off up to degree 60 (the reading of degrees N/16..N/2 alone read sin 3x + 1e-4|x - 0.2|^3.5 as
    # analytic); a tail that falls geometrically (log c_n linear in n) reads as analytic
    window = above[above * TAIL_SPAN >= above.max()] if above.size else above
    if window.size >= MIN_COEFFICIENTS:
        logs = np.log(envelope[window])
        algebraic = np.polyfit(np.log(window), logs, 1, full=True)
        geometric = np.polyfit(window.astype(float), logs, 1, full=True)
        if _residual(geometric) < _residual(algebraic):  # log c_n linear in n, not in log n: no singularity's tail
            return ExponentReading(math.inf, "analytic", f"coefficients fall geometrically into round-off over degrees"
                                   f" {window.min()}..{window.max()}")
        exponent = float(-1 - algebraic[0][0])
        return ExponentReading(exponent, "read", f"coefficients decay like n^{-exponent - 1:.2f} over degrees"
                               f" {window.min()}..{window.max()}", unconverged=bool(window.max() == n.max()))
    if noise <= 10.0 ** -GEOMETRIC_DECADES * half:
        return ExponentReading(math.inf, "analytic", f"coefficients reach round-off by degree {n[above.sum()]}")
    return ExponentReading(None, "unread", f"the coefficients sink into round-off ({noise:.1g}, an offset's share"
                           f" included) within {GEOMETRIC_DECADES} decades of the half-oscillation {half:.2g}")


def _residual(fit) -> float:
    """The sum of squared residuals of ``np.polyfit(..., full=True)`` (0 for an exact fit)."""
    return float(fit[1][0]) if len(fit[1]) else 0.0


def _interpolation(g: Callable[[np.ndarray], np.ndarray], meshes: range) -> ExponentReading:
    return _interpolation_reading(*_interpolation_errors(g, meshes), meshes)


def _interpolation_errors(g: Callable[[np.ndarray], np.ndarray], meshes: range, near: float | None = None):
    """The sup error of ``g``'s piecewise interpolant on every mesh (the max over :data:`MESH_SHIFTS`), ``max|g|``
    and the half-oscillation of ``g`` over the points sampled; with ``near``, over the cells within three cells of
    that point only (where a singular part placed there errs most)."""
    errors, top, low, high = [], 0.0, math.inf, -math.inf
    for j in meshes:
        n, worst = 2 ** j, 0.0
        for shift in MESH_SHIFTS:
            m = n if shift == 0 else n - 1
            cells = np.arange(m) if near is None else np.arange(max(0, int(near * n - shift) - 3),
                                                                 min(m, int(near * n - shift) + 4))
            left = (cells[:, None] + shift) / n
            y = _values(g, (left + _NODES[None, :] / n).ravel()).reshape(cells.size, -1)
            z = _values(g, (left + _SAMPLES[None, :] / n).ravel()).reshape(cells.size, -1)
            worst, top = max(worst, float(np.abs(y @ _LAGRANGE.T - z).max())), max(top, float(np.abs(z).max()))
            low, high = min(low, float(z.min())), max(high, float(z.max()))
        errors.append(worst)
    return np.maximum(np.array(errors), np.finfo(np.float64).tiny), top, (high - low) / 2


def _interpolation_reading(errors: np.ndarray, top: float, spread: float, meshes: range) -> ExponentReading:
    # values round to ε max|g|; the interpolant's Lebesgue constant is about 2
    noise = max(10 * EPS * top, np.finfo(np.float64).tiny)
    read = [i for i in range(len(errors) - 1) if errors[i + 1] >= 100 * noise]  # round-off moves slopes <= 0.03
    if not read:
        if spread == 0:
            return ExponentReading(math.inf, "analytic", "constant")
        if errors.max() < 100 * noise and 100 * noise <= 10.0 ** -GEOMETRIC_DECADES * spread:
            return ExponentReading(math.inf, "analytic", "interpolation errors at round-off on every mesh")
        return ExponentReading(None, "unread", f"the errors are at round-off ({100 * noise:.1g}) from the coarsest"
                               f" mesh on, within {GEOMETRIC_DECADES} decades of the half-oscillation {spread:.2g}")
    end = first = read[-1]
    while first - 1 in read:
        first -= 1
    window = list(range(first, end + 2))  # meshes of the contiguous run of intervals read at the end
    if len(window) < 3:
        slope = math.log2(errors[window[0]] / errors[window[-1]])
        if slope >= INTERPOLATION_DEGREE + 0.5:  # full order into round-off within one mesh: resolved
            return ExponentReading(math.inf, "analytic", f"interpolation errors fall like h^{slope:.1f} into round-off")
        return ExponentReading(None, "unread", f"one interval of meshes above round-off (h = 2^-{meshes[end]})")
    logs, logh = np.log(errors[window]), np.array([meshes[i] for i in window]) * math.log(2.0)
    fits = [-np.polyfit(logh[-w - 1:], logs[-w - 1:], 1)[0] for w in END_WINDOWS if len(window) > w] or \
        [-np.polyfit(logh, logs, 1)[0]]
    exponent = float(min(fits))
    last = -np.diff(logs[-3:]) / np.diff(logh[-3:])  # the last two local exponents
    emerging = _emerging(*errors[window[-3:]]) if last[0] - last[1] > SETTLED else None
    return ExponentReading(exponent, "read", f"interpolation errors fall like h^{exponent:.2f} down to h ="
                           f" 2^-{meshes[end + 1]}" + ("" if emerging is None else f"; the local exponents"
                           f" {last[0]:.2f}, {last[1]:.2f} still fall at the finest meshes read, as a part h^{emerging:.2f}"
                           " emerging under a smooth one would"), settles_to=emerging)


def _emerging(e1: float, e2: float, e3: float) -> float:
    """The exponent ``β`` of ``e_j = A 2^{-6j} + B 2^{-βj}`` through three errors on successive dyadic meshes (a
    smooth part at the interpolant's full order over a singular part): ``2^{-β} = (e_3 - u e_2)/(e_2 - u e_1)``,
    ``u = 2^{-6}``; ``inf`` when no such part fits (the errors fall at full order or faster)."""
    u = 2.0 ** -(INTERPOLATION_DEGREE + 1)
    v = (e3 - u * e2) / (e2 - u * e1) if e2 > u * e1 else 0.0
    return -math.log2(v) if v > 0 else math.inf


@functools.lru_cache(maxsize=128)
def _unit_errors(beta: float, d: int) -> np.ndarray:
    """The interpolation errors of a unit singular part ``|t - a|^β`` on the meshes of :data:`MESHES` ``[d]``, the
    least over its places ``a`` in :data:`RESOLUTION_PLACES` (an end, inside): the hardest to see."""
    return np.min([_interpolation_errors(lambda t, a=a: np.abs(t - a) ** beta, MESHES[d], near=a)[0]
                   for a in RESOLUTION_PLACES], axis=0)


def resolution_exponents(k: int) -> tuple:
    """The exponents ``β`` at which :func:`read_class` measures its amplitude resolution: ``k + 1 - CLASS_MARGIN``
    down to ``k +`` :data:`RESOLUTION_LOW` in steps of :data:`RESOLUTION_STEP`."""
    top = k + 1 - CLASS_MARGIN
    count = int(round((top - k - RESOLUTION_LOW) / RESOLUTION_STEP))
    return tuple(round(top - i * RESOLUTION_STEP, 10) for i in range(count + 1))


def _resolution(errors: np.ndarray, top: float, beta: float, d: int) -> float:
    """The amplitude resolution of the interpolation reading at exponent ``β``: ``min_j max(e_j, θ) / e_j(|t - a|^β)``
    over the meshes ``j``, ``θ = 1000 ε max|g|`` the reading's round-off threshold. A singular part ``c|t - a|^β``
    adds about ``c e_j(|t - a|^β)`` to the error on mesh ``j``; unless it cancels against the smooth part, one with
    ``c`` above this ratio stands above the errors and the threshold on some mesh, where the slope bends to ``β``
    and the reading reads it out; one below it can hide."""
    return float(np.min(np.maximum(errors, 1e3 * EPS * top) / _unit_errors(float(beta), d)))


@functools.lru_cache(maxsize=16)
def local_fit_error(k: int, beta: float) -> float:
    """``E_k(β)``: how much the construction's local fit of degree ``k`` errs on a unit singular part.

    Parameters
    ----------
    k : int
        The local degree (``k + 1`` Chebyshev points per cell).
    beta : float
        The exponent ``β`` of ``|t - a|^β``.

    Returns
    -------
    float
        The sup error on ``[0, 1]`` of the fit to ``|t - a|^β``, the largest over ``a`` in ``[-1/2, 3/2]``.

    Examples
    --------
    >>> from nnproofs.smooth.smoothness import local_fit_error
    >>> round(local_fit_error(3, 3.8), 4)
    0.0088

    Notes
    -----
    On a cell of side ``h`` the error is ``E_k(β) h^β``: the bound the rate check puts on what a singular part
    below the class reading's resolution can add to an error.
    """
    nodes = 0.5 - 0.5 * np.cos((2 * np.arange(k + 1) + 1) * np.pi / (2 * k + 2))
    t = np.linspace(0.0, 1.0, 2001)
    worst = 0.0
    for a in np.linspace(-0.5, 1.5, 201):
        coefficients = np.polynomial.polynomial.polyfit(nodes, np.abs(nodes - a) ** beta, k)
        worst = max(worst, float(np.abs(np.polynomial.polynomial.polyval(t, coefficients) - np.abs(t - a) ** beta).max()))
    return worst


def _line(f: Callable, start, end, device) -> Callable[[np.ndarray], np.ndarray]:
    a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)

    def g(t: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(a[None, :] + t[:, None] * (b - a)[None, :], dtype=torch.float64, device=device)
        with torch.no_grad():
            return f(x).reshape(-1).detach().cpu().numpy()

    return g


def lines() -> dict:
    """The segments along which :func:`read_class` reads ``f`` in ``d = 2``: name -> (start, end)."""
    out = {}
    for c in (0.0, 0.382, 0.618, 1.0):
        out[f"x₂ = {c:g}"] = ((0.0, c), (1.0, c))
        out[f"x₁ = {c:g}"] = ((c, 0.0), (c, 1.0))
    out["diagonal"], out["anti-diagonal"] = ((0.0, 0.0), (1.0, 1.0)), ((0.0, 1.0), (1.0, 0.0))
    for angle in (22.5, 67.5, 112.5, 157.5):  # radial lines through the centre, between the axes and diagonals
        u = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        reach = 0.5 / np.abs(u).max()
        out[f"radial {angle:g}°"] = (tuple(0.5 - reach * u), tuple(0.5 + reach * u))
    return out


def chebyshev_smoothness(f: Callable, device=None) -> ExponentReading:
    """The Hölder exponent of ``f`` on ``[0, 1]`` from the tail of its Chebyshev coefficients.

    Parameters
    ----------
    f : callable
        The target, ``(n, 1)`` float64 tensor to ``(n,)``.
    device : str or torch.device, optional
        Where to evaluate ``f`` (default ``BOOK_DEVICE``).

    Returns
    -------
    ExponentReading
        Over the last factor :data:`TAIL_SPAN` of degrees above round-off (``1e3 ε max|f|``), when at least
        :data:`MIN_COEFFICIENTS` lie there: ``inf`` when the log of the decreasing envelope is fitted better by a
        line in ``n`` (geometric decay) than in ``log n``, else ``α̂ = -1 - s`` for its slope ``s`` against
        ``log n``. When fewer lie there: ``inf`` if round-off lies :data:`GEOMETRIC_DECADES` decades below the
        half-oscillation, unread otherwise.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> round(smooth.chebyshev_smoothness(smooth.holder_target(2.5)).exponent)
    2

    Notes
    -----
    The tail is read wherever it lies, so a small singularity under a smooth part that reaches round-off early is
    seen. A singularity at an end of ``[0, 1]`` reads about twice its exponent: :func:`interpolation_smoothness`
    sees it.
    """
    device = device_of(device)
    return _chebyshev(_line(target(f, 1, device), (0.0,), (1.0,), device))


def interpolation_smoothness(f: Callable, device=None) -> ExponentReading:
    """The Hölder exponent of ``f`` on ``[0, 1]`` from the errors of its piecewise interpolants.

    Parameters
    ----------
    f : callable
        The target, ``(n, 1)`` float64 tensor to ``(n,)``.
    device : str or torch.device, optional
        Where to evaluate ``f`` (default ``BOOK_DEVICE``).

    Returns
    -------
    ExponentReading
        The smaller fitted slope of ``log e_j`` against ``log h`` over the last 2 and 4 intervals of meshes read
        (errors at least ``1000 ε max|f|``); ``inf`` when the errors fall at full order into round-off; unread
        otherwise.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> round(smooth.interpolation_smoothness(smooth.holder_target(2.5)).exponent, 1)
    2.5

    Notes
    -----
    Degree :data:`INTERPOLATION_DEGREE` (Chebyshev nodes per cell) on dyadic meshes ``h = 2^{-j}``, ``j`` in
    :data:`MESHES`, each shifted by :data:`MESH_SHIFTS`: a singularity at an end is read at its true exponent.
    Budget: about ``4 · 14 · 2^16`` evaluations of ``f`` (fixed).
    """
    device = device_of(device)
    return _interpolation(_line(target(f, 1, device), (0.0,), (1.0,), device), MESHES[1])


def _settled(reading: ExponentReading, least: float) -> ExponentReading:
    """The interpolation reading, or *unread* when it would read the class while its local exponents still fall at
    the finest meshes read (:data:`SETTLED`) towards an emerging part below ``least`` (rule 13)."""
    if not (reading.read and reading.settles_to is not None and reading.settles_to < least <= reading.exponent):
        return reading
    return ExponentReading(None, "unread", f"the exponent has not settled: {reading.why}")


def _unresolved(chebyshev: ExponentReading, interpolation: ExponentReading, least: float, d: int) -> ExponentReading:
    """The Chebyshev reading, or *unread* when it lies below ``least`` with coefficients still above round-off at its
    last degree while the dyadic meshes (finer than ``1/CHEBYSHEV_DEGREE``) read the class and an exponent larger by
    at least 1: a feature narrower than the degree resolves (``tanh(1000(x - 0.4))``), not an interior singularity,
    which both read near its exponent (rule 13). Unread only ever makes the verdict INCONCLUSIVE."""
    if not (chebyshev.read and chebyshev.unconverged and chebyshev.exponent < least and interpolation.read
            and interpolation.exponent >= max(least, chebyshev.exponent + 1)):
        return chebyshev
    return ExponentReading(None, "unread", f"degree {CHEBYSHEV_DEGREE} does not resolve f: its coefficients are"
                           f" still above round-off at the last degree read ({chebyshev.why}), while the interpolants"
                           f" on meshes down to h = 2^-{MESHES[d][-1]} read exponent {interpolation.exponent:.2f}; the"
                           " estimators disagree")


def read_class(f: Callable, *, k: int, d: int = 1, device=None) -> ClassReading:
    """Whether ``f`` is in ``C^{k+1}`` as far as both estimators can see (Theorem ``thm-constant-depth``'s class).

    Parameters
    ----------
    f : callable
        The target, ``(n, d)`` float64 tensor to ``(n,)``.
    k : int
        The local degree, ``0 <= k <= 3``: the class is ``C^{k+1}``.
    d : int
        1 (read along ``[0, 1]``) or 2 (along every segment of :func:`lines`).
    device : str or torch.device, optional
        Where to evaluate ``f`` (default ``BOOK_DEVICE``).

    Returns
    -------
    ClassReading
        ``in_class``: False when any exponent read (Chebyshev, interpolation) is below ``k + 1 -`` :data:`CLASS_MARGIN`,
        None (unread, with the reason in ``why``) when any estimator is unread, True otherwise; ``exponent``, the
        least exponent read; ``readings`` per line and estimator.

    Examples
    --------
    >>> from nnproofs import smooth
    >>> smooth.read_class(smooth.holder_target(2.7), k=2).in_class
    False

    Notes
    -----
    Resolution: exponents 0.3 short of the class are read out at every centre the tests try, ends and offsets
    included, for singular parts above the amplitude ``resolution`` reports (a smaller one under a smooth part may be
    read in the class); up to ``CLASS_MARGIN`` short can pass. In ``d = 2`` a singularity off every line is seen only through
    its restrictions (at distance ``δ`` from a line, smoothed at scale ``δ``).
    """
    k, d, device = degree(k), dimension(d), device_of(device)
    f = target(f, d, device)
    segments = {"[0, 1]": ((0.0,), (1.0,))} if d == 1 else lines()
    readings, least = {}, k + 1 - CLASS_MARGIN
    resolutions = dict.fromkeys(resolution_exponents(k), 0.0)
    for name, (start, end) in segments.items():
        g = _line(f, start, end, device)
        readings[f"{name}, Chebyshev"] = _chebyshev(g)
        errors, top, spread = _interpolation_errors(g, MESHES[d])
        interpolation = _interpolation_reading(errors, top, spread, MESHES[d])
        readings[f"{name}, interpolation"] = _settled(interpolation, least)
        readings[f"{name}, Chebyshev"] = _unresolved(readings[f"{name}, Chebyshev"], interpolation, least, d)
        for beta in resolutions:  # a singularity may cross one line only
            resolutions[beta] = max(resolutions[beta], _resolution(errors, top, beta, d))
    beta, resolution, resolutions = least, resolutions[least], tuple(resolutions.items())
    read = [r.exponent for r in readings.values() if r.read]
    exponent = min(read) if read else None
    if exponent is not None and exponent < k + 1 - CLASS_MARGIN:
        return ClassReading(exponent, False, readings, resolution=resolution, beta=beta, resolutions=resolutions)
    unread = [name for name, r in readings.items() if not r.read]
    if unread:
        return ClassReading(exponent, None, readings, f"the class is unread ({unread[0]}: {readings[unread[0]].why})",
                            resolution, beta, resolutions)
    return ClassReading(exponent, True, readings, resolution=resolution, beta=beta, resolutions=resolutions)
