"""Chapter 4 (Theorems thm-barrier-decay and thm-barrier-1d): constructive paths, their guarantees,
the rate checks and their negative controls, the baselines, and input validation."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from nnproofs import barrier, ledger
from nnproofs.networks import relu_network

LAM = barrier.LAMBDA


def random_network(n: int, m: int, seed: int, *, dead: int = 0, unit: int = 0, scale: float = 1.0):
    """A feasible network: ``w_j`` uniform in the unit ball (``dead`` rows zero, ``unit`` rows on the sphere)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(m, n, generator=g, dtype=torch.float64)
    w = w / w.norm(dim=1, keepdim=True) * torch.rand(m, 1, generator=g, dtype=torch.float64) ** (1 / n)
    w[:unit] /= w[:unit].norm(dim=1, keepdim=True)
    if dead:
        w[-dead:] = 0
    return w, scale * torch.randn(m, generator=g, dtype=torch.float64) / m


def other_data(n: int, loss: str, kind: int, samples: int = 128, seed: int = 5):
    """Targets other than the chapter's teacher: a smooth function, or a sign pattern for BCE."""
    g = torch.Generator().manual_seed(seed)
    x = 2 * torch.rand(samples, n, generator=g, dtype=torch.float64) - 1  # a cube, not the ball
    if kind == 0:
        target = torch.sin(3 * x[:, 0]) + (x**2).sum(1)
    else:
        target = x.abs().sum(1) - 0.5 * x[:, -1]
    if loss == "bce":
        return x, (target > target.median()).to(torch.float64)
    return x, target


# ------------------------------------------------------------------------------------------
# The construction: segment guarantees on random networks (property tests)
# ------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), m=st.integers(4, 24), seed=st.integers(0, 10**6), dead=st.integers(0, 2),
       unit=st.integers(0, 3), loss=st.sampled_from(("huber", "bce")), cover=st.sampled_from(barrier.COVERS),
       scale=st.sampled_from((0.1, 1.0, 30.0)))
def test_every_segment_keeps_its_guarantee(n, m, seed, dead, unit, loss, cover, scale):
    A = random_network(n, m, seed, dead=dead, unit=unit, scale=scale)
    B = random_network(n, m, seed + 1, scale=scale)
    x, y = other_data(n, loss, seed % 2, samples=64, seed=seed)
    path = barrier.constructive_path(A, B, x, cover=cover)
    torch.testing.assert_close(path.start[0], A[0], rtol=0, atol=0)
    torch.testing.assert_close(path.start[1], A[1], rtol=0, atol=0)
    torch.testing.assert_close(path.end[0], B[0], rtol=0, atol=0)
    torch.testing.assert_close(path.end[1], B[1], rtol=0, atol=0)
    report = barrier.audit(path, x, y, loss=loss, lam=LAM)
    assert report.holds, report.failures
    assert report.max_function_change <= barrier.FUNCTION_ATOL
    assert report.barrier <= report.certificate + barrier.COST_ATOL  # certificate ≥ realised barrier
    assert report.spherized_level <= report.level + barrier.COST_ATOL
    W, a = path.evaluate(torch.linspace(0, 1, 101))
    assert float(W.norm(dim=-1).max()) <= 1 + barrier.FEASIBILITY_RTOL  # the path stays feasible


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 3), m=st.integers(4, 16), seed=st.integers(0, 10**6))
def test_segments_join_continuously(n, m, seed):
    path = barrier.constructive_path(random_network(n, m, seed), random_network(n, m, seed + 7),
                                     torch.zeros(3, n), cover="grid")
    ends = [s.evaluate(torch.tensor([0.0, 1.0])) for s in path.segments]
    for (W_end, a_end), (W_next, a_next) in zip(ends[:-1], ends[1:]):
        torch.testing.assert_close(W_end[1], W_next[0], rtol=0, atol=1e-15)
        torch.testing.assert_close(a_end[1], a_next[0], rtol=0, atol=1e-15)


