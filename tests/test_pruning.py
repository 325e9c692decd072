"""Interval pruning (nnproofs.pruning): same function on the box, sound bounds, nothing pruned where nothing can be."""

import pytest
import torch

from nnproofs import gadgets, networks
from nnproofs.korobov import basis_product_network
from nnproofs.pruning import preactivation_bounds, prune_inactive

SOUNDNESS_POINTS = 100_000
UNIT_ROUNDOFF = 2.0**-53


def rounding_bound(net, x):
    """A bound, per point, on |fl(net(x)) − net(x)|: the float64 forward error of the ReLU network ``net``.

    Each affine map ``z = W h + b`` with ``k`` terms per row is computed to within ``γ_k (|W| |h| + |b|)``,
    ``γ_k = k u / (1 − k u)`` (in any order of summation: Higham, *Accuracy and Stability*, §3.1), and ρ is
    1-Lipschitz, so the error ``e`` of the hidden values obeys ``e' ≤ |W| e + γ_k (|W| |h| + |b|)``. Pruning
    changes the function on the box by nothing, so two such networks differ by at most the sum of their
    bounds, whatever order the machine's BLAS sums in (it differs between CPUs).
    """
    h, e = x, torch.zeros_like(x)
    maps = networks.affine_maps(net)
    for i, (w, b) in enumerate(maps):
        k = w.shape[1] + 1
        gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)
        z = h @ w.T + b
        e = e @ w.abs().T + gamma * (h.abs() @ w.abs().T + b.abs())
        h = z if i == len(maps) - 1 else torch.relu(z)
    return e


def assert_same_function(pruned, net, x, name=""):
    """``pruned`` and ``net`` agree at every point of ``x`` within the sum of their float64 forward-error bounds."""
    with torch.no_grad():
        gap = (pruned(x) - net(x)).abs()
        bound = rounding_bound(pruned, x) + rounding_bound(net, x)
    worst = int(torch.argmax((gap - bound).flatten()))
    assert bool((gap <= bound).all()), \
        f"{name}: pruned network differs by {float(gap.flatten()[worst]):.3g} > bound {float(bound.flatten()[worst]):.3g}"
    return float(gap.max()), float(bound.max())


def box_points(low, high, n, seed=0):
    """``n`` uniform points of the box, its corners, and points on every face."""
    low, high = torch.as_tensor(low, dtype=torch.float64), torch.as_tensor(high, dtype=torch.float64)
    d = low.numel()
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, d, generator=g, dtype=torch.float64)
    corners = torch.cartesian_prod(*[torch.tensor([0.0, 1.0], dtype=torch.float64)] * d).reshape(-1, d)
    faces = torch.rand(200 * d, d, generator=g, dtype=torch.float64)
    for j in range(d):
        faces[200 * j : 200 * j + 100, j], faces[200 * j + 100 : 200 * (j + 1), j] = 0.0, 1.0
    dyadic = torch.randint(0, 65, (1000, d), generator=g).to(torch.float64) / 64  # kinks of the gadgets
    return low + (high - low) * torch.cat([u, corners, faces, dyadic])


def hidden_preactivations(net, x):
    maps, out, h = networks.affine_maps(net), [], x
    for w, b in maps[:-1]:
        z = h @ w.T + b
        out.append(z)
        h = torch.relu(z)
    return out


def square(m):
    return gadgets.yarotsky_square(m), (0.0, 1.0)


CASES = {
    "square m=1": lambda: square(1),
    "square m=6": lambda: square(6),
    "product m=5": lambda: (gadgets.yarotsky_product(5), (0.0, 1.0)),
    "hat": lambda: (gadgets.hat(-1.0, 0.0, 1.0), (-1.0, 1.0)),
    "hat on a wider box": lambda: (gadgets.hat(0.0, 0.25, 1.0), (-2.0, 3.0)),
    "sawtooth s=4": lambda: (gadgets.sawtooth(4), (0.0, 1.0)),
    "template d=2 s=6": lambda: (basis_product_network(2, 6), (-1.0, 1.0)),
    "template d=3 s=5": lambda: (basis_product_network(3, 5), (-1.0, 1.0)),
    "template d=4 s=3": lambda: (basis_product_network(4, 3), (-1.0, 1.0)),
}


