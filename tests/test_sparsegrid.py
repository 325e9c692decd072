"""The hierarchical sparse-grid interpolant (nnproofs.sparsegrid): counts, exactness, oracles, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from nnproofs.sparsegrid import (
    SparseGridInterpolant,
    basis_1d,
    level_multi_indices,
    sparse_grid_interpolant,
    sparse_grid_size,
)

# N(n, d) from the research notes (section 2.2), verified there against Tasmanian and SG++
POINT_COUNTS = {
    (4, 1): 15, (4, 2): 49, (4, 3): 111, (4, 4): 209, (4, 6): 545, (4, 8): 1121,
    (6, 1): 63, (6, 2): 321, (6, 3): 1023, (6, 4): 2561, (6, 6): 10625, (6, 8): 31745,
    (8, 1): 255, (8, 2): 1793, (8, 3): 7423, (8, 4): 23297, (8, 6): 141569, (8, 8): 580865,
    (10, 1): 1023, (10, 2): 9217, (10, 3): 47103, (10, 4): 178177, (10, 6): 1496065, (10, 8): 8085505,
    (12, 1): 4095, (12, 2): 45057, (12, 3): 274431, (12, 4): 1216513, (12, 6): 13516801, (12, 8): 93175809,
}


def chapter_target(d):
    a = torch.linspace(0.3, 1.1, d, dtype=torch.float64)
    return lambda x: torch.sin(math.pi * x).prod(1) * (1 + 0.5 * torch.cos(x @ a))


def random_points(n, d, seed=0):
    return torch.rand(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize(("level", "d"), sorted(POINT_COUNTS))
def test_point_count_closed_form(level, d):
    assert sparse_grid_size(level, d) == POINT_COUNTS[(level, d)]


@pytest.mark.parametrize(("level", "d"), [(4, 1), (8, 1), (4, 2), (8, 2), (4, 3), (6, 3), (4, 4), (6, 4), (4, 6), (4, 8)])
def test_constructed_grid_has_closed_form_size_and_distinct_points(level, d):
    interpolant = sparse_grid_interpolant(lambda x: torch.zeros(x.shape[0], dtype=x.dtype), d=d, level=level)
    assert interpolant.num_points == POINT_COUNTS[(level, d)]
    assert torch.unique(interpolant.points, dim=0).shape[0] == interpolant.num_points
    assert bool(((interpolant.points > 0) & (interpolant.points < 1)).all())  # no boundary points


@pytest.mark.parametrize(("level", "d", "count"), [(8, 2, 36), (6, 4, 126), (6, 8, 1287), (5, 1, 5)])
def test_level_multi_indices(level, d, count):
    levels = level_multi_indices(level, d)
    assert levels.shape == (count, d) == (math.comb(level + d - 1, d), d)
    assert levels.min() >= 1 and levels.sum(1).max() == level + d - 1
    assert list(levels.sum(1)) == sorted(levels.sum(1))  # coarse levels first


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize(("d", "level"), [(1, 7), (2, 6), (3, 5), (4, 4)])
def test_interpolates_at_grid_points(d, level, degree):
    f = chapter_target(d)
    interpolant = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    assert float((interpolant(interpolant.points) - f(interpolant.points)).abs().max()) <= 1e-14


def basis_matrix(interpolant, x):
    """phi_{l,i}(x) for every basis function, by the closed form (the brute-force oracle)."""
    t = x[:, None, :] * torch.exp2(interpolant.point_levels.double()) - interpolant.point_indices.double()
    return basis_1d(t, interpolant.degree).prod(-1)


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize(("d", "level"), [(1, 6), (2, 5), (3, 4)])
def test_surpluses_solve_the_interpolation_system(d, level, degree):
    """O(N d) hierarchisation = solving sum_k v_k phi_k(x_j) = f(x_j) densely."""
    f = chapter_target(d)
    interpolant = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    matrix = basis_matrix(interpolant, interpolant.points)
    solved = torch.linalg.solve(matrix, f(interpolant.points))
    assert torch.allclose(interpolant.surpluses, solved, rtol=0, atol=1e-13)
    x = random_points(500, d)
    assert torch.allclose(interpolant(x), basis_matrix(interpolant, x) @ interpolant.surpluses, rtol=0, atol=1e-14)


def single_basis(levels, indices, degree=1):
    scale = torch.exp2(torch.tensor(levels, dtype=torch.float64))
    shift = torch.tensor(indices, dtype=torch.float64)
    return lambda x: basis_1d(x * scale - shift, degree).prod(1)


@pytest.mark.parametrize("degree", [1, 2])
@pytest.mark.parametrize(("levels", "indices", "level"), [((3,), (5,), 3), ((1, 3), (1, 7), 3), ((2, 1, 2), (3, 1, 1), 3)])
def test_reproduces_a_single_basis_function(levels, indices, level, degree):
    f = single_basis(levels, indices, degree)
    d = len(levels)
    interpolant = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    assert int((interpolant.surpluses != 0).sum()) == 1
    k = int(interpolant.surpluses.nonzero())
    assert interpolant.point_levels[k].tolist() == list(levels)
    assert interpolant.point_indices[k].tolist() == list(indices)
    assert float(interpolant.surpluses[k]) == 1.0
    x = random_points(2000, d)
    assert float((interpolant(x) - f(x)).abs().max()) <= 1e-15


def test_basis_function_one_level_too_fine_is_missed_at_its_centre():
    levels, indices = (2, 2), (1, 3)  # |l|_1 = 4 = n + d for n = 2
    f = single_basis(levels, indices)
    interpolant = sparse_grid_interpolant(f, d=2, level=2)
    centre = torch.tensor([[1 / 4, 3 / 4]], dtype=torch.float64)
    assert float(f(centre) - interpolant(centre)) == 1.0


def test_quadratic_basis_is_exact_on_products_of_parabolas():
    f = lambda x: (4 * x * (1 - x)).prod(1)  # noqa: E731
    for d in (1, 2, 3):
        interpolant = sparse_grid_interpolant(f, d=d, level=3, degree=2)
        x = random_points(1000, d)
        assert float((interpolant(x) - f(x)).abs().max()) <= 1e-15
        assert int((interpolant.surpluses != 0).sum()) == 1  # the level-1 bubble 4x(1-x) per direction


@pytest.mark.parametrize(("d", "level", "degree", "l2", "linf"), [
    (2, 8, 1, 5.400e-5, 1.525e-4),  # notes 6.4: ours = Tasmanian localp-zero = SG++ linear
    (4, 6, 1, 1.771e-3, None),
    (2, 8, 2, 2.364e-7, None),  # Tasmanian order 2 = SG++ poly 2
])
def test_errors_match_the_peer_libraries(d, level, degree, l2, linf):
    """Same interpolant as Tasmanian and SG++ (research notes, table 6.4; 1e5 random points)."""
    f = chapter_target(d)
    interpolant = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    x = random_points(100_000 if d == 2 else 40_000, d)
    error = interpolant(x) - f(x)
    assert float(error.pow(2).mean().sqrt()) == pytest.approx(l2, rel=0.02)
    if linf is not None:  # a sample maximum: a few percent below the true one
        assert float(error.abs().max()) == pytest.approx(linf, rel=0.03)


@pytest.mark.parametrize("degree", [1, 2])
def test_gradient_matches_finite_differences_inside_cells(degree):
    interpolant = sparse_grid_interpolant(chapter_target(2), d=2, level=5, degree=degree)
    x = random_points(300, 2, seed=3) * 0.98 + 0.01
    h = 1e-7  # kinks are 2^-5 apart: almost every point has no kink within h
    unit = torch.eye(2, dtype=torch.float64)
    numeric = torch.stack([(interpolant(x + h * e) - interpolant(x - h * e)) / (2 * h) for e in unit], 1)
    close = (interpolant.gradient(x) - numeric).abs().max(1).values <= 1e-6
    assert close.double().mean() >= 0.99


def test_active_basis_is_the_only_nonzero_basis_function_per_level():
    interpolant = sparse_grid_interpolant(chapter_target(2), d=2, level=5)
    x = random_points(200, 2)
    index, t = interpolant.active_basis(x)
    matrix = basis_matrix(interpolant, x)
    assert torch.equal(matrix.gather(1, index), basis_1d(t, 1).prod(-1))
    assert not bool(matrix.scatter(1, index, 0.0).any())  # every other basis function vanishes exactly
    assert bool((t.abs() <= 1).all())


def test_evaluation_at_the_far_corner_and_float32_input():
    interpolant = sparse_grid_interpolant(chapter_target(2), d=2, level=4)
    corner = torch.tensor([[1.0, 1.0], [1.0, 0.5], [0.0, 0.3]], dtype=torch.float64)
    assert torch.equal(interpolant(corner), torch.zeros(3, dtype=torch.float64))
    assert interpolant(corner.float()).dtype == torch.float32


def test_it_is_a_frozen_record():
    interpolant = sparse_grid_interpolant(chapter_target(1), d=1, level=3)
    assert isinstance(interpolant, SparseGridInterpolant)
    assert interpolant.points.dtype == interpolant.surpluses.dtype == torch.float64
    with pytest.raises(AttributeError):
        interpolant.level = 4


# ------------------------------------------------------------------------------------ validation

def zero(x):
    return torch.zeros(x.shape[0], dtype=x.dtype)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"d": 0, "level": 3}, ValueError, "d"),
    ({"d": 2, "level": 0}, ValueError, "level"),
    ({"d": 2.0, "level": 3}, TypeError, "d"),
    ({"d": 2, "level": 3, "degree": 3}, ValueError, "degree"),
    ({"d": 2, "level": 3, "degree": 0}, ValueError, "degree"),
    ({"d": 2, "level": 3, "degree": True}, TypeError, "degree"),
])
def test_bad_parameters_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        sparse_grid_interpolant(zero, **kwargs)


@pytest.mark.parametrize("f", [
    lambda x: x.prod(1),  # x1 x2: zero on two faces only
    lambda x: torch.ones(x.shape[0], dtype=x.dtype),
    lambda x: torch.sin(math.pi * x).prod(1) + 1e-6,
])
def test_targets_that_do_not_vanish_on_the_boundary_are_refused(f):
    with pytest.raises(ValueError, match="boundary"):
        sparse_grid_interpolant(f, d=2, level=3)


def test_boundary_check_tolerates_round_off():
    sparse_grid_interpolant(lambda x: 1e3 * torch.sin(math.pi * x).prod(1), d=3, level=2)  # sin(pi) = 1.2e-16


@pytest.mark.parametrize(("f", "error", "match"), [
    ("not callable", TypeError, "f"),
    (lambda x: x.sum(1).numpy(), TypeError, "f"),
    (lambda x: torch.zeros(x.shape[0], 2, dtype=x.dtype), ValueError, "f"),
    (lambda x: torch.full((x.shape[0],), math.nan, dtype=x.dtype), ValueError, "f"),
])
def test_bad_targets_are_refused(f, error, match):
    with pytest.raises(error, match=match):
        sparse_grid_interpolant(f, d=2, level=2)


@pytest.mark.parametrize(("x", "error"), [
    (torch.full((3, 2), 1.5, dtype=torch.float64), ValueError),
    (torch.full((3, 2), -0.1, dtype=torch.float64), ValueError),
    (torch.zeros(3, 3, dtype=torch.float64), ValueError),
    (torch.zeros(3, dtype=torch.float64), ValueError),
    (torch.zeros(3, 2, dtype=torch.int64), TypeError),
])
def test_bad_evaluation_points_are_refused(x, error):
    interpolant = sparse_grid_interpolant(chapter_target(2), d=2, level=3)
    with pytest.raises(error, match="x"):
        interpolant(x)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_matches_cpu():
    interpolant = sparse_grid_interpolant(chapter_target(3), d=3, level=6)
    x = random_points(5000, 3)
    cpu, cuda = interpolant(x), interpolant(x.cuda()).cpu()
    assert torch.allclose(cuda, cpu, rtol=1e-10, atol=1e-14)
    assert torch.allclose(interpolant.gradient(x.cuda()).cpu(), interpolant.gradient(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("level", "d"), [(1, 1), (9, 1), (6, 2), (5, 3), (4, 5), (3, 8)])
def test_level_rank_is_the_position_in_the_level_table(level, d):
    from nnproofs.korobov.sparsegrid import _level_rows

    levels = level_multi_indices(level, d)
    assert (_level_rows(levels) == np.arange(len(levels))).all()


@pytest.mark.parametrize(("d", "level", "degree"), [(2, 8, 1), (4, 6, 1), (3, 5, 1), (2, 6, 2), (3, 4, 2)])
def test_same_interpolant_as_tasmanian(d, level, degree):
    """Optional peer: Tasmanian's localp-zero grid of order p and depth n - 1 is our grid and our interpolant."""
    tasmanian = pytest.importorskip("Tasmanian")
    f = chapter_target(d)
    ours = sparse_grid_interpolant(f, d=d, level=level, degree=degree)
    grid = tasmanian.makeLocalPolynomialGrid(d, 1, level - 1, degree, "localp-zero")
    grid.setDomainTransform(np.array([[0.0, 1.0]] * d))
    points = grid.getNeededPoints()
    grid.loadNeededValues(f(torch.from_numpy(points)).numpy()[:, None])
    theirs_sorted = points[np.lexsort(points.T[::-1])]
    ours_points = ours.points.cpu().numpy()
    order = np.lexsort(ours_points.T[::-1])
    assert theirs_sorted.shape == ours_points.shape and np.abs(theirs_sorted - ours_points[order]).max() == 0.0
    x = random_points(2000, d, seed=level)
    assert np.abs(grid.evaluateBatch(x.numpy())[:, 0] - ours(x).numpy()).max() <= 1e-13
    if degree == 1:  # hat surpluses are Tasmanian's hierarchical coefficients
        coefficients = grid.getHierarchicalCoefficients()[:, 0][np.lexsort(points.T[::-1])]
        assert np.abs(coefficients - ours.surpluses.numpy()[order]).max() <= 1e-13