def test_spherize_segment_is_the_rescaling_curve():
    A, B = random_network(2, 8, 1), random_network(2, 8, 2)
    x = torch.randn(50, 2, dtype=torch.float64)
    (segment, *_) = barrier.constructive_path(A, B, x).segments
    assert segment.kind == "spherize" and segment.curve == "rescale"
    W, a = segment.evaluate(torch.linspace(0, 1, 9))
    r = A[0].norm(dim=1)
    s = 1 - 0.5 + 0.5 * r
    torch.testing.assert_close(W[4], A[0] / s[:, None], rtol=1e-15, atol=0)
    assert bool((a.abs()[1:] <= a.abs()[:-1] + 1e-16).all())  # |a_j(t)| non-increasing, since ‖w_j‖ ≤ 1
    torch.testing.assert_close(W[-1].norm(dim=1), torch.ones(8, dtype=torch.float64))


def test_certificate_formula_and_canonical_forms():
    A, B = random_network(3, 20, 3), random_network(3, 20, 4)
    x = torch.randn(40, 3, dtype=torch.float64)
    path = barrier.constructive_path(A, B, x, cover="grid")
    canonical_A, canonical_B = path.info["canonical"]
    tilde_w = A[0] / A[0].norm(dim=1, keepdim=True)
    tilde_a = A[1] * A[0].norm(dim=1)
    u = canonical_A.centres[canonical_A.assignment]
    moment = float((tilde_a.abs() * (tilde_w - u).norm(dim=1)).sum())
    assert path.moments[0] == pytest.approx(moment, rel=1e-12)
    assert path.certificate(x, 0.5) == pytest.approx(0.5 * float(x.norm(dim=1).mean()) * max(path.moments), rel=1e-14)
    for canonical in (canonical_A, canonical_B):
        assert canonical.slots.numel() <= 10  # at most K = m/2 occupied cells
        assert int((canonical.a != 0).sum()) == canonical.slots.numel()
    assert sum(path.info["occupied"]) <= 20


@pytest.mark.parametrize("n", [2, 3])
def test_grid_cover_radius(n):
    cells = 24
    centres = barrier.sphere_cover(n, cells)
    torch.testing.assert_close(centres.norm(dim=1), torch.ones(cells, dtype=torch.float64))
    probe = torch.randn(20000, n, dtype=torch.float64)
    probe = probe / probe.norm(dim=1, keepdim=True)
    radius = float(torch.cdist(probe, centres).min(1).values.max())
    if n == 2:
        assert radius <= 2 * math.sin(math.pi / (2 * cells)) + 1e-12
    assert radius <= 4 * cells ** (-1 / (n - 1))


def test_ball_cover_is_inside_the_ball_and_sphere_cover_in_high_dimension():
    assert float(barrier.ball_cover(3, 40).norm(dim=1).max()) <= 1
    torch.testing.assert_close(barrier.sphere_cover(5, 30).norm(dim=1), torch.ones(30, dtype=torch.float64))
    torch.testing.assert_close(barrier.sphere_cover(1, 99), torch.tensor([[1.0], [-1.0]], dtype=torch.float64))


def test_weighted_kmeans_is_deterministic_and_on_the_sphere():
    w, a = random_network(3, 40, 11, unit=40)
    first = barrier.weighted_kmeans(w, a, 10)
    torch.testing.assert_close(first, barrier.weighted_kmeans(w, a, 10), rtol=0, atol=0)
    torch.testing.assert_close(first.norm(dim=1), torch.ones(len(first), dtype=torch.float64))
    two_points = torch.tensor([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3, dtype=torch.float64)
    assert len(barrier.weighted_kmeans(two_points, torch.ones(6, dtype=torch.float64), 5)) == 2  # no empty cells


# ------------------------------------------------------------------------------------------
# n = 1: the barrier is exactly zero
# ------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(m=st.integers(4, 64), seed=st.integers(0, 10**6), loss=st.sampled_from(("huber", "bce")),
       scale=st.sampled_from((0.3, 3.0, 40.0)))
