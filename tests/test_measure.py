"""Non-dyadic grids and chunked sup-norm errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from nnproofs.measure import (GOLDEN_SHIFT, cell_lp_error, cell_quadrature, input_law, nondyadic_grid, sample_inputs,
                              significant, sup_error)
from nnproofs.validate import int_list

F64 = torch.float64


@pytest.mark.parametrize(("n", "a", "b"), [(1, 0.0, 1.0), (1000, 0.0, 1.0), (2**12, 0.0, 1.0), (777, -1.0, 3.0)])
def test_nondyadic_grid_shape_and_bounds(n, a, b):
    grid = nondyadic_grid(n, a, b)
    assert grid.shape == (n, 1)
    assert grid.dtype == F64
    x = grid.reshape(-1).numpy()
    assert a < x.min() and x.max() < b
    assert np.all(np.diff(x) > 0)
    np.testing.assert_allclose(np.diff(x), (b - a) / n, rtol=1e-9)
    assert x[0] == pytest.approx(a + (b - a) * GOLDEN_SHIFT / n, rel=1e-15)


@pytest.mark.parametrize(("n", "a", "b"), [(1000, 0.0, 1.0), (2**16, 0.0, 1.0), (4099, -1.0, 3.0)])
def test_nondyadic_grid_avoids_dyadic_rationals(n, a, b):
    x = nondyadic_grid(n, a, b).reshape(-1).numpy()
    scaled = x * 2.0**20  # exact: a point j/2^k with k <= 20 would become an integer
    assert not np.any(scaled == np.round(scaled))


def test_dyadic_grid_would_fail_that_test():
    """The test above can fail: a uniform grid of 2^k points is full of dyadic rationals."""
    x = (np.arange(2**10) + 0.5) / 2**10
    scaled = x * 2.0**20
    assert np.all(scaled == np.round(scaled))


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"n": 0}, ValueError, r"n must be >= 1, got 0"),
        ({"n": 10.0}, TypeError, r"n must be a positive int"),
        ({"n": 10, "a": 1.0, "b": 1.0}, ValueError, r"need finite a < b, got a=1.0, b=1.0"),
        ({"n": 10, "a": 2.0, "b": 1.0}, ValueError, r"need finite a < b"),
        ({"n": 10, "a": math.nan}, ValueError, r"need finite a < b"),
        ({"n": 10, "b": math.inf}, ValueError, r"need finite a < b"),
    ],
)
def test_nondyadic_grid_validation(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        nondyadic_grid(**kwargs)


# ---------------------------------------------------------------- sup_error

POINTS = torch.rand(5000, 2, generator=torch.Generator().manual_seed(0), dtype=F64) * 4 - 2


def approx(x):
    return torch.sin(x[:, 0]) * torch.cos(x[:, 1])


def target(x):
    return (x[:, 0] - x[:, 0] ** 3 / 6)[:, None]  # (k, 1): mixed shapes are allowed


def test_sup_error_matches_direct_computation():
    x = POINTS.numpy()
    direct = np.max(np.abs(np.sin(x[:, 0]) * np.cos(x[:, 1]) - (x[:, 0] - x[:, 0] ** 3 / 6)))
    value = sup_error(approx, target, POINTS)
    assert isinstance(value, float)
    assert value == pytest.approx(direct, rel=1e-14)
    assert value > 0.1


@pytest.mark.parametrize("chunk", [1, 7, 4096, 4999, 5000, 1 << 16])
def test_sup_error_chunking_gives_same_answer(chunk):
    assert sup_error(approx, target, POINTS, chunk=chunk) == sup_error(approx, target, POINTS)


def test_sup_error_of_exact_approximation_is_zero():
    assert sup_error(lambda x: x**2, lambda x: x * x, nondyadic_grid(100)) == 0.0


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("chunk", [100, 1 << 16])
def test_sup_error_raises_on_non_finite_values(value, chunk):
    bad = lambda x: torch.where(x[:, 0] == POINTS[1234, 0], value, approx(x))
    with pytest.raises(ValueError, match=r"not finite"):
        sup_error(bad, target, POINTS, chunk=chunk)
    with pytest.raises(ValueError, match=r"not finite"):
        sup_error(target, bad, POINTS, chunk=chunk)


def pairs(x):
    return x  # two values per point


@pytest.mark.parametrize(
    ("approx_fn", "target_fn", "points", "chunk", "error", "pattern"),
    [
        (approx, target, POINTS[:, 0], 1 << 16, ValueError, r"points must be a non-empty \(n, d\) tensor, got torch.Size\(\[5000\]\)"),
        (approx, target, POINTS[:0], 1 << 16, ValueError, r"points must be a non-empty \(n, d\) tensor"),
        (approx, target, POINTS[None], 1 << 16, ValueError, r"points must be a non-empty \(n, d\) tensor"),
        (approx, target, POINTS.numpy(), 1 << 16, ValueError, r"points must be a non-empty \(n, d\) tensor"),
        (approx, target, [[0.0, 1.0]], 1 << 16, ValueError, r"points must be a non-empty \(n, d\) tensor, got list"),
        (pairs, pairs, POINTS, 1 << 16, ValueError, r"approx must return one value per point, got 10000 values for 5000 points"),
        (pairs, pairs, POINTS, 1000, ValueError, r"approx must return one value per point, got 2000 values for 1000 points"),
        (approx, target, POINTS, 0, ValueError, r"chunk must be >= 1, got 0"),
        (approx, target, POINTS, 2.5, TypeError, r"chunk must be a positive int"),
    ],
)
def test_sup_error_validation(approx_fn, target_fn, points, chunk, error, pattern):
    with pytest.raises(error, match=pattern):
        sup_error(approx_fn, target_fn, points, chunk=chunk)


def test_sup_error_refuses_to_broadcast_a_single_value():
    points = torch.rand(50, 2)
    with pytest.raises(ValueError, match="approx must return one value per point, got 1 values for 50 points"):
        sup_error(lambda x: x[:1, 0], lambda x: x[:, 0], points)


def test_uniform_points_are_seeded_float64_and_in_the_unit_cube():
    from nnproofs.measure import uniform_points

    a, b = uniform_points(1000, 3, seed=7, device="cpu"), uniform_points(1000, 3, seed=7, device="cpu")
    assert a.shape == (1000, 3) and a.dtype == torch.float64
    assert torch.equal(a, b) and not torch.equal(a, uniform_points(1000, 3, seed=8, device="cpu"))
    assert float(a.min()) >= 0.0 and float(a.max()) < 1.0
    with pytest.raises(ValueError, match="d must be >= 1"):
        uniform_points(10, 0)


@pytest.mark.parametrize("d", [1, 3, 10])
def test_sample_inputs_on_the_sphere_and_in_the_ball(d):
    generator = torch.Generator().manual_seed(d)
    sphere = sample_inputs(4000, d, "sphere", generator=generator)
    ball = sample_inputs(4000, d, "ball", generator=generator)
    assert sphere.dtype == ball.dtype == torch.float64 and sphere.shape == ball.shape == (4000, d)
    torch.testing.assert_close(sphere.norm(dim=1), torch.ones(4000, dtype=torch.float64), rtol=0, atol=1e-14)
    radius = ball.norm(dim=1)
    assert float(radius.max()) <= 1.0
    assert abs(float((radius**d).mean()) - 0.5) < 0.03  # |x|^d is uniform on [0, 1] in the ball
    assert abs(float(sphere.mean(0).norm())) < 4 * math.sqrt(1 / 4000) * 1.5  # no preferred direction


def test_sample_inputs_validation():
    with pytest.raises(ValueError, match="inputs"):
        sample_inputs(3, 2, "cube")
    with pytest.raises(ValueError, match="n"):
        sample_inputs(0, 2)
    assert input_law("ball") == "ball"


@pytest.mark.parametrize(("count", "digits", "expected"), [(26954, 2, 27000), (26950, 2, 27000), (184668, 2, 180000),
                                                           (275597, 2, 280000), (47, 2, 47), (0, 2, 0), (-1250, 2, -1300),
                                                           (88117, 3, 88100)])
def test_significant_rounds_counts(count, digits, expected):
    assert significant(count, digits) == expected


def test_significant_refuses_other_values():
    with pytest.raises(TypeError, match="count"):
        significant(2.5)
    with pytest.raises(ValueError, match="digits"):
        significant(10, 0)


@pytest.mark.parametrize("cells", [1, 3, 64])
def test_cell_quadrature_is_exact_for_piecewise_polynomials(cells):
    x, w = cell_quadrature(cells, 8, device="cpu")
    assert x.shape == (8 * cells, 1) and float(w.sum()) == pytest.approx(1.0, rel=1e-14)
    assert bool(((x > 0) & (x < 1)).all())
    # degree 15 on every cell: |x - k/K|^15 integrates to K^-16 / 16 per cell
    local = x[:, 0] * cells - torch.floor(x[:, 0] * cells)
    assert float((w * local**15).sum()) == pytest.approx(1 / 16, rel=1e-13)


def test_cell_lp_error_finds_an_error_inside_one_cell():
    """A bump of width 1/K inside one cell: the rule integrates it, whatever K."""
    K = 1024

    def bump(x):
        t = x[:, 0] * K - 500
        return torch.where((t > 0) & (t < 1), t * (1 - t), torch.zeros_like(t))

    def zero(x):
        return torch.zeros(x.shape[0], dtype=x.dtype)

    assert cell_lp_error(bump, zero, cells=K, p=1) == pytest.approx(1 / (6 * K), rel=1e-13)
    assert cell_lp_error(bump, zero, cells=K, p=2) == pytest.approx(math.sqrt(1 / (30 * K)), rel=1e-13)


def test_int_list_validates_and_names_the_parameter():
    assert int_list("levels", range(3, 6)) == [3, 4, 5]
    assert int_list("widths", (4, 8), minimum=4) == [4, 8]
    with pytest.raises(ValueError, match="levels must hold at least one value"):
        int_list("levels", [])
    with pytest.raises(TypeError, match="levels"):
        int_list("levels", "345")
    with pytest.raises(ValueError, match=r"levels\[1\]"):
        int_list("levels", [3, 0])
    with pytest.raises(ValueError, match="widths must all be >= 4"):
        int_list("widths", [2, 8], minimum=4)
