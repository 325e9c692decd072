"""Chapter 2: the structures that decide Network A, the level check and the class readings (design.md rules 9-13).

Each test builds a construction or a target that a sampled, probed or method-based reading would pass, and
asserts that the check refuses to pass it; in-class cases keep passing (or are INCONCLUSIVE where pre-asymptotic).
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from nnproofs.gadgets import yarotsky_product
from nnproofs.korobov import (
    SparseGridInterpolant,
    basis_sum_target,
    check_relu_sparse_grid_network,
    check_sparse_grid_levels,
    clamped_product,
    default_levels,
    interpolant_without_level,
    relu_sparse_grid_network,
    sparse_grid_interpolant,
)
from nnproofs.korobov import network_a
from nnproofs.korobov.network_a import linear_pieces_2d, product_error, zero_preserving
from nnproofs.networks import architecture, compose, linear_map, parallel, relu_network


def t(v):
    return torch.tensor(v, dtype=torch.float64)


def with_branch(s, first_layer, second_layer, scale=1.0):
    """Yarotsky's product plus a ReLU branch ``scale * relu(second(relu(first(a, b))))`` of the same depth."""
    base = yarotsky_product(s)
    depth = architecture(base).depth
    branch = relu_network([first_layer, second_layer] + [(t([[1.0]]), t([0.0]))] * (depth - 2) + [(t([[scale]]),
                                                                                                   t([0.0]))])
    duplicate = linear_map([[1.0, 0], [0, 1.0], [1.0, 0], [0, 1.0]])
    return compose(linear_map([[1.0, 1.0]]), compose(parallel(base, branch), duplicate))


def leak_between(s, centre=0.4137, width=2e-4):
    """A leak ``relu(hat_centre(a) - 0.01 - 1e9 b)``: nonzero on P(a, 0) only within ``width`` of ``centre``."""
    rows, bias = t([[1.0, 0.0]] * 3 + [[0.0, 1.0]]), t([-(centre - width), -centre, -(centre + width), 0.0])
    return with_branch(s, (rows, bias), (t([[1 / width, -2 / width, 1 / width, -1e9]]), t([-0.01])))


def spike_at(s, a=0.61, b=0.42, width=1e-3, height=0.5):
    """``height * relu(hat_a(a) + hat_b(b) - 1)``: zero-preserving, wrong on a ``width`` square only."""
    rows = t([[1.0, 0]] * 3 + [[0, 1.0]] * 3)
    bias = t([-(a - width), -a, -(a + width), -(b - width), -b, -(b + width)])
    return with_branch(s, (rows, bias), (t([[1 / width, -2 / width, 1 / width] * 2]), t([-1.0])), height)


@pytest.mark.parametrize("s", [3, 7])
def test_zero_preservation_is_read_from_the_weights(s):
    assert zero_preserving(yarotsky_product(s))
    assert not zero_preserving(clamped_product(s))
    assert not zero_preserving(leak_between(s))  # between any fixed probes: width 2e-4 at 0.4137
    assert not zero_preserving(leak_between(s, centre=0.9031, width=1e-6))


def test_network_a_fails_a_product_that_leaks_between_probes():
    f = basis_sum_target(2, 4)
    check = check_relu_sparse_grid_network(f, d=2, level=4, ss=[3, 5], product=lambda s: leak_between(s))
    assert check.verdict == "FAILED"
    network = relu_sparse_grid_network(sparse_grid_interpolant(f, d=2, level=4), s=4, product=leak_between)
    assert not network.zero_preserving  # so forward evaluates every copy (dense)


def test_network_a_calls_the_product_once_and_fails_a_switching_product():
    calls = []

    def counting(s):
        calls.append(s)
        return yarotsky_product(s)

    interpolant = sparse_grid_interpolant(basis_sum_target(4, 2), d=4, level=2)
    relu_sparse_grid_network(interpolant, s=3, product=counting)  # d = 4: a tree of three products
    assert calls == [3]
    flips = []

    def switching(s):  # Yarotsky's product first, the clamped one on every second call
        flips.append(s)
        return yarotsky_product(s) if len(flips) % 2 else clamped_product(s)

    check = check_relu_sparse_grid_network(basis_sum_target(2, 5), d=2, level=5, ss=[3, 4, 5], product=switching)
    assert check.verdict == "FAILED"