def test_zero_barrier_on_random_1d_pairs(m, seed, loss, scale):
    A, B = random_network(1, m, seed, scale=scale), random_network(1, m, seed + 1, scale=scale)
    x, y = other_data(1, loss, seed % 2, seed=seed)
    path = barrier.constructive_path(A, B, x)
    assert path.certificate(x, 1.0) == 0.0
    assert barrier.barrier(path, x, y, loss=loss, lam=LAM) <= barrier.ZERO_BARRIER_ATOL
    assert barrier.audit(path, x, y, loss=loss, lam=LAM).holds


def test_bridge_refuses_too_few_slots():
    x = torch.linspace(-1, 1, 11, dtype=torch.float64)[:, None]
    A = (torch.tensor([[1.0], [-0.5], [0.8]]), torch.tensor([0.3, 0.2, -0.1]))
    B = (torch.tensor([[-0.9], [0.7], [0.2]]), torch.tensor([0.1, 0.4, 0.2]))
    with pytest.raises(ValueError, match=r"the bridge needs K_A \+ K_B = 2 \+ 2 = 4 slots, but the networks have m = 3"):
        barrier.constructive_path(A, B, x)
    one_sided = (torch.tensor([[1.0], [0.5], [0.8]]), torch.tensor([0.3, 0.2, -0.1]))
    path = barrier.constructive_path(one_sided, B, x)  # 1 + 2 slots fit in m = 3
    assert barrier.barrier(path, x, x[:, 0], loss="huber", lam=LAM) <= barrier.ZERO_BARRIER_ATOL


@pytest.mark.parametrize("loss", ["huber", "bce"])
@pytest.mark.parametrize("kind", [0, 1])
def test_zero_barrier_check_on_other_targets(loss, kind):
    check = barrier.check_zero_barrier_1d([4, 8, 32], loss=loss, seeds=3, data=other_data(1, loss, kind), steps=150)
    check.assert_passed()
    assert check.measured <= barrier.ZERO_BARRIER_ATOL
    assert check.notes["largest certificate per width"] == [0.0, 0.0, 0.0]
    assert min(check.y) > 1e-4  # the straight line between the same networks does have a barrier


def test_biases_control_is_rejected():
    check = barrier.check_zero_barrier_1d([4, 8, 32], seeds=3, biases=True, steps=150)
    assert not check.passed and not check.rate_holds
    assert not check.requirements["certificate exactly 0 on every pair (S⁰ covered with radius 0)"]


# ------------------------------------------------------------------------------------------
# n >= 2: the rates and their controls
# ------------------------------------------------------------------------------------------

WIDTHS = [16, 32, 64, 128, 256]


@pytest.fixture(scope="module")
def spread_checks():
    return {n: barrier.check_barrier_decay(n=n, widths=WIDTHS, seeds=3) for n in (2, 3)}


def test_spread_certificate_rates(spread_checks):
    for n, check in spread_checks.items():
        check.assert_passed()
        assert check.sense == "=="
        assert check.expected == pytest.approx(-1 / (n - 1))
        assert check.fit.r2 > 0.99


def test_spread_rate_on_other_data_and_loss():
    x, y = other_data(2, "bce", 1)
    barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=3, loss="bce", data=(x, y)).assert_passed()


@pytest.mark.parametrize(("options", "failing"), [
    ({"spherization": "chord"}, {barrier.REQ_EXACT, barrier.REQ_MONOTONE}),
    ({"bridge": "joint"}, {barrier.REQ_BRIDGE}),
    ({"cells": 8}, set()),
    ({"spherization": "none"}, set()),
])
def test_rate_controls_are_rejected(options, failing, spread_checks):
    check = barrier.check_barrier_decay(n=2, widths=WIDTHS, seeds=3, **options)
    assert not check.passed
    assert {text for text, held in check.requirements.items() if not held} == failing
    if not failing:  # the rate itself must fail
        assert not check.rate_holds
    if options == {"spherization": "none"}:  # the ball's rate m^(-1/n), one dimension worse
        assert check.fit.slope == pytest.approx(-0.5, abs=0.1)
        assert check.fit.slope - spread_checks[2].fit.slope >= 0.12


