"""The prelude's claim (Theorem thm-yarotsky-square) and its negative controls, at tiny sizes."""

from __future__ import annotations

import pytest
import torch

from nnproofs.gadgets import yarotsky_square
from nnproofs.measure import nondyadic_grid, sup_error
from nnproofs.rates import RateCheck
from nnproofs.squaring import (
    check_yarotsky_square,
    decay_factor,
    default_ms,
    square_halving_control,
    square_last_term_dropped,
)

MS = list(range(1, 9))
ERROR_REQUIREMENT = "sup error / 2^(−2m−2) in [0.99, 1.01] for every m"
PIECES_REQUIREMENT = "exactly 2^m linear pieces on [0, 1] for every m"


@pytest.fixture(scope="module")
def square_check() -> RateCheck:
    return check_yarotsky_square(MS, device="cpu")


def test_yarotsky_square_check_passes(square_check):
    square_check.assert_passed()
    assert square_check.rate_holds
    assert square_check.requirements == {ERROR_REQUIREMENT: True, PIECES_REQUIREMENT: True}
    assert square_check.measured == pytest.approx(-2.0, abs=1e-3)
    assert square_check.x == tuple(2.0**m for m in MS)
    assert square_check.notes["linear pieces"] == [2**m for m in MS]
    assert square_check.notes["parameters"] == [16 + 30 * (m - 1) for m in MS]
    assert square_check.notes["grid points"] == 2 ** (max(MS) + 6)
    for error, m in zip(square_check.y, MS, strict=True):
        assert error == pytest.approx(2.0 ** (-2 * m - 2), rel=1e-3)


def test_decay_factor_is_four(square_check):
    assert decay_factor(square_check) == pytest.approx(4.0, abs=1e-3)


@pytest.mark.parametrize(
    ("control", "rate_holds", "failing"),
    [
        (square_halving_control, False, {ERROR_REQUIREMENT, PIECES_REQUIREMENT}),
        # f_{m-1} with a dead layer: the slope is still -2, only the requirements catch it
        (square_last_term_dropped, True, {ERROR_REQUIREMENT, PIECES_REQUIREMENT}),
    ],
)
def test_negative_controls_are_rejected(control, rate_holds, failing):
    check = check_yarotsky_square(MS, build=control, device="cpu")
    assert not check.passed
    assert check.rate_holds is rate_holds
    assert {text for text, held in check.requirements.items() if not held} == failing
    report = check.report()
    assert report.splitlines()[0].endswith("FAILED")
    for text in failing:
        assert f"[X ] {text}" in report
    with pytest.raises(AssertionError, match=r"\[X \] sup error / 2\^\(−2m−2\)"):
        check.assert_passed()


def test_dropped_term_control_reads_the_previous_depth():
    check = check_yarotsky_square([2, 3, 4], build=square_last_term_dropped, device="cpu")
    assert check.notes["linear pieces"] == [2, 4, 8]
    assert check.notes["error ratio to 2^(-2m-2)"] == pytest.approx([4.0, 4.0, 4.0], rel=1e-3)


@pytest.mark.parametrize("m", [3, 6, 10])
def test_dyadic_grid_would_show_false_exactness(m):
    """On the nodes j/2^m the square is exact, so a dyadic grid reads error 0: hence the non-dyadic grid."""
    net = yarotsky_square(m)
    dyadic = (torch.arange(2**m + 1, dtype=torch.float64) / 2**m)[:, None]
    nondyadic = nondyadic_grid(2 ** (m + 6))
    assert sup_error(net, lambda x: x**2, dyadic) <= 1e-15
    assert sup_error(net, lambda x: x**2, nondyadic) == pytest.approx(2.0 ** (-2 * m - 2), rel=1e-3)


def test_small_grid_is_honoured():
    check = check_yarotsky_square([1, 2], grid_size=3, device="cpu")
    assert check.notes["grid points"] == 3
    assert check.y[0] < 2.0**-4  # three points miss the maximum at x = 1/4


@pytest.mark.parametrize(("scale", "top"), [("ci", 10), ("full", 18)])
def test_default_ms_follows_scale(monkeypatch, scale, top):
    monkeypatch.setenv("BOOK_SCALE", scale)
    assert default_ms() == list(range(1, top + 1))


@pytest.mark.parametrize(
    ("ms", "kwargs", "error", "pattern"),
    [
        ([3], {}, ValueError, r"ms needs at least two distinct depths to fit a rate, got \[3\]"),
        ([3, 3], {}, ValueError, r"ms needs at least two distinct depths"),
        ([], {}, ValueError, r"ms needs at least two distinct depths"),
        ([0, 1, 2], {}, ValueError, r"ms\[0\] must be >= 1, got 0"),
        ([1, -2], {}, ValueError, r"ms\[1\] must be >= 1, got -2"),
        ([1, 21], {}, ValueError, r"ms must be <= 20 .*got 21"),
        ([1, 2.0], {}, TypeError, r"ms\[1\] must be a positive int, got 2.0"),
        ([1, "2"], {}, TypeError, r"ms\[1\] must be a positive int"),
        ("12", {}, TypeError, r"ms must be a sequence of ints, got str"),
        (5, {}, TypeError, r"ms must be a sequence of ints, got int"),
        ({1, 2}, {}, TypeError, r"ms must be a sequence of ints, got set"),
        ([1, 2], {"build": "yarotsky_square"}, TypeError, r"build must be a callable m -> torch.nn.Module, got str"),
        ([1, 2], {"grid_size": 0}, ValueError, r"grid_size must be >= 1, got 0"),
        ([1, 2], {"grid_size": 1e4}, TypeError, r"grid_size must be a positive int"),
    ],
)
def test_check_validation(ms, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        check_yarotsky_square(ms, device="cpu", **kwargs)


@pytest.mark.parametrize("control", [square_halving_control, square_last_term_dropped])
@pytest.mark.parametrize(("m", "error"), [(0, ValueError), (1.5, TypeError)])
def test_controls_validate_depth(control, m, error):
    with pytest.raises(error, match=r"^m must be"):
        control(m)


def test_numpy_integer_depths_are_accepted():
    import numpy as np

    assert check_yarotsky_square(list(np.arange(1, 4))).passed


def test_float32_networks_are_refused():
    with pytest.raises(ValueError, match=r"build\(1\) has parameters of dtype \['torch.float32'\].*needs float64"):
        check_yarotsky_square([1, 2], build=lambda m: yarotsky_square(m, dtype=torch.float32))