@pytest.mark.parametrize("name", CASES)
def test_pruned_network_equals_original_on_the_box(name):
    net, box = CASES[name]()
    pruned = prune_inactive(net, box)
    d = networks.affine_maps(net)[0][0].shape[1]
    x = box_points([box[0]] * d, [box[1]] * d, 20_000)
    assert_same_function(pruned, net, x, name)
    before, after = networks.architecture(net), networks.architecture(pruned)
    assert after.depth <= before.depth and after.nonzero_parameters <= before.nonzero_parameters
    if name != "hat on a wider box":  # there every unit takes both signs
        assert after.nonzero_parameters < before.nonzero_parameters


@pytest.mark.parametrize("name", ["square m=6", "product m=5", "template d=2 s=6", "template d=3 s=5"])
def test_bounds_are_sound_and_dead_units_are_zero(name):
    net, box = CASES[name]()
    d = networks.affine_maps(net)[0][0].shape[1]
    x = box_points([box[0]] * d, [box[1]] * d, SOUNDNESS_POINTS, seed=1)
    bounds = preactivation_bounds(net, box)
    dead = 0
    with torch.no_grad():
        for (low, high), z in zip(bounds, hidden_preactivations(net, x)):
            assert bool((z >= low).all() and (z <= high).all()), f"{name}: a bound is violated"
            assert bool((z[:, high <= 0] <= 0).all())
            dead += int((high <= 0).sum())
    assert dead > 0


def test_known_idle_units_are_proved():
    """Yarotsky's square on [0, 1]: ρ(x − 1), ρ(−x), ρ(g − 1), ρ(−y) are idle, and their bound is exactly 0."""
    bounds = preactivation_bounds(gadgets.yarotsky_square(5), (0.0, 1.0))
    for low, high in bounds:
        assert high[2] == 0.0 and high[4] == 0.0  # ρ(g − 1) and ρ(−y): exactly 0, proved without a margin
        assert low[0] == 0.0 and low[3] >= 0.0  # ρ(g) and ρ(y) always active
    assert networks.architecture(prune_inactive(gadgets.yarotsky_square(5), (0.0, 1.0))).width == 3


def test_clipped_products_feed_provably_idle_units():
    """Network A's template in d = 4: the clips keep the second product's inputs in [0, 1], so its
    ρ(g − 1) and ρ(−y) are proved idle as in the first products: of the units never positive on random
    points, only the clips' own ρ(z − 1) (z can exceed 1 by the product's error) are left."""
    template = basis_product_network(4, 4)
    x = box_points([-1.0] * 4, [1.0] * 4, 20_000)
    bounds = preactivation_bounds(template, (-1.0, 1.0))
    with torch.no_grad():
        never_positive = sum(int((z <= 0).all(0).sum()) for z in hidden_preactivations(template, x))
    proved = sum(int((high <= 0).sum()) for _, high in bounds)
    assert proved <= never_positive <= proved + 3


def test_square_on_a_box_with_negative_inputs_keeps_its_carry():
    """On [−1, 1] the value y can be negative: ρ(−y) must stay, and the network stays exact."""
    net = gadgets.yarotsky_square(4)
    pruned = prune_inactive(net, (-1.0, 1.0))
    x = box_points([-1.0], [1.0], 5000)
    assert_same_function(pruned, net, x)
    assert networks.architecture(pruned).width > 3


@pytest.mark.parametrize("seed", range(5))
def test_random_networks_where_nothing_can_be_pruned(seed):
    """Random weights, zero biases, box [−1, 1]^4: every first-layer unit takes both signs, nothing is removed;
    in a second random layer only units that are never positive may go, and the output is unchanged."""
    g = torch.Generator().manual_seed(seed)
    zeros = [torch.zeros(k, dtype=torch.float64) for k in (8, 8, 1)]
    w1, w2, w3 = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((8, 4), (8, 8), (1, 8)))
    shallow = networks.relu_network([(w1, zeros[0]), (w3, zeros[2])])
    assert networks.architecture(prune_inactive(shallow, (-1.0, 1.0))) == networks.architecture(shallow)
    deep = networks.relu_network([(w1, zeros[0]), (w2, zeros[1]), (w3, zeros[2])])
    pruned = prune_inactive(deep, (-1.0, 1.0))
    x = box_points([-1.0] * 4, [1.0] * 4, 5000)
    assert_same_function(pruned, deep, x)  # removed terms change the order of BLAS's sums
    with torch.no_grad():
        seen_positive = int((hidden_preactivations(deep, x)[1] > 0).any(0).sum())
    assert networks.architecture(pruned).width == 8 and seen_positive <= len(list(pruned)[2].bias)