@pytest.mark.parametrize(("n", "loss", "kind"), [(2, "huber", 0), (3, "bce", 0), (2, "bce", 1), (3, "huber", 1)])
def test_trained_check_on_other_targets(n, loss, kind):
    check = barrier.check_barrier_decay(n=n, widths=[16, 32, 64, 128], kind="trained", seeds=3, loss=loss,
                                        data=other_data(n, loss, kind))
    check.assert_passed()
    assert check.sense == "<="
    assert all(b <= c for b, c in zip(check.notes["largest realised barrier per width"],
                                      check.notes["largest certificate per width"]))


def test_relative_barrier_is_an_observation_not_the_theorem():
    """On BCE labels of |x|₁ − x₃/2 over the cube the networks condense less (relative barrier about 1e-3 at
    m = 32): a stricter relative requirement fails there, while everything the theorem asserts holds."""
    data = other_data(3, "bce", 1)
    options = dict(n=3, widths=[16, 32, 64, 128], kind="trained", seeds=3, loss="bce", data=data)
    strict = barrier.check_barrier_decay(**options, relative_barrier=1e-4)
    assert not strict.passed and strict.rate_holds
    assert [text for text, held in strict.requirements.items() if not held] == [
        "adaptive path: relative barrier ≤ 0.0001 on every pair with m ≥ 32"]
    theorem_only = barrier.check_barrier_decay(**options, relative_barrier=None)
    theorem_only.assert_passed()
    assert theorem_only.notes["adaptive relative barrier per width (largest)"] == "not measured"


def test_no_rate_without_positive_barriers():
    x = torch.randn(20, 2, dtype=torch.float64)
    y = torch.zeros(20, dtype=torch.float64)  # the zero network is optimal: nothing to merge, no barrier
    with pytest.raises(ValueError, match="no rate can be fitted"):
        barrier.check_barrier_decay(n=2, widths=[16, 32], kind="trained", seeds=2, data=(x, y), lam=10.0, steps=5)


# ------------------------------------------------------------------------------------------
# Evaluation, barrier conventions and baselines
# ------------------------------------------------------------------------------------------

def test_straight_line_against_an_independent_evaluation():
    """The cost along the line, recomputed with nn.Sequential modules and torch's own Huber loss."""
    A, B = random_network(2, 12, 21, scale=5.0), random_network(2, 12, 22, scale=5.0)
    x, y = other_data(2, "huber", 0)
    prof = barrier.profile(barrier.straight_line(A, B), x, y, loss="huber", lam=LAM, points_per_segment=11)
    for t, value in zip(prof.t, prof.cost):
        W, a = (1 - t) * A[0] + t * B[0], (1 - t) * A[1] + t * B[1]
        net = relu_network([(W, torch.zeros(12, dtype=torch.float64)), (a[None, :], torch.zeros(1, dtype=torch.float64))])
        data = nn.functional.huber_loss(net(x)[:, 0], y, delta=0.5)
        assert value == pytest.approx(float(data) + LAM * float(a.abs().sum()), rel=1e-13)


def test_straight_line_against_loss_landscapes():
    loss_landscapes = pytest.importorskip("loss_landscapes")
    from loss_landscapes.metrics import Metric

    A, B = random_network(3, 10, 31, scale=4.0), random_network(3, 10, 32, scale=4.0)
    x, y = other_data(3, "bce", 1)

    def module(net):
        model = nn.Sequential(nn.Linear(3, 10, bias=False), nn.ReLU(), nn.Linear(10, 1, bias=False)).double()
        with torch.no_grad():
            model[0].weight.copy_(net[0])
            model[2].weight.copy_(net[1][None, :])
        return model

    class Cost(Metric):
        def __call__(self, wrapper):
            out = wrapper.modules[0][2].weight
            logits = wrapper.forward(x)[:, 0]
            return float(nn.functional.binary_cross_entropy_with_logits(logits, y) + LAM * out.abs().sum())

    theirs = loss_landscapes.linear_interpolation(module(A), module(B), Cost(), steps=50, deepcopy_model=True)
    ours = barrier.profile(barrier.straight_line(A, B), x, y, loss="bce", lam=LAM, points_per_segment=51).cost
    torch.testing.assert_close(torch.as_tensor(theirs), torch.as_tensor(ours[1:]), rtol=1e-12, atol=1e-14)


