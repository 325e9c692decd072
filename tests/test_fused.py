"""The fused path of Network A (nnproofs.fused, numba) computes the eager network's values; bad input is refused."""

import itertools
import sys

import pytest
import torch

from nnproofs.fused import FusedUnavailable, fused_network_a, template_source
from nnproofs.korobov import (ROUNDING, clamped_product, korobov_example, relu_sparse_grid_network,
                              sparse_grid_interpolant, uniform_points)
from nnproofs.networks import relu_network

CASES = ((2, 5, 3, True), (3, 4, 2, True), (4, 3, 2, True), (4, 3, 2, False))  # (d, level, s, prune): small grids


def probe_points(d: int, level: int) -> torch.Tensor:
    """Random points, points on every face, the corners and dyadic points (grid points and cell edges of every level)."""
    g = torch.Generator().manual_seed(d)
    random = uniform_points(2000, d, seed=d)
    faces = torch.rand(4 * d, d, dtype=torch.float64, generator=g)
    for j in range(d):
        faces[4 * j : 4 * j + 2, j], faces[4 * j + 2 : 4 * j + 4, j] = 0.0, 1.0
    corners = torch.tensor(list(itertools.product((0.0, 1.0), repeat=d)), dtype=torch.float64)
    dyadic = torch.randint(0, 2 ** (level + 1) + 1, (2000, d), generator=g).to(torch.float64) / 2 ** (level + 1)
    return torch.cat([random, faces, corners, dyadic])


@pytest.mark.parametrize("d, level, s, prune", CASES)
def test_fused_network_a_equals_eager(d, level, s, prune):
    """Fused and eager values agree to ROUNDING relative to the largest value: the sums over a unit's inputs
    and over the levels run in another order (and with fused multiply-adds), nothing else differs."""
    network = relu_sparse_grid_network(sparse_grid_interpolant(korobov_example(d), d=d, level=level), s=s, prune=prune)
    x = probe_points(d, level)
    with torch.no_grad():
        eager = network(x)
        network.fuse()
        fused = network(x)
    assert fused.dtype == torch.float64 and fused.shape == eager.shape
    gap = float((fused - eager).abs().max())
    assert gap <= ROUNDING * max(1.0, float(eager.abs().max())), f"d={d}: fused differs from eager by {gap:.3g}"
    assert float(eager.abs().max()) > 0.1  # a nonzero function: the comparison is not vacuous
    assert network(x[:0]).shape == (0,)


def test_fused_path_keeps_autograd_and_refuses_bad_input():
    interpolant = sparse_grid_interpolant(korobov_example(2), d=2, level=4)
    network = relu_sparse_grid_network(interpolant, s=2, prune=True)
    x = uniform_points(200, 2, seed=1)
    gradient = network.gradient(x)
    network.fuse()
    assert torch.equal(network.gradient(x), gradient)  # inputs that need a gradient take the eager pass
    with pytest.raises(TypeError, match="float64"):
        network(x.float())
    with pytest.raises(TypeError, match="torch.Tensor"):
        network(x.numpy())
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        network(x[:, :1])
    with pytest.raises(ValueError, match=r"\[0, 1\]\^2"):
        network(x + 1.0)
    with pytest.raises(ValueError, match="CPU.*meta"):
        network(torch.empty(3, 2, dtype=torch.float64, device="meta"))
    with pytest.raises(ValueError, match="block"):
        fused_network_a(interpolant, network.active_template, block=0)
    with pytest.raises(ValueError, match="R\\^2 to R"):
        fused_network_a(interpolant, relu_network([(torch.ones(1, 3, dtype=torch.float64), torch.zeros(1))]))


def test_fuse_refuses_a_leaking_product():
    network = relu_sparse_grid_network(sparse_grid_interpolant(korobov_example(2), d=2, level=3), s=3,
                                       product=clamped_product)
    with pytest.raises(ValueError, match="zero-preserving"):
        network.fuse()


def test_template_source_writes_nonzero_weights_exactly():
    w1 = torch.tensor([[1.0, 0.0], [0.1, -3.0], [0.0, 0.0]], dtype=torch.float64)
    net = relu_network([(w1, torch.tensor([0.0, 0.5, 2.0], dtype=torch.float64)),
                        (torch.tensor([[1.0, 2.0, 0.0]], dtype=torch.float64), torch.zeros(1, dtype=torch.float64))])
    statements, output = template_source(net, 2)
    assert statements == ["h0_0 = max(t0, 0.0)", "h0_1 = max((0.1 * t0 + -3.0 * t1) + 0.5, 0.0)", "h0_2 = max(2.0, 0.0)",
                          "h1_0 = h0_0 + 2.0 * h0_1"]
    assert output == "h1_0"


def test_missing_numba_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError
    network = relu_sparse_grid_network(sparse_grid_interpolant(korobov_example(2), d=2, level=3), s=2, prune=True)
    with pytest.raises(FusedUnavailable, match="numba") as error:
        network.fuse()
    assert isinstance(error.value, ModuleNotFoundError) and network.fused is None