def test_affine_layers_are_folded_and_dead_layers_leave_a_constant():
    one = torch.ones(1, 1, dtype=torch.float64)
    identity = networks.relu_network([(one, torch.zeros(1, dtype=torch.float64))] * 3)  # ρ(ρ(x)) on [1, 2]
    folded = prune_inactive(identity, (1.0, 2.0))
    assert networks.architecture(folded).depth == 0
    x = torch.linspace(1, 2, 101, dtype=torch.float64)[:, None]
    assert torch.equal(folded(x), identity(x))
    dead = networks.relu_network([(-one, torch.zeros(1, dtype=torch.float64)), (one, torch.full((1,), 3.0,
                                  dtype=torch.float64))])  # ρ(−x) + 3 on [0, 1]
    constant = prune_inactive(dead, (0.0, 1.0))
    assert torch.equal(constant(x - 1), torch.full((101, 1), 3.0, dtype=torch.float64))


@pytest.mark.parametrize("box, match", [((0.0,), "box"), ((1.0, 0.0), "lower <= upper"), ("ab", "box"),
                                        ((0.0, float("nan")), "finite"), (([0.0, 0.0], [1.0]), "box")])
def test_bad_box_is_rejected_by_name(box, match):
    with pytest.raises((TypeError, ValueError), match=match):
        prune_inactive(gadgets.yarotsky_square(2), box)


def test_bad_network_is_rejected_by_name():
    with pytest.raises(TypeError, match="net"):
        prune_inactive(torch.nn.Linear(1, 1), (0.0, 1.0))


@pytest.mark.parametrize("d, level, s", [(2, 5, 6), (3, 4, 4)])
def test_network_a_with_its_pruned_template_is_the_same_network(d, level, s):
    from nnproofs.korobov import korobov_example, relu_sparse_grid_network, sparse_grid_interpolant, uniform_points

    interpolant = sparse_grid_interpolant(korobov_example(d), d=d, level=level)
    full, pruned = (relu_sparse_grid_network(interpolant, s=s, prune=p) for p in (False, True))
    x = torch.cat([uniform_points(20_000, d, seed=2), torch.tensor([[0.0] * d, [1.0] * d, [0.5] * d],
                                                                     dtype=torch.float64)])
    with torch.no_grad():
        gap = float((pruned(x) - full(x)).abs().max())
    # the sum of #levels copies, each weighted by a surplus, of templates that agree within their rounding
    template = pruned.active_template
    local = box_points([-1.0] * d, [1.0] * d, 2000)
    _, per_copy = assert_same_function(template, full.template, local)
    scale = interpolant.levels.shape[0] * float(interpolant.surpluses.abs().max())
    assert gap <= per_copy * scale + 4 * UNIT_ROUNDOFF * float(full(x).abs().max()) * interpolant.levels.shape[0]
    assert (networks.architecture(pruned.active_template).nonzero_parameters
            < networks.architecture(full.template).nonzero_parameters)


def test_network_a_refuses_to_prune_a_leaking_product():
    from nnproofs.korobov import clamped_product, korobov_example, relu_sparse_grid_network, sparse_grid_interpolant

    interpolant = sparse_grid_interpolant(korobov_example(2), d=2, level=3)
    with pytest.raises(ValueError, match="prune"):
        relu_sparse_grid_network(interpolant, s=3, product=clamped_product, prune=True)
    with pytest.raises(TypeError, match="prune"):
        relu_sparse_grid_network(interpolant, s=3, prune="yes")


@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")  # torch's own import
def test_compiled_network_a_agrees_with_eager():
    """The compiled path (TorchInductor) gives Network A's values to 1e-15; skipped only where no compiler works."""
    from nnproofs.korobov import korobov_example, relu_sparse_grid_network, sparse_grid_interpolant, uniform_points

    interpolant = sparse_grid_interpolant(korobov_example(2), d=2, level=4)
    network = relu_sparse_grid_network(interpolant, s=2, prune=True)
    x = uniform_points(3000, 2, seed=3)
    with torch.no_grad():
        eager = network(x)
        if not network.compile():
            pytest.skip("torch.compile has no working compiler on this machine")
        compiled = network(x)
    assert float((compiled - eager).abs().max()) <= 1e-15