def test_barrier_conventions():
    prof = barrier.Profile(t=torch.linspace(0, 1, 5).numpy(), cost=torch.tensor([1.0, 2.5, 3.0, 2.5, 2.0]).numpy(),
                           segment=torch.zeros(5, dtype=torch.long).numpy(), kinds=("line",))
    assert prof.barriers() == pytest.approx({"max": 1.0, "mean": 1.5, "interpolated": 1.5})


def test_batched_barriers_equal_single_ones():
    x, y = other_data(2, "huber", 1)
    pairs = [(random_network(2, 16, s), random_network(2, 16, s + 100)) for s in range(4)]
    paths = [barrier.constructive_path(A, B, x, cover="grid") for A, B in pairs] + [barrier.straight_line(*pairs[0])]
    single = [barrier.barrier(p, x, y, loss="huber", lam=LAM) for p in paths]
    assert barrier.barriers(paths, x, y, loss="huber", lam=LAM) == pytest.approx(single, rel=1e-12, abs=1e-15)


def test_weight_matching_recovers_a_permutation():
    A = random_network(2, 10, 41)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(0))
    (W, a), found = barrier.weight_matching(A, (A[0][perm], A[1][perm]))
    torch.testing.assert_close(W, A[0], rtol=0, atol=0)
    torch.testing.assert_close(a, A[1], rtol=0, atol=0)
    assert torch.equal(perm[found], torch.arange(10))
    x, y = other_data(2, "huber", 0)
    assert barrier.barrier(barrier.matched_line(A, (A[0][perm], A[1][perm])), x, y, loss="huber", lam=LAM) == 0.0


def test_bezier_curves_are_feasible_and_improve_on_the_line():
    x, y = other_data(2, "huber", 0)
    pairs = [(random_network(2, 16, s), random_network(2, 16, s + 50)) for s in range(2)]
    curves = barrier.bezier_paths(pairs, x, y, loss="huber", steps=100)
    for (A, B), curve in zip(pairs, curves):
        W, a = curve.evaluate(torch.linspace(0, 1, 21))
        torch.testing.assert_close(W[0], A[0], rtol=0, atol=0)
        torch.testing.assert_close(a[-1], B[1], rtol=0, atol=0)
        assert float(W.norm(dim=-1).max()) <= 1 + 1e-12
        line = barrier.barrier(barrier.straight_line(A, B), x, y, loss="huber", lam=LAM, points_per_segment=101)
        assert barrier.barrier(curve, x, y, loss="huber", lam=LAM, points_per_segment=101) <= line


def test_compare_paths_reports_every_method():
    x, y = barrier.teacher_data(2, loss="huber", samples=64)
    W, a = barrier.train_networks(x, y, width=16, seeds=2, loss="huber", steps=100)
    table = barrier.compare_paths([((W[0], a[0]), (W[1], a[1]))], x, y, loss="huber", bezier_steps=20)
    assert tuple(table) == barrier.METHODS
    for method, row in table.items():
        assert row["seconds"] >= 0 and len(row["max"]) == 1
        assert (row["certificate"][0] is None) == (not method.startswith("constructive"))
    for method in ("constructive (grid)", "constructive (adaptive)"):
        assert table[method]["max"][0] <= table[method]["certificate"][0] + barrier.COST_ATOL


def test_train_networks_is_feasible_and_reproducible():
    x, y = barrier.teacher_data(3, loss="bce", samples=64)
    W, a = barrier.train_networks(x, y, width=8, seeds=3, loss="bce", steps=30)
    assert W.shape == (3, 8, 3) and a.shape == (3, 8)
    assert float(W.norm(dim=-1).max()) <= 1 + 1e-15
    W2, a2 = barrier.train_networks(x, y, width=8, seeds=3, loss="bce", steps=30)
    assert torch.equal(W, W2) and torch.equal(a, a2)