@pytest.mark.parametrize("s", [2, 5, 9])
def test_the_product_error_is_nearly_attained(s):
    """Rule 12: Yarotsky's product attains 4^-s, the clamped one 4^-s / 2, both read exactly."""
    assert abs(product_error(yarotsky_product(s)) * 4.0**s - 1) <= 1e-9
    assert abs(product_error(clamped_product(s)) * 4.0**s - 0.5) <= 1e-9


def with_layers(s, layers, height):
    """Yarotsky's product plus ``height * relu(...)`` of the ReLU ``layers`` (one output), padded to its depth."""
    base = yarotsky_product(s)
    identity = [(t([[1.0]]), t([0.0]))] * (architecture(base).depth - len(layers))
    branch = relu_network(layers + identity + [(t([[height]]), t([0.0]))])
    duplicate = linear_map([[1.0, 0], [0, 1.0], [1.0, 0], [0, 1.0]])
    return compose(linear_map([[1.0, 1.0]]), compose(parallel(base, branch), duplicate))


MARGIN = 1e-6  # below the threshold by more than the round-off of hats 1e-7 wide: zero-preserving in float64
IDENTITY_FIRST = (t([[1.0, 0], [0, 1.0]]), t([0.0, 0.0]))  # relu(a), relu(b): the first layer kinks at 0 only


def stripe(s, axis, centre, width, height, ramp=50.0):
    """``height * relu(hat(x_axis) + min(1, ramp * x_other) - 1)``, the hat's kinks in the second layer only.

    Zero-preserving (zero where either input is 0), wrong by ``height`` on a stripe ``width`` wide across
    the square: no kink of the first layer marks it.
    """
    rows = torch.zeros(5, 2, dtype=torch.float64)
    rows[:3, axis], rows[3:, 1 - axis] = 1.0, ramp
    second = (rows, t([-(centre - width), -centre, -(centre + width), 0.0, -1.0]))
    return with_layers(s, [IDENTITY_FIRST, second, (t([[1 / width, -2 / width, 1 / width, 1.0, -1.0]]), t([-1.0 - MARGIN]))],
                       height)


def diagonal_stripe(s, centre, width, height, ramp=50.0):
    """``height * relu(hat(a + b) + ramp(a) + ramp(b) - 2)``: first-layer kinks on lines a + b = const only."""
    rows = t([[1.0, 1.0]] * 3 + [[ramp, 0]] * 2 + [[0, ramp]] * 2)
    first = (rows, t([-(centre - width), -centre, -(centre + width), 0.0, -1.0, 0.0, -1.0]))
    return with_layers(s, [first, (t([[1 / width, -2 / width, 1 / width, 1, -1, 1, -1]]), t([-2.0]))], height)


def spot(s, a, b, width, height):
    """``height * relu(hat_a(a) + hat_b(b) - 1)`` on a ``width`` square, its kinks in the second layer only."""
    second = (t([[1.0, 0]] * 3 + [[0, 1.0]] * 3), t([-(a - width), -a, -(a + width), -(b - width), -b, -(b + width)]))
    return with_layers(s, [IDENTITY_FIRST, second, (t([[1 / width, -2 / width, 1 / width] * 2]), t([-1.0 - MARGIN]))], height)


def diagonal_spot(s, a, b, width, height):
    """A spot at ``(a, b)`` bounded by first-layer kinks on the diagonals a + b and a - b (no lone weight)."""
    rows = t([[1.0, 1.0]] * 3 + [[1.0, -1.0]] * 3)
    u, v = a + b, a - b
    first = (rows, t([-(u - width), -u, -(u + width), -(v - width), -v, -(v + width)]))
    return with_layers(s, [first, (t([[1 / width, -2 / width, 1 / width] * 2]), t([-1.0 - MARGIN]))], height)


