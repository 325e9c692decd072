"""Exact ReLU gadgets, the network algebra behind them, and exact linear-piece counting.

Identities are checked against independent numpy formulas; invariants with hypothesis.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from nnproofs.gadgets import (
    clip_unit,
    hat,
    identity_network,
    sawtooth,
    sawtooth_series,
    tooth,
    yarotsky_product,
    yarotsky_square,
)
from nnproofs.measure import nondyadic_grid
from nnproofs.networks import (
    Architecture,
    affine_maps,
    architecture,
    compose,
    forward_columns,
    linear_map,
    parallel,
    relu_network,
)
from nnproofs.pieces import breakpoints, linear_pieces

F64 = torch.float64
property_settings = settings(max_examples=60, deadline=None)


def evaluate(net: nn.Module, x) -> np.ndarray:
    """``net`` on the 1-D points ``x`` (any array-like), as a flat float64 numpy array."""
    points = torch.as_tensor(np.asarray(x, dtype=np.float64)).reshape(-1, 1)
    with torch.no_grad():
        return net(points).reshape(-1).numpy()


def tooth_np(t: np.ndarray) -> np.ndarray:
    relu = lambda v: np.maximum(v, 0.0)
    return 2 * relu(t) - 4 * relu(t - 0.5) + 2 * relu(t - 1)


def sawtooth_np(x: np.ndarray, s: int) -> np.ndarray:
    """g_s by composing the tooth ``s`` times in numpy."""
    for _ in range(s):
        x = tooth_np(x)
    return x


def sawtooth_closed_form(x: np.ndarray, s: int) -> np.ndarray:
    """g_s(x) = g(frac(2^(s-1) x)) on [0, 1] with g(t) = 2 min(t, 1 - t), and 0 outside [0, 1]."""
    t = np.mod(2.0 ** (s - 1) * x, 1.0)
    return np.where((x >= 0) & (x <= 1), 2 * np.minimum(t, 1 - t), 0.0)


def random_maps(widths, seed=0, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(fan_out, fan_in, generator=generator, dtype=dtype), torch.randn(fan_out, generator=generator, dtype=dtype))
        for fan_in, fan_out in itertools.pairwise(widths)
    ]


def forward_np(maps, x: np.ndarray) -> np.ndarray:
    """The alternating composition A_L ∘ ρ ∘ ... ∘ ρ ∘ A_1 on the rows of ``x``, in numpy."""
    z = x
    for index, (weight, bias) in enumerate(maps):
        if index:
            z = np.maximum(z, 0.0)
        z = z @ weight.numpy().T + bias.numpy()
    return z


RNG = np.random.default_rng(12345)
UNIT_POINTS = np.concatenate([RNG.uniform(0, 1, 2000), [0.0, 1.0]])


# ---------------------------------------------------------------- hat and tooth


def test_tooth_values_at_breakpoints_and_outside():
    x = [-2.0, -1e-300, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0 + 2**-40, 3.0]
    np.testing.assert_array_equal(evaluate(tooth(), x), [0, 0, 0, 0.5, 1, 0.5, 0, 0, 0])


def test_tooth_is_the_hat_on_unit_interval():
    x = np.linspace(-1, 2, 301)
    np.testing.assert_array_equal(evaluate(tooth(), x), evaluate(hat(0.0, 0.5, 1.0), x))
    np.testing.assert_allclose(evaluate(tooth(), x), 2 * np.minimum(x, 1 - x).clip(0), rtol=0, atol=1e-15)


def test_hat_exact_values_and_pieces():
    net = hat(-1.0, 1.0, 3.0)
    x = [-5.0, -1.0, 0.0, 1.0, 2.0, 3.0, 7.0]
    np.testing.assert_allclose(evaluate(net, x), [0, 0, 0.5, 1, 0.5, 0, 0], atol=1e-15)
    assert architecture(net) == Architecture(depth=1, width=3, parameters=10, nonzero_parameters=9)


@st.composite
def hat_triples(draw):
    a = draw(st.floats(-10, 10))
    left = draw(st.floats(1e-3, 10))
    right = draw(st.floats(1e-3, 10))
    return a, a + left, a + left + right


@property_settings
@given(hat_triples(), st.floats(1e-3, 10))
def test_hat_is_a_partition_of_unity_piece(abc, extra):
    a, c, b = abc
    net = hat(a, c, b)
    fractions = np.array([0.0, 0.125, 0.5, 0.875, 1.0])
    np.testing.assert_allclose(evaluate(net, [c]), [1.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(evaluate(net, [a, b, a - 1, b + 1, a - 10, b + 10]), 0.0, atol=1e-9)
    np.testing.assert_allclose(evaluate(net, a + fractions * (c - a)), fractions, atol=1e-9)
    np.testing.assert_allclose(evaluate(net, c + fractions * (b - c)), 1 - fractions, atol=1e-9)
    # the neighbouring hat peaking at b completes it to 1 on [c, b]
    right = hat(c, b, b + extra)
    between = c + np.linspace(0, 1, 33) * (b - c)
    np.testing.assert_allclose(evaluate(net, between) + evaluate(right, between), 1.0, atol=1e-9)
    # piecewise linear: zero, up, down, zero, with kinks at a, c, b
    assert linear_pieces(net, a - 1, b + 1) == 4
    np.testing.assert_allclose(breakpoints(net, a - 1, b + 1).numpy(), [a, c, b], rtol=0, atol=1e-9)


# ---------------------------------------------------------------- sawtooth


@pytest.mark.parametrize("s", [1, 2, 3, 5, 8, 12])
def test_sawtooth_equals_closed_form(s):
    dyadic = np.arange(2 ** (s + 2) + 1) / 2 ** (s + 2)
    np.testing.assert_allclose(evaluate(sawtooth(s), dyadic), sawtooth_closed_form(dyadic, s), rtol=0, atol=1e-12)
    # at the nodes j/2^s the teeth are 0 (even j) and 1 (odd j), with no round-off at all
    nodes = evaluate(sawtooth(s), dyadic[::4])
    np.testing.assert_array_equal(nodes, np.arange(2**s + 1) % 2)
    x = np.concatenate([UNIT_POINTS, RNG.uniform(-3, 0, 100), RNG.uniform(1, 4, 100)])
    np.testing.assert_allclose(evaluate(sawtooth(s), x), sawtooth_closed_form(x, s), rtol=0, atol=1e-12)


@pytest.mark.parametrize("s", range(1, 11))
def test_sawtooth_pieces_and_architecture(s):
    net = sawtooth(s)
    assert linear_pieces(net) == 2**s
    np.testing.assert_allclose(breakpoints(net).numpy(), np.arange(1, 2**s) / 2**s, rtol=0, atol=1e-14)
    assert (architecture(net).depth, architecture(net).width) == (s, 3)


@property_settings
@given(st.lists(st.floats(-4, 4), min_size=1, max_size=6))
def test_sawtooth_series_equals_numpy_composition(coefficients):
    x = np.concatenate([np.linspace(-1, 2, 1201), UNIT_POINTS[:200]])
    expected = x - sum(c * sawtooth_np(x, s) for s, c in enumerate(coefficients, start=1))
    scale = 1 + sum(abs(c) for c in coefficients)
    net = sawtooth_series(coefficients)
    np.testing.assert_allclose(evaluate(net, x), expected, rtol=0, atol=1e-12 * scale)
    assert architecture(net).depth == len(coefficients)
    assert architecture(net).width == 5


# ---------------------------------------------------------------- Yarotsky's square


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 12])
def test_square_interpolates_x_squared(m):
    nodes = np.arange(2**m + 1) / 2**m
    np.testing.assert_allclose(evaluate(yarotsky_square(m), nodes), nodes**2, rtol=0, atol=1e-14)
    # between the nodes it is the piecewise-linear interpolant of x^2
    np.testing.assert_allclose(evaluate(yarotsky_square(m), UNIT_POINTS), np.interp(UNIT_POINTS, nodes, nodes**2),
                               rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("m", range(1, 13))
def test_square_sup_error_and_upper_envelope(m):
    grid = nondyadic_grid(2 ** (m + 6)).reshape(-1).numpy()
    error = evaluate(yarotsky_square(m), grid) - grid**2
    assert error.max() == pytest.approx(2.0 ** (-2 * m - 2), rel=1e-3)
    assert error.max() <= 2.0 ** (-2 * m - 2)
    # f_m >= x^2 everywhere (an interpolant of a convex function), checked off and on the dyadic nodes
    fine = np.arange(2 ** (m + 3) + 1) / 2 ** (m + 3)
    assert error.min() >= 0.0
    assert (evaluate(yarotsky_square(m), fine) - fine**2).min() >= -1e-15


@pytest.mark.parametrize("m", [1, 2, 3, 4, 7, 10])
def test_square_pieces_and_architecture(m):
    net = yarotsky_square(m)
    assert linear_pieces(net) == 2**m
    arch = architecture(net)
    assert (arch.depth, arch.width, arch.parameters) == (m, 5, 16 + 30 * (m - 1))


@pytest.mark.parametrize("m", range(1, 9))
def test_product_error_bound_and_zero_preservation(m):
    net = yarotsky_product(m)
    generator = torch.Generator().manual_seed(m)
    ab = torch.rand(20000, 2, generator=generator, dtype=F64)
    ab = torch.cat([ab, torch.tensor([[1.0, 1.0], [1.0, 0.5], [0.5, 0.5]], dtype=F64)])
    with torch.no_grad():
        error = (net(ab).reshape(-1) - ab[:, 0] * ab[:, 1]).abs().max().item()
        on_axes = torch.cat([ab * torch.tensor([0.0, 1.0], dtype=F64), ab * torch.tensor([1.0, 0.0], dtype=F64)])
        at_zero = net(on_axes).abs().max().item()
    assert error <= 2.0 ** (-2 * m)
    assert at_zero <= 1e-15
    arch = architecture(net)
    assert (arch.depth, arch.width) == (m, 15)


# ---------------------------------------------------------------- networks


def test_relu_network_round_trip_and_structure():
    maps = random_maps([2, 4, 3, 1])
    net = relu_network(maps)
    assert [type(module) for module in net] == [nn.Linear, nn.ReLU, nn.Linear, nn.ReLU, nn.Linear]
    for (weight, bias), (w, b) in zip(maps, affine_maps(net)):
        assert torch.equal(weight, w) and torch.equal(bias, b)
    assert not any(p.requires_grad for p in net.parameters())
    x = torch.randn(50, 2, generator=torch.Generator().manual_seed(1), dtype=F64)
    with torch.no_grad():
        np.testing.assert_allclose(net(x).numpy(), forward_np(maps, x.numpy()), rtol=1e-13, atol=1e-13)


def test_relu_network_keeps_dtype():
    net = relu_network(random_maps([1, 3, 1], dtype=torch.float32))
    assert all(p.dtype == torch.float32 for p in net.parameters())


def test_architecture_counts():
    maps = random_maps([2, 4, 3, 1])
    maps[0][0][0, 0] = 0.0
    maps[1][1][2] = 0.0
    arch = architecture(relu_network(maps))
    assert arch == Architecture(depth=2, width=4, parameters=8 + 4 + 12 + 3 + 3 + 1, nonzero_parameters=31 - 2)
    assert architecture(linear_map([[1.0, 2.0]])) == Architecture(depth=0, width=0, parameters=3, nonzero_parameters=2)


def test_compose_is_function_composition():
    inner, outer = relu_network(random_maps([2, 5, 3], seed=1)), relu_network(random_maps([3, 4, 4, 1], seed=2))
    net = compose(outer, inner)
    x = torch.randn(100, 2, generator=torch.Generator().manual_seed(3), dtype=F64)
    with torch.no_grad():
        torch.testing.assert_close(net(x), outer(inner(x)), rtol=1e-12, atol=1e-12)
    assert architecture(net).depth == architecture(inner).depth + architecture(outer).depth
    assert [w.shape[0] for w, _ in affine_maps(net)] == [5, 4, 4, 1]


def test_compose_with_linear_maps_adds_no_depth():
    net = relu_network(random_maps([1, 3, 1]))
    shifted = compose(linear_map([[2.0]], [1.0]), compose(net, linear_map([[0.5]], [-1.0])))
    x = torch.linspace(-2, 2, 41, dtype=F64)[:, None]
    with torch.no_grad():
        torch.testing.assert_close(shifted(x), 2 * net(0.5 * x - 1) + 1, rtol=1e-13, atol=1e-13)
    assert architecture(shifted).depth == 1


def test_parallel_is_block_diagonal():
    a, b = relu_network(random_maps([1, 3, 2], seed=4)), relu_network(random_maps([2, 4, 1], seed=5))
    net = parallel(a, b)
    for (w, bias), (wa, ba), (wb, bb) in zip(affine_maps(net), affine_maps(a), affine_maps(b)):
        torch.testing.assert_close(w, torch.block_diag(wa, wb), rtol=0, atol=0)
        torch.testing.assert_close(bias, torch.cat([ba, bb]), rtol=0, atol=0)
    x = torch.randn(30, 3, generator=torch.Generator().manual_seed(6), dtype=F64)
    with torch.no_grad():
        torch.testing.assert_close(net(x), torch.cat([a(x[:, :1]), b(x[:, 1:])], dim=1), rtol=1e-13, atol=1e-13)
    assert architecture(net) == Architecture(depth=1, width=7, parameters=7 * 3 + 7 + 3 * 7 + 3,
                                             nonzero_parameters=(3 + 8) + 7 + (6 + 4) + 3)


@pytest.mark.parametrize("block", [1, 7, 64, 10_000])
def test_forward_columns_is_the_network(block):
    net = relu_network(random_maps([3, 5, 4, 2], seed=8))
    x = torch.randn(100, 3, generator=torch.Generator().manual_seed(9), dtype=F64)
    with torch.no_grad():
        torch.testing.assert_close(forward_columns(net, x, block=block), net(x), rtol=1e-14, atol=1e-14)
    xr = x.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(forward_columns(net, xr, block=block).sum(), xr)
    (reference,) = torch.autograd.grad(net(xr).sum(), xr)
    torch.testing.assert_close(grad, reference, rtol=1e-14, atol=1e-14)


def test_forward_columns_validation():
    net = relu_network(random_maps([3, 5, 1], seed=8))
    with pytest.raises(ValueError, match="shape"):
        forward_columns(net, torch.zeros(4, 2, dtype=F64))
    with pytest.raises(ValueError, match="block"):
        forward_columns(net, torch.zeros(4, 3, dtype=F64), block=0)
    assert forward_columns(net, torch.zeros(0, 3, dtype=F64)).shape == (0, 1)


def test_linear_map():
    net = linear_map([[1.0, -2.0], [0.5, 3.0]], [1.0, 0.0])
    x = torch.tensor([[1.0, 1.0], [2.0, -1.0]], dtype=F64)
    with torch.no_grad():
        torch.testing.assert_close(net(x), torch.tensor([[0.0, 3.5], [5.0, -2.0]], dtype=F64), rtol=0, atol=0)
        torch.testing.assert_close(linear_map([[3.0]])(x[:, :1]), 3 * x[:, :1], rtol=0, atol=0)
    assert len(net) == 1 and net[0].weight.dtype == F64


def _linear(fan_in, fan_out):
    return nn.Linear(fan_in, fan_out, dtype=F64)


NET = relu_network(random_maps([1, 3, 1]))
DEEPER = relu_network(random_maps([1, 3, 3, 1]))
W, B = torch.ones(2, 1, dtype=F64), torch.zeros(2, dtype=F64)


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: relu_network([]), ValueError, r"maps must contain at least one affine map"),
        (lambda: relu_network([(W.numpy(), B)]), TypeError, r"maps\[0\] must be a pair of tensors"),
        (lambda: relu_network([(W, B), (torch.ones(1, 2, dtype=F64), [0.0])]), TypeError, r"maps\[1\] must be a pair"),
        (lambda: relu_network([(torch.ones(2, dtype=F64), B)]), ValueError, r"maps\[0\]: W must be \(out, in\)"),
        (lambda: relu_network([(W, torch.zeros(3, dtype=F64))]), ValueError, r"maps\[0\]: W must be .* got \(2, 1\) and \(3,\)"),
        (lambda: relu_network([(W, B), (torch.ones(1, 3, dtype=F64), torch.zeros(1, dtype=F64))]), ValueError,
         r"maps\[1\] takes 3 inputs but maps\[0\] gives 2"),
        (lambda: affine_maps(_linear(1, 1)), TypeError, r"net must be a torch.nn.Sequential"),
        (lambda: affine_maps(nn.Sequential()), ValueError, r"net must alternate Linear, ReLU, ..., Linear; got 0"),
        (lambda: affine_maps(nn.Sequential(_linear(1, 2), nn.ReLU())), ValueError, r"got 2 modules"),
        (lambda: affine_maps(nn.Sequential(nn.ReLU(), _linear(1, 1), nn.ReLU())), TypeError, r"net\[0\] must be Linear"),
        (lambda: affine_maps(nn.Sequential(_linear(1, 2), nn.Tanh(), _linear(2, 1))), TypeError,
         r"net\[1\] must be ReLU, got Tanh"),
        (lambda: compose(NET, relu_network(random_maps([1, 3, 2]))), ValueError, r"outer takes 1 inputs but inner gives 2"),
        (lambda: compose(NET, "net"), TypeError, r"torch.nn.Sequential"),
        (lambda: parallel(), ValueError, r"parallel needs at least one network"),
        (lambda: parallel(NET, DEEPER), ValueError, r"equal depth, got \[1, 2\] hidden layers"),
        (lambda: parallel(NET, _linear(1, 1)), TypeError, r"torch.nn.Sequential"),
        (lambda: linear_map([1.0, 2.0]), ValueError, r"weight must be a 2-D \(out, in\) array, got shape \(2,\)"),
        (lambda: linear_map([[1.0, 2.0]], [0.0, 0.0]), ValueError, r"maps\[0\]: W must be .* and b \(out,\)"),
    ],
)
def test_network_validation(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# ---------------------------------------------------------------- exact linear pieces


@st.composite
def integer_nets(draw):
    """Small 1-D ReLU nets with integer weights: every slope is an integer, every kink rational."""
    depth = draw(st.integers(1, 3))
    widths = [1] + [draw(st.integers(1, 4)) for _ in range(depth)] + [1]
    entries = st.integers(-3, 3)
    maps = []
    for fan_in, fan_out in itertools.pairwise(widths):
        weight = draw(st.lists(entries, min_size=fan_in * fan_out, max_size=fan_in * fan_out))
        bias = draw(st.lists(entries, min_size=fan_out, max_size=fan_out))
        maps.append((torch.tensor(weight, dtype=F64).reshape(fan_out, fan_in), torch.tensor(bias, dtype=F64)))
    return relu_network(maps)


@property_settings
@given(integer_nets())
def test_breakpoints_are_complete_and_real_kinks(net):
    a, b = -3.0, 3.0
    kinks = breakpoints(net, a, b).numpy()
    assert linear_pieces(net, a, b) == kinks.size + 1
    t = np.concatenate([[a], kinks, [b]])
    assert np.all(np.diff(t) > 0)
    # complete: the interpolant through the net's values at the breakpoints reproduces the net
    x = np.concatenate([np.linspace(a, b, 6001), (t[1:] + t[:-1]) / 2])
    values, at_t = evaluate(net, x), evaluate(net, t)
    np.testing.assert_allclose(np.interp(x, t, at_t), values, rtol=0, atol=1e-9 * (1 + np.abs(values).max()))
    # real: between kinks the slope is an integer, and it changes at every kink (intervals shorter than 1e-6
    # are left out: there the finite-difference slope is dominated by round-off)
    slopes = np.diff(at_t) / np.diff(t)
    wide = np.diff(t) > 1e-6
    assert np.abs(slopes[wide] - np.round(slopes[wide])).max() < 1e-6
    both_wide = wide[1:] & wide[:-1]
    assert np.all(np.abs(np.diff(slopes))[both_wide] >= 0.5)


def test_linear_pieces_simple_cases():
    assert linear_pieces(tooth(), -1.0, 2.0) == 4
    np.testing.assert_array_equal(breakpoints(tooth(), -1.0, 2.0).numpy(), [0.0, 0.5, 1.0])
    assert linear_pieces(tooth(), 0.6, 0.9) == 1
    assert linear_pieces(linear_map([[2.0]], [1.0])) == 1
    dead = relu_network([(torch.tensor([[1.0]]), torch.tensor([-5.0])), (torch.tensor([[1.0]]), torch.tensor([0.0]))])
    assert linear_pieces(dead) == 1


ZERO_NET = relu_network([
    (torch.tensor([[3.0], [1.0]], dtype=F64), torch.tensor([-2.0, 0.0], dtype=F64)),
    (torch.tensor([[-1.0, 3.0]], dtype=F64), torch.tensor([-2.0], dtype=F64)),
    (torch.tensor([[1.0]], dtype=F64), torch.tensor([0.0], dtype=F64)),
])  # x -> ρ(3ρ(x) − ρ(3x − 2) − 2), identically zero


def test_zero_net_is_zero():
    # Zero in exact arithmetic; in float64, 3ρ(x) and ρ(3x − 2) + 2 round differently for x > 2/3 (by
    # one unit in the last place of 3x, depending on whether the CPU's kernels fuse the multiply-add).
    assert np.abs(evaluate(ZERO_NET, np.linspace(-3, 3, 10001))).max() <= 4 * np.finfo(np.float64).eps
    assert linear_pieces(ZERO_NET, 0.0, 1.0) == 1


def test_linear_pieces_ignores_round_off_slivers():
    # round-off once split the exact zero at 2/3 into two crossings a few ulps apart (a sliver piece)
    assert linear_pieces(ZERO_NET, -3.0, 3.0) == 1


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: linear_pieces(tooth(), 1.0, 1.0), ValueError, r"need finite a < b, got a=1.0, b=1.0"),
        (lambda: linear_pieces(tooth(), 2.0, 1.0), ValueError, r"need finite a < b"),
        (lambda: linear_pieces(tooth(), 0.0, math.inf), ValueError, r"need finite a < b"),
        (lambda: linear_pieces(tooth(), math.nan, 1.0), ValueError, r"need finite a < b"),
        (lambda: linear_pieces(linear_map([[1.0, 1.0]])), ValueError, r"net must map R to R, got 2 inputs and 1 outputs"),
        (lambda: linear_pieces(yarotsky_product(2)), ValueError, r"net must map R to R"),
        (lambda: linear_pieces(_linear(1, 1)), TypeError, r"net must be a torch.nn.Sequential"),
    ],
)
def test_pieces_validation(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# ---------------------------------------------------------------- gadget validation


@pytest.mark.parametrize("build", [sawtooth, yarotsky_square, yarotsky_product])
@pytest.mark.parametrize(
    ("value", "error", "pattern"),
    [(0, ValueError, r"must be >= 1, got 0"), (-3, ValueError, r"must be >= 1, got -3"),
     (2.0, TypeError, r"must be a positive int, got 2.0"), (True, TypeError, r"must be a positive int, got True"),
     ("3", TypeError, r"must be a positive int, got '3'"), (None, TypeError, r"must be a positive int")],
)
def test_depth_parameter_validation(build, value, error, pattern):
    name = "s" if build is sawtooth else "m"
    with pytest.raises(error, match=rf"^{name} {pattern}"):
        build(value)


@pytest.mark.parametrize(
    ("coefficients", "error", "pattern"),
    [
        ([], ValueError, r"coefficients needs at least 1 values, got 0"),
        ([0.25, math.nan], ValueError, r"coefficients\[1\] = nan; every entry must be finite"),
        ([math.inf], ValueError, r"coefficients\[0\] = inf; every entry must be finite"),
        ([-math.inf, 0.5], ValueError, r"coefficients\[0\] = -inf; every entry must be finite"),
        ("123", TypeError, r"coefficients must be a sequence of real numbers, got a string"),
        ([[0.25]], ValueError, r"coefficients must be one-dimensional"),
    ],
)
def test_sawtooth_series_validation(coefficients, error, pattern):
    with pytest.raises(error, match=pattern):
        sawtooth_series(coefficients)


@pytest.mark.parametrize("abc", [(0.5, 0.5, 1.0), (0.0, 1.0, 1.0), (0.0, 1.0, 0.5), (1.0, 0.5, 0.0)])
def test_hat_validation(abc):
    with pytest.raises(ValueError, match=r"hat needs a < c < b, got a=.*, c=.*, b="):
        hat(*abc)


@pytest.mark.parametrize(
    ("abc", "error", "pattern"),
    [((math.nan, 0.5, 1.0), ValueError, r"^a must be finite, got nan"),
     ((0.0, 0.5, math.inf), ValueError, r"^b must be finite, got inf"),
     ((0.0, "0.5", 1.0), TypeError, r"^c must be a real number, got '0\.5'")],
)
def test_hat_rejects_non_finite_or_non_numbers(abc, error, pattern):
    with pytest.raises(error, match=pattern):
        hat(*abc)


@pytest.mark.parametrize("depth", [1, 4])
def test_clip_and_identity_are_exact(depth):
    z = torch.linspace(-2, 3, 501, dtype=F64)[:, None]
    with torch.no_grad():
        torch.testing.assert_close(clip_unit()(z), z.clamp(0, 1), rtol=0, atol=0)
        torch.testing.assert_close(identity_network(depth)(z), z.clamp(min=0), rtol=0, atol=0)
    assert architecture(clip_unit()).depth == 1 and architecture(clip_unit()).width == 2
    assert architecture(identity_network(depth)).depth == depth
    with pytest.raises(ValueError, match="depth"):
        identity_network(0)