def test_sequential_networks_are_accepted():
    net = relu_network([(random_network(2, 6, 0)[0], torch.zeros(6, dtype=torch.float64)),
                        (torch.randn(1, 6, dtype=torch.float64), torch.zeros(1, dtype=torch.float64))])
    W, a = barrier.as_network("A", net)
    assert W.shape == (6, 2) and a.shape == (6,)


# ------------------------------------------------------------------------------------------
# Input validation
# ------------------------------------------------------------------------------------------

X2 = torch.zeros(5, 2, dtype=torch.float64)
GOOD = (torch.full((4, 2), 0.5, dtype=torch.float64), torch.ones(4, dtype=torch.float64))


@pytest.mark.parametrize(("A", "match"), [
    ((torch.full((4, 2), 0.8, dtype=torch.float64), torch.ones(4)), r"infeasible: ‖w_0‖ = 1\.13"),
    ((GOOD[0], torch.zeros(4), torch.ones(4)), "biases are not part of the construction"),
    ((GOOD[0], torch.ones(3)), r"a must have shape \(4,\)"),
    ((torch.zeros(4, 0), torch.ones(4)), r"W must have shape \(m, n\) with m, n >= 1"),
    ((torch.full((4, 2), float("nan")), torch.ones(4)), "NaN or inf"),
    ((GOOD[0][None], GOOD[1]), r"W must have shape \(m, n\)"),
])
def test_bad_networks_are_refused(A, match):
    with pytest.raises(ValueError, match=match):
        barrier.constructive_path(A, GOOD, X2)


def test_biases_in_a_module_are_refused():
    net = relu_network([(GOOD[0], torch.full((4,), 0.1, dtype=torch.float64)),
                        (GOOD[1][None, :], torch.zeros(1, dtype=torch.float64))])
    with pytest.raises(ValueError, match="has biases"):
        barrier.constructive_path(net, GOOD, X2)


def test_other_bad_inputs():
    other = (torch.full((6, 2), 0.5, dtype=torch.float64), torch.ones(6, dtype=torch.float64))
    with pytest.raises(ValueError, match="same shape"):
        barrier.constructive_path(GOOD, other, X2)
    with pytest.raises(ValueError, match="x has 3 columns but the networks have input dimension n = 2"):
        barrier.constructive_path(GOOD, GOOD, torch.zeros(5, 3))
    with pytest.raises(ValueError, match="cover must be one of"):
        barrier.constructive_path(GOOD, GOOD, X2, cover="voronoi")
    with pytest.raises(TypeError, match="A must be a pair"):
        barrier.constructive_path("network", GOOD, X2)
    path = barrier.constructive_path(GOOD, GOOD, X2)
    y = torch.zeros(5, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"lam must be >= 0"):
        barrier.barrier(path, X2, y, loss="huber", lam=-1.0)
    with pytest.raises(ValueError, match="loss must be one of huber, bce"):
        barrier.barrier(path, X2, y, loss="mse", lam=LAM)
    with pytest.raises(ValueError, match=r"y must lie in \[0, 1\] for the bce loss"):
        barrier.barrier(path, X2, y - 1, loss="bce", lam=LAM)
    with pytest.raises(ValueError, match="points_per_segment must be >= 2"):
        barrier.barrier(path, X2, y, loss="huber", lam=LAM, points_per_segment=1)
    with pytest.raises(ValueError, match=r"ts must be a non-empty set of path times in \[0, 1\]"):
        path.evaluate([1.5])
    with pytest.raises(ValueError, match="carries no certificate"):
        barrier.straight_line(GOOD, GOOD).certificate(X2, 1.0)
    with pytest.raises(ValueError, match="must be >= 2 for the rate"):
        barrier.check_barrier_decay(n=1, widths=[4, 8])
    with pytest.raises(ValueError, match="n must be >= 1"):
        barrier.check_barrier_decay(n=0, widths=[4, 8])
    with pytest.raises(ValueError, match=r"widths must all be >= 4, got \[3\]"):
        barrier.check_zero_barrier_1d([3, 8])
    with pytest.raises(ValueError, match="at least two distinct widths"):
        barrier.check_barrier_decay(n=2, widths=[16, 16])
    with pytest.raises(ValueError, match="kind must be one of"):
        barrier.check_barrier_decay(n=2, widths=[16, 32], kind="random")
    with pytest.raises(ValueError, match=r"lam must be >= 0"):
        barrier.check_zero_barrier_1d([4, 8], lam=-0.1)