S = 5
NARROW = [  # (defect, its maximum): widths 1e-3 to 3e-7, heights 3·4^-s up
    (stripe(S, 0, 0.4137, 1e-4, 0.01), 0.01), (stripe(S, 1, 0.70711, 3e-6, 3 * 4.0**-S), 3 * 4.0**-S),
    (stripe(S, 0, 0.05, 3e-7, 0.5), 0.5), (stripe(S, 1, 0.9876, 1e-3, 10 * 4.0**-S), 10 * 4.0**-S),
    (diagonal_stripe(S, 0.9137, 1e-4, 0.01), 0.01), (diagonal_stripe(S, 1.618, 2e-6, 4 * 4.0**-S), 4 * 4.0**-S),
    (spot(S, 0.61, 0.42, 1e-3, 0.5), 0.5), (spot(S, 0.123456, 0.876543, 1e-6, 5 * 4.0**-S), 5 * 4.0**-S),
    (diagonal_spot(S, 0.3183, 0.2718, 1e-5, 0.05), 0.05), (spot(S, 0.2222, 0.7777, 3e-7, 0.02), 0.02),
]


@pytest.mark.parametrize("index", range(len(NARROW)))
def test_a_narrow_defect_of_the_product_is_read_exactly(index):
    """A narrow defect, its kinks in the first or second layer, is read to 4^-s."""
    block, height = NARROW[index]
    assert zero_preserving(block)  # so only the product's error can see it
    assert height - 4.0**-S <= product_error(block) <= height + 4.0**-S


@pytest.mark.parametrize("index", [1, 4, 7, 8])
def test_network_a_fails_a_product_with_a_narrow_defect(index):
    def product(s):
        return NARROW[index][0] if s == S else yarotsky_product(s)
    f = lambda x: (4 * x * (1 - x)).prod(1) * torch.exp(x.sum(1))  # noqa: E731
    check = check_relu_sparse_grid_network(f, d=2, level=5, ss=[3, S], product=product)
    assert check.verdict == "FAILED"
    assert not check.requirements[PRODUCT_REQUIREMENT]


def slanted_spot(s, a, b, width, height):
    """A spot at ``(a, b)`` bounded by second-layer kinks along u = a + 0.3 b and v = 0.3 a + b (no axis)."""
    first = (t([[1.0, 0.3], [0.3, 1.0]]), t([0.0, 0.0]))  # u, v > 0 on the square: the first layer has no kink there
    u, v = a + 0.3 * b, 0.3 * a + b
    second = (t([[1.0, 0]] * 3 + [[0, 1.0]] * 3), t([-(u - width), -u, -(u + width), -(v - width), -v, -(v + width)]))
    return with_layers(s, [first, second, (t([[1 / width, -2 / width, 1 / width] * 2]), t([-1.0 - MARGIN]))], height)


PRODUCT_REQUIREMENT = ("sup|P(a, b) − ab| <= 4^(−s) (+ round-off), the bound's error per product, on every linear "
                       "piece of a zero-preserving product")


def test_a_slanted_spot_of_any_width_is_read():
    """Second-layer kinks along no axis bound the spot: read to 4^-s at every width, 1/32 down to 1e-6."""
    for width in (2 / 64, 1e-3, 1e-4, 1e-6):
        assert abs(product_error(slanted_spot(S, 0.61, 0.42, width, 0.5)) - 0.5) <= 4.0**-S


def polygon_spot(s, a, b, directions, radius, height, deeper=0):
    """``height * relu(1 - sum_k |n_k·(x - x0)| / radius)``: a convex spot whose edges are kinks of layer 3 (or
    ``3 + deeper``), bent on the second-layer lines n_k·(x - x0) = 0, no first-layer kink near it."""
    rows = [[n[0] * sign, n[1] * sign] for n in directions for sign in (1.0, -1.0)]
    bias = [-(n[0] * a + n[1] * b) * sign for n in directions for sign in (1.0, -1.0)]
    second = (t(rows), t(bias))
    keep = [(torch.eye(len(rows), dtype=torch.float64), torch.zeros(len(rows), dtype=torch.float64))] * deeper
    last = (t([[-1.0 / radius] * len(rows)]), t([1.0]))
    return with_layers(s, [IDENTITY_FIRST, second, *keep, last], height)


