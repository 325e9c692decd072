"""Regular sparse grids with zero boundary values: the hierarchical interpolant of chapter 2.

Notation of the chapter (:doc:`/book/02_korobov`), :math:`\\Omega = [0, 1]^d`:

* one-dimensional hierarchical basis of degree :math:`p`: for a level :math:`l \\ge 1` and an odd
  index :math:`i \\in I_l = \\{1, 3, \\dots, 2^l - 1\\}`,
  :math:`\\phi_{l,i}(x) = \\phi(2^l x - i)` with the hat :math:`\\phi(t) = \\max(1 - |t|, 0)`
  (:math:`p = 1`) or the bubble :math:`\\phi(t) = \\max(1 - t^2, 0)` (:math:`p = 2`, Bungartz's
  hierarchical quadratic basis: the parabola through the two ends of the support that is 1 at the
  grid point :math:`x_{l,i} = i 2^{-l}`);
* tensor products :math:`\\phi_{\\mathbf l, \\mathbf i}(x) = \\prod_{j=1}^d \\phi_{l_j, i_j}(x_j)`;
* the regular sparse grid of level :math:`n`: every level multi-index :math:`\\mathbf l \\ge \\mathbf 1`
  with :math:`|\\mathbf l|_1 \\le n + d - 1` and every :math:`\\mathbf i \\in I_{\\mathbf l}`, in all
  :math:`N(n, d) = \\sum_{k=0}^{n-1} 2^k \\binom{k+d-1}{d-1}` points (:func:`sparse_grid_size`);
  there are no boundary points, because a Korobov function vanishes on :math:`\\partial\\Omega`;
* the interpolant :math:`I_n f = \\sum_{\\mathbf l, \\mathbf i} v_{\\mathbf l, \\mathbf i}\\,
  \\phi_{\\mathbf l, \\mathbf i}`, equal to :math:`f` at every grid point. Its coefficients, the
  hierarchical surpluses, follow from the one-dimensional rule applied in each direction in turn
  (unidirectional principle, :math:`O(N d)` operations):

  .. math:: v_{l,i} = u(x_{l,i}) - \\tfrac12\\big(u(x_{l,i} - 2^{-l}) + u(x_{l,i} + 2^{-l})\\big)
            - 4^{-l} S_{\\text{parent}}, \\qquad S_{l,i} = S_{\\text{parent}} + 4^{l} v_{l,i},

  where :math:`u` are the values before the sweep (zero on the boundary) and the parent is the
  neighbour of level :math:`l - 1`. For hats :math:`S \\equiv 0` (the coarser interpolant is linear
  on the support); for bubbles the coarser interpolant is a quadratic there with second derivative
  :math:`-2 S_{\\text{parent}}`, which adds :math:`4^{-l} S_{\\text{parent}}` at the midpoint.

Evaluation uses that, on each level :math:`\\mathbf l`, exactly one basis function can be non-zero
at :math:`x`: the one of the cell :math:`c_j = \\lfloor 2^{l_j - 1} x_j \\rfloor`, index
:math:`i_j = 2 c_j + 1` (:meth:`SparseGridInterpolant.active_basis`). Levels are evaluated together
in chunks of points, with no Python loop over basis functions.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

import numpy as np
import torch

from .. import budget
from .. import device as book_device
from ..measure import evaluate_target
from ..validate import positive_int

__all__ = ["BOUNDARY_RTOL", "BOUNDARY_SAMPLES", "CHUNK_ELEMENTS", "DEGREES", "MAX_LEVEL_INDICES", "MAX_POINTS",
           "SparseGridInterpolant", "basis_1d", "basis_1d_derivative", "level_multi_indices", "sparse_grid_interpolant",
           "sparse_grid_size"]

DEGREES = (1, 2)
BOUNDARY_RTOL = 1e-12  # |f| on the boundary relative to max(1, max|f| on the grid): round-off, not a violation
BOUNDARY_SAMPLES = 16  # random points per face of the cube, besides the dyadic ones
CHUNK_ELEMENTS = 1 << 22  # points x levels x d entries evaluated at once
MAX_LEVEL_INDICES = 1 << 18  # level multi-indices C(n+d-1, d) enumerated at most (d = 8, n = 6: 1 287)
MAX_POINTS = 1 << 22  # grid points N(n, d) built at most (d = 2, n = 12: 45 057; d = 2, n = 18: 4 456 449 is refused)


def _require_level_and_d(level, d) -> tuple[int, int]:
    """``level`` and ``d`` as positive ints with :math:`n \\cdot d \\le` ``MAX_LEVEL_INDICES``: an exact count of
    the grid (a sum of :math:`n` binomials of up to :math:`n + d` bits) or one level multi-index (``d`` entries)
    beyond that is refused before anything is formed (the larger of the two is named)."""
    level, d = positive_int("level", level), positive_int("d", d)
    name, value = ("level", level) if level >= d else ("d", d)
    if level * d > MAX_LEVEL_INDICES:
        raise ValueError(f"{name}={value}: level × d = {level * d} is beyond what the grid's counts are formed for; "
                         f"allowed: level × d <= {MAX_LEVEL_INDICES} (level={level}, d={d})")
    return level, d


def sparse_grid_size(level: int, d: int) -> int:
    """:math:`N(n, d) = \\sum_{k=0}^{n-1} 2^k \\binom{k+d-1}{d-1}`, the points of the level-``n`` grid.

    Parameters
    ----------
    level : int
        The level :math:`n \\ge 1`.
    d : int
        Dimension.

    Returns
    -------
    int
        The exact number of grid points.

    Notes
    -----
    Budget: :math:`n d \\le` ``MAX_LEVEL_INDICES`` (refused before the sum is formed).

    Examples
    --------
    >>> sparse_grid_size(6, 4)
    2561
    """
    level, d = _require_level_and_d(level, d)
    return sum(2**k * math.comb(k + d - 1, d - 1) for k in range(level))


def level_multi_indices(level: int, d: int) -> np.ndarray:
    """All :math:`\\mathbf l \\in \\mathbb N^d`, :math:`l_j \\ge 1`, :math:`|\\mathbf l|_1 \\le n + d - 1`.

    Parameters
    ----------
    level, d : int
        As for :func:`sparse_grid_size`.

    Returns
    -------
    numpy.ndarray
        ``(C(n+d-1, d), d)`` int64, ordered by :math:`|\\mathbf l|_1`, then lexicographically.

    Notes
    -----
    Budget: at most ``MAX_LEVEL_INDICES`` rows, and :math:`n d \\le` ``MAX_LEVEL_INDICES``.

    Examples
    --------
    >>> level_multi_indices(2, 2).tolist()
    [[1, 1], [1, 2], [2, 1]]
    """
    level, d = _require_level_and_d(level, d)
    count = math.comb(level + d - 1, d)
    if count > MAX_LEVEL_INDICES:
        raise ValueError(f"level={level} in d={d} has C(n+d-1, d) = {count} level multi-indices; "
                         f"allowed: at most {MAX_LEVEL_INDICES} (lower the level or d)")
    rows = []
    for total in range(d, level + d):
        # compositions of `total` into d positive parts <-> d-1 cut points among total-1 gaps
        for cuts in itertools.combinations(range(1, total), d - 1):
            edges = (0, *cuts, total)
            rows.append([edges[j + 1] - edges[j] for j in range(d)])
    return np.asarray(rows, dtype=np.int64).reshape(-1, d)


@dataclasses.dataclass(frozen=True, eq=False)
class SparseGridInterpolant:
    """The hierarchical sparse-grid interpolant :math:`I_n f` (see the module docstring).

    Attributes: ``d``, ``level`` (:math:`n`), ``degree`` (:math:`p`), ``levels`` (the ``(K, d)``
    level multi-indices), ``points`` (``(N, d)`` grid points, grouped by level in the order of
    ``levels``), ``surpluses`` (``(N,)``), ``point_levels`` and ``point_indices`` (``(N, d)``:
    :math:`\\mathbf l` and :math:`\\mathbf i` of each point), ``offsets`` (``(K,)``: first point of
    each level) and ``strides`` (``(K, d)``: point of cell :math:`c` on level ``k`` is
    ``offsets[k] + (c * strides[k]).sum()``). Calling it on an ``(n, d)`` tensor in
    :math:`[0, 1]^d` returns ``(n,)`` values; :meth:`gradient` returns ``(n, d)``.
    """

    d: int
    level: int
    degree: int
    levels: torch.Tensor
    points: torch.Tensor
    surpluses: torch.Tensor
    point_levels: torch.Tensor
    point_indices: torch.Tensor
    offsets: torch.Tensor
    strides: torch.Tensor

    @property
    def num_points(self) -> int:
        """:math:`N`, the number of grid points (= basis functions)."""
        return int(self.points.shape[0])

    def active_basis(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """For every point and level, the one basis function whose support can contain the point.

        Returns ``(index, t)``: ``index`` ``(n, K)`` into ``points``/``surpluses`` and the local
        coordinates ``t`` ``(n, K, d)``, :math:`t_j = 2^{l_j} x_j - i_j \\in [-1, 1]` with
        :math:`i_j = 2\\lfloor 2^{l_j - 1} x_j \\rfloor + 1` (clamped to the last cell at
        :math:`x_j = 1`). Both are exact in floating point (scaling by powers of two, subtracting
        integers).
        """
        x = self.validate_points(x)
        cells, t = self._directions(x)
        columns = self._columns(x.device)
        local = torch.stack([t[j].index_select(1, columns[j]) for j in range(self.d)], dim=-1)
        return self._flat_index(cells, columns), local

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`I_n f(x) = \\sum_{\\mathbf l} v_{\\mathbf l, \\mathbf i(x)} \\prod_j \\phi(t_j)` for ``x`` ``(n, d)``."""
        x = self.validate_points(x)
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        surpluses = self.surpluses.to(device=x.device, dtype=x.dtype)
        columns = self._columns(x.device)
        for start, stop in self._chunks(x.shape[0]):
            out[start:stop] = self._terms(x[start:stop], surpluses, columns).sum(-1)
        return out

    def level_terms(self, x: torch.Tensor) -> torch.Tensor:
        """``(n, K)``: the term :math:`v_{\\mathbf l, \\mathbf i(x)} \\prod_j \\phi(t_j)` of every level multi-index; their sum is :math:`I_n f(x)`.

        The levels come ordered by :math:`|\\mathbf l|_1`, so the first :math:`\\binom{n'+d-1}{d}` columns summed
        give :math:`I_{n'} f(x)` for every :math:`n' \\le n` (surpluses do not depend on the level of the grid).
        """
        x = self.validate_points(x)
        surpluses = self.surpluses.to(device=x.device, dtype=x.dtype)
        columns = self._columns(x.device)
        return torch.cat([self._terms(x[start:stop], surpluses, columns) for start, stop in self._chunks(x.shape[0])])

    def restricts(self, finer: SparseGridInterpolant) -> bool:
        """Whether this interpolant is ``finer`` cut to its own levels (then its values are a prefix sum of ``finer.level_terms``)."""
        K, N = self.levels.shape[0], self.num_points
        return (self.d == finer.d and self.degree == finer.degree and K <= finer.levels.shape[0]
                and N <= finer.num_points and torch.equal(self.levels, finer.levels[:K])
                and torch.equal(self.offsets, finer.offsets[:K]) and torch.equal(self.strides, finer.strides[:K])
                and torch.equal(self.surpluses, finer.surpluses[:N]))

    def _terms(self, x: torch.Tensor, surpluses: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        """``(n, K)`` terms of :meth:`level_terms` for one chunk of points."""
        cells, t = self._directions(x)
        values = basis_1d(t, self.degree)
        product = values[0].index_select(1, columns[0])
        for j in range(1, self.d):
            product = product * values[j].index_select(1, columns[j])
        return surpluses[self._flat_index(cells, columns)] * product

    def gradient(self, x: torch.Tensor) -> torch.Tensor:
        """:math:`\\nabla I_n f(x)`, ``(n, d)``.

        :math:`\\partial_j I_n f = \\sum v\\, 2^{l_j} \\phi'(t_j) \\prod_{k \\ne j} \\phi(t_k)`, summed over the
        active basis functions.

        The interpolant is piecewise polynomial; on the measure-zero set of kinks the value is a
        convention (:math:`\\phi'(0) = 0` for hats, :math:`\\phi' = 0` at :math:`|t| = 1`).
        """
        x = self.validate_points(x)
        out = torch.empty_like(x)
        surpluses = self.surpluses.to(device=x.device, dtype=x.dtype)
        columns = self._columns(x.device)
        scale = torch.exp2(torch.arange(1, self.level + 1, dtype=x.dtype, device=x.device))  # 2^l, l = 1..n
        for start, stop in self._chunks(x.shape[0]):
            cells, t = self._directions(x[start:stop])
            values = basis_1d(t, self.degree)
            slopes = basis_1d_derivative(t, self.degree) * scale
            weights = surpluses[self._flat_index(cells, columns)]
            for j in range(self.d):
                term = weights * slopes[j].index_select(1, columns[j])
                for k in range(self.d):
                    if k != j:
                        term = term * values[k].index_select(1, columns[k])
                out[start:stop, j] = term.sum(-1)
        return out

    def _directions(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Cell :math:`c_j` and local coordinate :math:`t_j` per direction and 1-D level ``l = 1..n``: ``(d, n, level)``."""
        half = torch.exp2(torch.arange(self.level, dtype=x.dtype, device=x.device))  # 2^(l-1)
        xt = x.T.contiguous()[:, :, None]
        cells = torch.minimum(torch.floor(xt * half), half - 1)
        return cells, xt * (2 * half) - (2 * cells + 1)

    def _columns(self, device) -> torch.Tensor:
        """``(d, K)``: the 1-D level column ``l_j - 1`` of every level multi-index, per direction."""
        return (self.levels - 1).T.contiguous().to(device)

    def _flat_index(self, cells: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        """``offsets[k] + (c * strides[k]).sum()``, ``(n, K)``, from per-direction cells (exact in float64 below 2^53)."""
        strides = self.strides.T.to(device=cells.device, dtype=torch.float64)
        flat = cells[0].to(torch.float64).index_select(1, columns[0]) * strides[0]
        for j in range(1, self.d):
            flat = flat + cells[j].to(torch.float64).index_select(1, columns[j]) * strides[j]
        return flat.to(torch.int64) + self.offsets.to(cells.device)

    def validate_points(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` if it is a floating-point ``(n, d)`` tensor in :math:`[0, 1]^d`, else a TypeError/ValueError."""
        if not isinstance(x, torch.Tensor) or not torch.is_floating_point(x):
            raise TypeError(f"x must be a floating-point torch.Tensor of shape (n, {self.d}), got {type(x).__name__}")
        if x.ndim != 2 or x.shape[1] != self.d:
            raise ValueError(f"x must have shape (n, {self.d}), got {tuple(x.shape)}")
        if not bool(((x >= 0) & (x <= 1)).all()):
            raise ValueError(f"x must lie in [0, 1]^{self.d}; got values from {float(x.min())} to {float(x.max())}")
        return x

    def _chunks(self, n: int):
        size = max(1, CHUNK_ELEMENTS // (self.levels.shape[0] * self.d))
        return [(start, min(start + size, n)) for start in range(0, n, size)]


def basis_1d(t: torch.Tensor, degree: int) -> torch.Tensor:
    """The reference basis function at local coordinates ``t``: hat ``1 − |t|`` or bubble ``1 − t²``, clipped at 0."""
    if degree == 1:
        return torch.relu(1 - t.abs())
    return torch.relu(1 - t * t)


def basis_1d_derivative(t: torch.Tensor, degree: int) -> torch.Tensor:
    """The derivative in ``t`` of :func:`basis_1d` on the support ``|t| < 1`` (zero outside)."""
    inside = (t.abs() < 1).to(t.dtype)
    if degree == 1:
        return -torch.sign(t) * inside
    return -2 * t * inside


def sparse_grid_interpolant(f: Callable[[torch.Tensor], torch.Tensor], *, d: int, level: int, degree: int = 1
                            ) -> SparseGridInterpolant:
    """The regular sparse-grid interpolant :math:`I_n f` of level ``level`` in ``d`` dimensions.

    Parameters
    ----------
    f : callable
        Maps a float64 ``(n, d)`` tensor in :math:`[0, 1]^d` to ``(n,)`` values, zero on the boundary.
    d : int
        Dimension.
    level : int
        The level :math:`n`.
    degree : {1, 2}
        1: the hat basis (error :math:`O(2^{-2n} n^{d-1})` in :math:`L_2`); 2: the hierarchical quadratic
        basis (:math:`O(2^{-3n} n^{d-1})` for bounded mixed third derivatives).

    Returns
    -------
    SparseGridInterpolant
        Its surpluses are computed from :math:`f` at the :math:`N(n, d)` grid points (on the book's
        device), one direction at a time.

    Notes
    -----
    ``f`` is sampled on every face and refused (ValueError) when :math:`|f| > 10^{-12} \\max(1, \\max|f|)`
    there. Budget: at most ``MAX_POINTS`` points and ``MAX_LEVEL_INDICES`` level multi-indices.

    Examples
    --------
    >>> import torch
    >>> grid = sparse_grid_interpolant(lambda x: (4 * x * (1 - x)).prod(1), d=2, level=3)
    >>> grid.num_points, round(float(grid(torch.full((1, 2), 0.5, dtype=torch.float64))), 12)
    (17, 1.0)
    """
    level, d = _require_level_and_d(level, d)
    if level > MAX_POINTS.bit_length():  # N(n, d) >= 2^(n-1)
        raise ValueError(f"level={level} in d={d} has more than 2^{level - 1} grid points; allowed: at most "
                         f"{MAX_POINTS} (lower the level)")
    faces = 2 * d * (BOUNDARY_SAMPLES + 5)  # boundary points, d coordinates each (_require_zero_boundary)
    budget.refuse_beyond("d", d, cost=8 * faces * d, limit=budget.memory(), unit="bytes")
    if isinstance(degree, bool) or not isinstance(degree, int):
        raise TypeError(f"degree must be an int, got {degree!r} ({type(degree).__name__})")
    if degree not in DEGREES:
        raise ValueError(f"degree={degree} is not implemented; allowed: {', '.join(map(str, DEGREES))}")
    if not callable(f):
        raise TypeError(f"f must be a callable mapping (n, {d}) tensors to (n,) values, got {type(f).__name__}")
    size = sparse_grid_size(level, d)
    if size > MAX_POINTS:
        raise ValueError(f"level={level} in d={d} has N = {size} grid points; allowed: at most {MAX_POINTS} "
                         f"(lower the level)")
    device = book_device.device()
    levels = level_multi_indices(level, d)
    sizes = np.exp2(levels - 1).astype(np.int64)  # cells per direction on each level
    counts = sizes.prod(axis=1)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    strides = np.concatenate([np.cumprod(sizes[:, ::-1], axis=1)[:, ::-1][:, 1:], np.ones((len(levels), 1), np.int64)],
                             axis=1)
    level_of_point = np.repeat(np.arange(len(levels)), counts)
    local = np.arange(int(counts.sum())) - offsets[level_of_point]
    cells = (local[:, None] // strides[level_of_point]) % sizes[level_of_point]
    point_levels = levels[level_of_point]
    point_indices = 2 * cells + 1
    points = torch.as_tensor(point_indices / np.exp2(point_levels), dtype=torch.float64, device=device)
    nodal = evaluate_target(f, points, "f")
    _require_zero_boundary(f, d, scale=float(nodal.abs().max()), device=device)
    surpluses = _hierarchise(nodal, offsets, strides, point_levels, cells, degree)
    return SparseGridInterpolant(
        d=d,
        level=level,
        degree=degree,
        levels=torch.as_tensor(levels, device=device),
        points=points,
        surpluses=surpluses,
        point_levels=torch.as_tensor(point_levels, device=device),
        point_indices=torch.as_tensor(point_indices, device=device),
        offsets=torch.as_tensor(offsets, device=device),
        strides=torch.as_tensor(strides, device=device),
    )


def _require_zero_boundary(f: Callable, d: int, *, scale: float, device) -> None:
    """Sample ``f`` on every face of the cube; a ValueError if it does not vanish there."""
    generator = torch.Generator().manual_seed(12345)
    dyadic = torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0], dtype=torch.float64)
    faces = []
    for j in range(d):
        for side in (0.0, 1.0):
            x = torch.rand(BOUNDARY_SAMPLES + dyadic.numel(), d, generator=generator, dtype=torch.float64)
            x[BOUNDARY_SAMPLES:] = dyadic[:, None]
            x[:, j] = side
            faces.append(x)
    x = torch.cat(faces).to(device)
    values = evaluate_target(f, x, "f").abs()
    worst = int(values.argmax())
    if float(values[worst]) > BOUNDARY_RTOL * max(1.0, scale):
        raise ValueError(
            f"f must vanish on the boundary of [0, 1]^{d} (a Korobov function has f = 0 on ∂Ω); "
            f"got f(x) = {float(values[worst]):.3g} at x = {x[worst].tolist()}"
        )


def _hierarchise(nodal, offsets, strides, point_levels, cells, degree) -> torch.Tensor:
    """Nodal values -> hierarchical surpluses, one sweep of the 1-D rule per direction (module docstring)."""
    values = nodal.clone()
    device = nodal.device
    for j in range(point_levels.shape[1]):
        before = torch.cat([values, torch.zeros(1, dtype=values.dtype, device=device)])  # index -1: boundary, 0
        left, left_level = _neighbour(offsets, strides, point_levels, cells, j, 0)
        right, _ = _neighbour(offsets, strides, point_levels, cells, j, 1)
        parent = np.where((left >= 0) & (left_level == point_levels[:, j] - 1), left, right)
        parent = np.where(point_levels[:, j] > 1, parent, -1)
        curvature = torch.zeros_like(before)  # S of the sweep's surpluses; index -1 (no parent) stays 0
        for lj in range(1, int(point_levels[:, j].max()) + 1):
            rows = np.flatnonzero(point_levels[:, j] == lj)
            idx = torch.as_tensor(rows, device=device)
            average = 0.5 * (before[torch.as_tensor(left[rows], device=device)]
                             + before[torch.as_tensor(right[rows], device=device)])
            surplus = before[idx] - average
            if degree == 2:
                parent_s = curvature[torch.as_tensor(parent[rows], device=device)]
                surplus = surplus - 4.0**-lj * parent_s
                curvature[idx] = parent_s + 4.0**lj * surplus
            values[idx] = surplus
    return values


def _neighbour(offsets, strides, point_levels, cells, j, shift) -> tuple[np.ndarray, np.ndarray]:
    """Index and level (in direction ``j``) of the point at :math:`x_j \\mp 2^{-l_j}`; index -1 on the boundary.

    ``shift`` 0 is the left, 1 the right neighbour, whose numerator over :math:`2^{l_j - 1}` is
    :math:`m = c_j + \\text{shift}`; stripping the factors of two of :math:`m` gives its level and odd index.
    """
    lj = point_levels[:, j]
    m = cells[:, j] + shift
    inside = (m > 0) & (m < 2 ** (lj - 1))
    m_in = np.where(inside, m, 1)
    twos = np.log2(m_in & -m_in).astype(np.int64)  # trailing zeros of m
    new_levels = point_levels.copy()
    new_levels[:, j] = lj - 1 - twos
    new_cells = cells.copy()
    new_cells[:, j] = ((m_in >> twos) - 1) // 2
    row = _level_rows(np.where(inside[:, None], new_levels, point_levels))
    index = offsets[row] + (new_cells * strides[row]).sum(axis=1)
    return np.where(inside, index, -1), new_levels[:, j]


def _level_rows(query: np.ndarray) -> np.ndarray:
    """Position of each level multi-index in the order of :func:`level_multi_indices`, in :math:`O(d)` each.

    With :math:`T = |\\mathbf l|_1` and :math:`R_j = T - l_1 - \\dots - l_{j-1}`: the
    :math:`\\binom{T-1}{d}` multi-indices of smaller total come first, then, lexicographically,
    :math:`\\sum_{j<d} \\big[\\binom{R_j - 1}{d-j} - \\binom{R_j - l_j}{d-j}\\big]` compositions of
    :math:`T` whose first differing part is smaller.
    """
    d = query.shape[1]
    total = query.sum(axis=1)
    pascal = np.zeros((int(total.max()) + 1, d + 1), dtype=np.int64)
    pascal[:, 0] = 1
    for n in range(1, pascal.shape[0]):
        pascal[n, 1:] = pascal[n - 1, 1:] + pascal[n - 1, :-1]
    rank = pascal[total - 1, d]
    remaining = total.copy()
    for j in range(d - 1):
        rank = rank + pascal[remaining - 1, d - 1 - j] - pascal[remaining - query[:, j], d - 1 - j]
        remaining = remaining - query[:, j]
    return rank