# ------------------------------------------------------------------------------------------
# Ledger, and CUDA against CPU
# ------------------------------------------------------------------------------------------

def test_claims_are_registered():
    found = {c.key: c for c in ledger.claims() if c.key.startswith("barrier/")}
    assert {k for k, c in found.items() if c.control} == {
        "barrier/control-chord", "barrier/control-joint-bridge", "barrier/control-fixed-cells",
        "barrier/control-ball", "barrier/control-biases-1d"}
    assert all(c.chapter == "book/04_barrier_decay" for c in found.values())
    assert {c.label for c in found.values()} == {"thm-barrier-decay", "thm-barrier-1d"}


@pytest.mark.gpu
def test_cuda_agrees_with_cpu():
    cuda = torch.device("cuda")
    A, B = random_network(3, 32, 1), random_network(3, 32, 2)
    x, y = barrier.teacher_data(3, loss="bce")
    on_cpu = barrier.audit(barrier.constructive_path(A, B, x, cover="grid"), x, y, loss="bce", lam=LAM)
    A_cuda = tuple(t.to(cuda) for t in A)
    B_cuda = tuple(t.to(cuda) for t in B)
    path = barrier.constructive_path(A_cuda, B_cuda, x.to(cuda), cover="grid")
    assert path.segments[0].W0.device.type == "cuda"
    on_cuda = barrier.audit(path, x.to(cuda), y.to(cuda), loss="bce", lam=LAM)
    assert on_cuda.certificate == pytest.approx(on_cpu.certificate, rel=1e-10)
    assert on_cuda.peak == pytest.approx(on_cpu.peak, rel=1e-10)
    assert on_cuda.holds


def test_cost_matches_its_formula_and_validates():
    W, a = random_network(2, 5, 3)
    x, y = other_data(2, "huber", 0, samples=7)
    by_hand = nn.functional.huber_loss(torch.relu(x @ W.T) @ a, y, delta=0.5) + LAM * a.abs().sum()
    assert float(barrier.cost(W, a, x, y, loss="huber", lam=LAM)) == pytest.approx(float(by_hand), rel=1e-14)
    batch = barrier.cost(torch.stack([W, W]), torch.stack([a, -a]), x, y, loss="huber", lam=LAM)
    assert batch.shape == (2,)
    with pytest.raises(ValueError, match="matching m and n"):
        barrier.cost(W, a[:4], x, y, loss="huber", lam=LAM)
    with pytest.raises(ValueError, match="lam must be >= 0"):
        barrier.cost(W, a, x, y, loss="huber", lam=-1.0)
    with pytest.raises(TypeError, match="W must be a torch tensor"):
        barrier.forward(W.numpy(), a, x)


def test_bce_is_exact_for_large_logits():
    """log(1 + e^p) − yp without softplus's switch at p = 20 (a 2e-9 jump that would break convexity checks)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    p = torch.tensor([19.9, 20.0, 20.1, 40.0, -40.0], dtype=torch.float64)
    exact = torch.tensor([float(mpmath.log(1 + mpmath.exp(mpmath.mpf(float(v))))) for v in p], dtype=torch.float64)
    torch.testing.assert_close(barrier.LOSSES["bce"](p, torch.zeros(5, dtype=torch.float64)), exact, rtol=2e-16, atol=0)
    assert float((nn.functional.softplus(p) - exact).abs().max()) > 1e-9  # torch's softplus is not exact here