def grid_maximum(block):
    """max |P(a, b) - ab| on a 2001 x 2001 grid of [0, 1]^2."""
    a, b = torch.meshgrid(*[torch.linspace(0, 1, 2001, dtype=torch.float64)] * 2, indexing="ij")
    x = torch.stack([a.ravel(), b.ravel()], 1)
    with torch.no_grad():
        return float((block(x)[:, 0] - x[:, 0] * x[:, 1]).abs().max())


SPOTS = [  # (defect, its height): layers 3 to 5; a rhombus, a hexagon, a slanted rhombus, a sliver, a triangle-ish
    (polygon_spot(S, 0.731, 0.268, [(1.0, 0.0), (0.0, 1.0)], 0.01, 2.5 * 4.0**-S), 2.5 * 4.0**-S),
    (polygon_spot(S, 0.3183, 0.5772, [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)], 0.02, 2.2 * 4.0**-S), 2.2 * 4.0**-S),
    (polygon_spot(S, 0.123, 0.871, [(1.0, 2.0), (2.0, -1.0)], 0.005, 3.0 * 4.0**-S, deeper=1), 3.0 * 4.0**-S),
    (polygon_spot(S, 0.9517, 0.0461, [(1.0, 0.3), (-0.2, 1.0)], 1e-5, 2.0 * 4.0**-S, deeper=2), 2.0 * 4.0**-S),
    (polygon_spot(S, 0.5, 0.5, [(3.0, 1.0), (1.0, -3.0), (1.0, 1.0)], 0.03, 4.0 * 4.0**-S), 4.0 * 4.0**-S),
]


@pytest.mark.parametrize("index", range(len(SPOTS)))
def test_a_spot_of_a_deep_layer_is_read_exactly(index):
    """Spots 1e-5 to 0.03 wide whose boundary is a kink of the third to fifth layer, on no line through a
    first-layer kink: the product's error is their height to Yarotsky's 4^-s, and no sample of a 2001 x 2001
    grid exceeds it."""
    block, height = SPOTS[index]
    assert zero_preserving(block)
    error = product_error(block)
    assert height - 4.0**-S <= error <= height + 4.0**-S
    sampled = grid_maximum(block)
    assert sampled <= error * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_the_product_error_is_the_supremum_of_a_random_network(seed):
    """Random ReLU networks of two inputs (width 6, depth 4): the exact reading is at least every sampled value on a
    2001 x 2001 grid, and within the grid's spacing times the Lipschitz bound of it."""
    generator = torch.Generator().manual_seed(seed)
    sizes = [2, 6, 6, 6, 1]
    block = relu_network([(torch.randn(o, i, generator=generator, dtype=torch.float64),
                           torch.randn(o, generator=generator, dtype=torch.float64) * 0.5)
                          for i, o in zip(sizes, sizes[1:])])
    error = product_error(block)
    sampled = grid_maximum(block)
    lipschitz = 2 + float(torch.tensor([w.norm(2) for w, _ in network_a.affine_maps(block)]).prod())
    assert sampled <= error * (1 + 1e-12) + 1e-15
    assert error - sampled <= lipschitz * 0.5 / 2000 * 2**0.5


@pytest.mark.parametrize(("index", "d"), [(0, 2), (1, 3), (2, 3), (3, 2)])
def test_network_a_fails_a_product_with_a_deep_spot(index, d):
    def product(s):
        return SPOTS[index][0] if s == S else yarotsky_product(s)
    f = lambda x: (x * (1 - x)).prod(1) * torch.cos(x.sum(1))  # noqa: E731
    check = check_relu_sparse_grid_network(f, d=d, level=3, ss=[4, S], product=product)
    assert check.verdict == "FAILED" and not check.requirements[PRODUCT_REQUIREMENT]
    assert check.notes["sup|P(a, b) − ab|·4^s"][-1] >= SPOTS[index][1] * 4**S - 1


def test_linear_pieces_cover_the_square_and_refuse_beyond_their_budget(monkeypatch):
    """Yarotsky's product of depth 6: 4^6 / 2 pieces whose areas sum to 1; beyond MAX_PIECES a ValueError naming
    the product."""
    vertices, count, _ = linear_pieces_2d(yarotsky_product(6))
    assert vertices.shape[0] == 4**6 // 2
    slot = torch.arange(vertices.shape[1])
    following = (slot + 1) % count[:, None]
    a, b = vertices[..., 0], vertices[..., 1]
    area = 0.5 * (a * b.gather(1, following) - a.gather(1, following) * b).where(slot < count[:, None], 0.0).sum(1)
    assert abs(float(area.sum()) - 1) <= 1e-12 and float(area.min()) > 0
    monkeypatch.setattr(network_a, "MAX_PIECES", 100)
    with pytest.raises(ValueError, match="product"):
        linear_pieces_2d(yarotsky_product(5))


def test_network_a_fails_a_product_wrong_on_a_small_square():
    f = lambda x: (4 * x * (1 - x)).prod(1) * torch.exp(x.sum(1))  # noqa: E731
    assert not check_relu_sparse_grid_network(f, d=2, level=5, ss=[3, 5], product=spike_at).passed
    check_relu_sparse_grid_network(f, d=2, level=5, ss=[3, 5]).assert_passed()


class Hooked(SparseGridInterpolant):
    """Holds one interpolant's data, evaluates another (or nothing)."""

    def __call__(self, x):
        return torch.zeros(x.shape[0], dtype=torch.float64)

    def level_terms(self, x):
        return torch.zeros(x.shape[0], self.levels.shape[0], dtype=torch.float64)


def hooked(build):
    def make(f, *, d, level, degree=1):
        data = build(f, d=d, level=level, degree=degree)
        return Hooked(**{field.name: getattr(data, field.name) for field in dataclasses.fields(data)})
    return make


def test_the_level_check_evaluates_the_built_data_not_its_methods():
    f = lambda x: (4 * x * (1 - x)).prod(1) * torch.exp(x.sum(1))  # noqa: E731
    levels = list(range(3, 9))
    assert check_sparse_grid_levels(f, d=2, levels=levels, build=hooked(interpolant_without_level)).verdict == "FAILED"
    check_sparse_grid_levels(f, d=2, levels=levels, build=hooked(sparse_grid_interpolant)).assert_passed()


def bump(t, left, right):
    return (torch.relu(t - left) * torch.relu(right - t) * 4 / (right - left) ** 2).pow(6)


@pytest.mark.parametrize(("direction", "node", "band"), [(0, 0.5, (0.38, 0.69)), (1, 0.3, (0.52, 0.71)),
                                                         (1, 0.8125, (0.05, 0.2))])
def test_a_kink_in_a_band_between_fixed_lines_is_seen(direction, node, band):
    def f(x):
        kinked, other = x[:, direction], x[:, 1 - direction]
        return 4 * kinked * (1 - kinked) * torch.relu(kinked - node) * bump(other, *band)
    check = check_sparse_grid_levels(f, d=2, levels=list(range(3, 11)))
    assert check.verdict == "FAILED"


@pytest.mark.slow
def test_linf_in_class_target_is_never_failed_across_seeds():
    """Finding 5: C^2 profiles times cubics; the refined L_inf errors agree across seeds (ratios to 2%)."""
    def g(x):
        return torch.relu(x[:, 0] - 0.67).pow(3) * (1 - x[:, 0]) / 0.0044 * 4 * x[:, 1] * (1 - x[:, 1]) * (0.5 + x[:, 1])
    last = []
    for seed in range(10):
        check = check_sparse_grid_levels(g, d=2, levels=default_levels(2), norm="Linf", seed=seed)
        assert check.verdict in ("PASSED", "INCONCLUSIVE"), (seed, check.notes["ratios per level"])
        last.append(check.notes["ratios per level"][-1])
    assert max(last) <= 1.02 * min(last)


def test_a_product_of_another_dtype_is_refused_by_name():
    with pytest.raises(TypeError, match="product"):
        relu_sparse_grid_network(sparse_grid_interpolant(basis_sum_target(2, 3), d=2, level=3), s=3,
                                 product=lambda s: yarotsky_product(s).to(torch.float32))
